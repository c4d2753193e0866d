import { Type, type Static } from 'typebox';
import { ListEnvelope, PageQuery, StringEnum, Timestamp } from '../../http/schemas/common.js';

/** What each role may do in the console. */
export const STAFF_ROLES = ['owner', 'manager', 'staff'] as const;
export const STAFF_STATUSES = ['invited', 'active'] as const;

const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'Unique per venue, compared in lower case (kept in lower case)',
});
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const StaffCreateBody = Type.Object({ email: Email, name: Name, role: StringEnum(STAFF_ROLES) }, { additionalProperties: false });
export type StaffCreateInput = Static<typeof StaffCreateBody>;

export const StaffPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    role: Type.Optional(StringEnum(STAFF_ROLES)),
    disabled: Type.Optional(Type.Boolean({ description: 'A disabled member cannot sign in; their sessions end at once' })),
  },
  { additionalProperties: false },
);
export type StaffPatchInput = Static<typeof StaffPatchBody>;

export const StaffMember = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: StringEnum(STAFF_ROLES),
  status: StringEnum(STAFF_STATUSES, {
    description: '`invited` until the invite link sets a password (again after a re-invite), then `active`',
  }),
  disabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type StaffMemberView = Static<typeof StaffMember>;

export const StaffInvited = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: StringEnum(STAFF_ROLES),
  status: StringEnum(['invited'] as const),
  inviteUrl: Type.String({ description: '`PUBLIC_BASE_URL/console/invite/<token>`: one use, shown only in this response' }),
  inviteExpiresAt: Timestamp,
});
export type StaffInvitedView = Static<typeof StaffInvited>;

export const StaffList = ListEnvelope(StaffMember);
export type StaffListView = Static<typeof StaffList>;
export const StaffListQuery = Type.Object(PageQuery);
export type StaffListQueryValue = Static<typeof StaffListQuery>;

export const StaffParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
