import type { WriteScope } from './port.js';

/**
 * The tables of a venue's orders and what belongs to them (WriteScope `ordersOnly`): no venue,
 * menu, merchandising, settings or subscription memo reads them. webhook_outbox() writes only
 * the outbox tables among them. Every other table, and any write this file cannot name, counts
 * as the whole venue's.
 */
const ORDERS_TABLES = new Set([
  'orders',
  'order_items',
  'order_item_modifiers',
  'order_clocks',
  'order_idempotency_keys',
  'idempotency_keys',
  'audit_log',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'webhook_outbox',
]);

// Where a statement writes: `insert into t`, `update t` (not `do update set` nor `for update`),
// `delete from t`, and a call of the outbox function.
const WRITES =
  /\b(?:insert\s+into|delete\s+from|(?<!\b(?:do|for|key)\s+)update)\s+(?:only\s+)?("?[a-z_][a-z0-9_]*"?)|\b(webhook_outbox)\s*\(/gi;

/** True when the statement writes only the tables of a venue's orders (and writes something nameable). */
export function writesOrdersOnly(text: string): boolean {
  let named = false;
  for (const match of text.matchAll(WRITES)) {
    const table = (match[1] ?? match[2]).replaceAll('"', '').toLowerCase();
    if (!ORDERS_TABLES.has(table)) return false;
    named = true;
  }
  return named;
}

/**
 * What a transaction's writes can have changed, gathered as its statements run: the venue it was
 * opened for, narrowed to that venue's orders while every write touched only their tables. The
 * adapters (pglite.ts, postgres.ts) keep one per transaction, so no caller states `ordersOnly`
 * and a write of any other table widens the scope by itself.
 */
export class WriteTracker {
  wrote = false;
  private ordersOnly = true;

  constructor(private readonly venueId: string | undefined) {}

  /** A write statement (a script counts as writing anything). */
  note(text: string | null): void {
    this.wrote = true;
    if (this.ordersOnly && (text === null || !writesOrdersOnly(text))) this.ordersOnly = false;
  }

  /** The scope to announce on commit; undefined: anything may have changed. */
  scope(): WriteScope | undefined {
    if (this.venueId === undefined) return undefined;
    return this.ordersOnly ? { venueId: this.venueId, ordersOnly: true } : { venueId: this.venueId };
  }
}

/**
 * `alone`'s statement against the scope its caller declared (its notification is part of the
 * statement, so the scope must be known before it is sent): a statement that writes beyond its
 * venue's orders under an `ordersOnly` scope is a bug that would leave memos stale, refused here.
 */
export function assertWithinScope(scope: WriteScope, text: string): void {
  if (scope.ordersOnly && !writesOrdersOnly(text)) {
    throw new Error(`a statement declared to write only orders writes other tables: ${text.slice(0, 120)}`);
  }
}
