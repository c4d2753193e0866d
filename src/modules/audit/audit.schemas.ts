import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, PageQuery, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { AUDIT_ACTIONS } from '../../operations.js';

export const AuditEntry = Type.Object({
  id: Type.String(),
  action: StringEnum(AUDIT_ACTIONS),
  entityType: Type.String(),
  entityRef: Nullable(Type.String()),
  changes: Type.Object({}, { additionalProperties: true }),
  requestId: Type.String(),
  source: Type.String(),
  createdAt: Timestamp,
});
export type AuditEntryView = Static<typeof AuditEntry>;

export const AuditList = ListEnvelope(AuditEntry);
export type AuditListView = Static<typeof AuditList>;

export const AuditQuery = Type.Object({ ...PageQuery, action: Type.Optional(StringEnum(AUDIT_ACTIONS)) });
export type AuditQueryValue = Static<typeof AuditQuery>;
