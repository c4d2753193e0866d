// The staff module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
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
export { hashToken, newToken } from './staff.service.js';
export type { StaffCall, StaffService } from './staff.service.js';
// The console's sign-in reads a member and writes their password in its own transactions (an
// invite is taken, the password set and the sessions ended together): the member's SQL stays here.
export { deleteMemberSessions, findMember, rehashPassword, setPassword } from './staff.repository.js';
export type { StaffRole, StaffRow } from './staff.repository.js';
