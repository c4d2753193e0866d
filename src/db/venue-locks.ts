import type { Queryable } from './port.js';

// Per-venue advisory locks, held to the end of the transaction that takes them. Every writer that
// must see another's work takes the same named lock, so they are named here once.

/**
 * Serialises the writers of one venue's menu (sync, publish, patch, cleanup, translations, images):
 * two syncs at once run one after the other and each sees the other's result, and an image is
 * never freed while a publish that names it is being written.
 */
export async function lockMenu(db: Queryable, venueId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('menu:' || $1::text, 0))`, [venueId]);
}

/** Serialises the merchandising writes of one venue that must see each other: creates against the plan's limit. */
export async function lockMerch(db: Queryable, venueId: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtextextended('merch:' || $1::text, 0))`, [venueId]);
}
