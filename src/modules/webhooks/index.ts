// The webhooks module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { outboxCall, payloadSql } from './outbox-sql.js';
export type { EventHead } from './outbox-sql.js';
export type { WebhookEvents } from './webhook-events.js';
