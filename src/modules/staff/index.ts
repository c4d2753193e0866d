// The staff module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { PASSWORD_MIN_LENGTH } from './passwords.js';
export { LOCK_MS, SESSION_MAX_MS } from './sessions.service.js';
export type { ConsoleAuthService, ConsoleSession } from './sessions.service.js';
export {
  STAFF_ROLES,
  StaffCreateBody,
  StaffInvited,
  StaffList,
  StaffListQuery,
  StaffMember,
  StaffParams,
  StaffPatchBody,
} from './staff.schemas.js';
export type { StaffCall, StaffService } from './staff.service.js';
