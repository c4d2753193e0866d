import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, Timestamp } from '../../http/schemas/common.js';
import { MerchExternalId } from './merch.schemas.js';

const tableFields = {
  externalId: Type.Optional(Nullable(MerchExternalId)),
  name: Type.String({ minLength: 1, maxLength: 50, description: 'Unique per venue, ignoring case' }),
  seats: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1000 }))),
  zone: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  isActive: Type.Optional(Type.Boolean()),
};

export const TableCreateBody = Type.Object(tableFields, { additionalProperties: false });
export type TableCreateInput = Static<typeof TableCreateBody>;

const { name, ...optionalTableFields } = tableFields;
export const TablePatchBody = Type.Object({ name: Type.Optional(name), ...optionalTableFields }, { additionalProperties: false });
export type TablePatchInput = Static<typeof TablePatchBody>;

export const Table = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  seats: Nullable(Type.Integer()),
  zone: Nullable(Type.String()),
  isActive: Type.Boolean(),
  qrUrl: Type.String({ description: "`PUBLIC_BASE_URL/t/<token>`: the guest's link, printed as the table's QR code" }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TableView = Static<typeof Table>;

export const TableList = ListEnvelope(Table);

export const QrPngQuery = Type.Object({
  size: Type.Optional(Type.Integer({ minimum: 64, maximum: 2048, default: 512, description: 'Width and height in pixels' })),
});

export const QrSheetQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'One A4 page of 12 codes; omitted: every page, one under another' })),
});

/** GET /guest/v1/tables/:token: where a QR code leads. */
export const GuestTable = Type.Object({
  venue: Type.Object({ slug: Type.String(), name: Type.String() }),
  table: Type.Object({ id: Type.String(), name: Type.String(), zone: Nullable(Type.String()) }),
});
export type GuestTableView = Static<typeof GuestTable>;

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 64 }) });
