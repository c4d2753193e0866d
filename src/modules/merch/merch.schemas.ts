// Shapes shared by banners, promotions and tables.
import { Type } from 'typebox';
import { Nullable } from '../../http/schemas/common.js';

export const MerchExternalId = Type.String({ minLength: 1, maxLength: 255, description: 'Your own id: unique per venue and type' });
export const MerchSortOrder = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });
export const ScheduleTime = Nullable(
  Type.String({
    minLength: 16,
    maxLength: 40,
    description:
      'ISO 8601 date and time. Without an offset (2026-12-24T18:00) it is a wall-clock time in the venue timezone setting; with Z or an offset, that instant',
  }),
);

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
