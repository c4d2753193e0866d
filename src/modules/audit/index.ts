// The audit module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { audit, auditFrom, withMember } from './audit.service.js';
export type { Actor, AuditRecord, ConsoleMember } from './audit.service.js';
