import type { Queryable } from '../../db/port.js';

export interface BlobRow {
  key: string;
  content_type: string;
  byte_size: number;
  /** The bytes in base64 (see insertBlobs), or null. */
  data_base64: string | null;
}

export interface BlobWrite {
  key: string;
  contentType: string;
  size: number;
  /** null when an external store (S3) holds the bytes. */
  data: Buffer | null;
}

/**
 * Content-addressed: a key already stored is the same bytes, so a second insert does nothing.
 * Bytes travel as base64 text decoded by the database: PGlite takes a bytea parameter several times
 * slower, and PostgreSQL takes either at the same speed.
 */
export async function insertBlobs(db: Queryable, venueId: string, blobs: BlobWrite[]): Promise<void> {
  if (blobs.length === 0) return;
  // One statement for the few variants of one image (a VALUES row each).
  const values: string[] = [];
  const params: unknown[] = [venueId];
  for (const b of blobs) {
    const i = params.length;
    values.push(`($1, $${i + 1}, $${i + 2}, $${i + 3}, decode($${i + 4}, 'base64'))`);
    params.push(b.key, b.contentType, b.size, b.data === null ? null : b.data.toString('base64'));
  }
  await db.query(
    `insert into media_blobs (venue_id, key, content_type, byte_size, data) values ${values.join(', ')}
     on conflict (venue_id, key) do nothing`,
    params,
  );
}

export async function findBlob(db: Queryable, venueId: string, key: string, withData: boolean): Promise<BlobRow | null> {
  const { rows } = await db.query<BlobRow>(
    `select key, content_type, byte_size, ${withData ? "encode(data, 'base64')" : 'null'} as data_base64
     from media_blobs where venue_id = $1 and key = $2`,
    [venueId, key],
  );
  return rows[0] ?? null;
}

/**
 * Deletes the blobs among `keys` that nothing refers to any more, and returns their keys: no
 * product's or banner's image, not the logo, and no published snapshot (a guest may be looking at
 * one). Run in the transaction that dropped the references, under the venue's menu lock.
 */
export async function deleteUnreferencedBlobs(db: Queryable, venueId: string, keys: string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<{ key: string }>(
    `delete from media_blobs b
     where b.venue_id = $1 and b.key = any($2::text[])
       and not exists (select 1 from products p where p.venue_id = $1 and p.image is not null
                         and jsonb_path_exists(p.image, '$.variants[*].key ? (@ == $k)', jsonb_build_object('k', b.key)))
       and not exists (select 1 from banners n where n.venue_id = $1 and n.image is not null
                         and jsonb_path_exists(n.image, '$.variants[*].key ? (@ == $k)', jsonb_build_object('k', b.key)))
       and not exists (select 1 from venue_settings s where s.venue_id = $1 and s.logo is not null
                         and jsonb_path_exists(s.logo, '$.variants[*].key ? (@ == $k)', jsonb_build_object('k', b.key)))
       and not exists (select 1 from menu_publications m where m.venue_id = $1 and b.key = any(m.media_keys))
     returning b.key`,
    [venueId, keys],
  );
  return rows.map((r) => r.key);
}

// ---- what refers to images ----------------------------------------------------------------------

// ---- S3 store: deletions that happen after commit -------------------------------------------------

export async function insertDeletions(db: Queryable, venueId: string, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query(`insert into media_deletions (venue_id, key) select $1, k from unnest($2::text[]) k on conflict do nothing`, [
    venueId,
    keys,
  ]);
}

/** A key stored again is wanted again: its pending deletion is dropped. */
export async function cancelDeletions(db: Queryable, venueId: string, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query('delete from media_deletions where venue_id = $1 and key = any($2::text[])', [venueId, keys]);
}

/**
 * Takes up to `limit` of the venue's pending deletions and returns those whose blob is still gone
 * (call under the menu lock).
 */
export async function takeDeletions(db: Queryable, venueId: string, limit: number): Promise<{ gone: string[]; taken: number }> {
  const { rows } = await db.query<{ key: string; stored: boolean }>(
    `delete from media_deletions d
     where d.venue_id = $1 and d.key in (select key from media_deletions where venue_id = $1 order by created_at, key limit $2)
     returning d.key, exists (select 1 from media_blobs b where b.venue_id = $1 and b.key = d.key) as stored`,
    [venueId, limit],
  );
  return { gone: rows.filter((r) => !r.stored).map((r) => r.key), taken: rows.length };
}

/** Venues with deletions pending (the periodic sweep; a maintenance look-up across venues). */
export async function venuesWithDeletions(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ venue_id: string }>('select distinct venue_id from media_deletions limit $1', [limit]);
  return rows.map((r) => r.venue_id);
}
