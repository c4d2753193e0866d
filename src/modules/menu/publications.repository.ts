import { LargeText, type Queryable } from '../../db/port.js';
import type { StoredImage } from '../media/index.js';

// menu_publications: the immutable snapshots publish writes, their history and retention.

export async function insertPublication(
  db: Queryable,
  venueId: string,
  p: {
    id: string;
    publishedAt: string;
    /** The document, serialised. */
    json: string;
    counts: unknown;
    mediaKeys: string[];
    /** The publication a restore made this one from. */
    restoredFrom: string | null;
    /** Each product row's version (productVersion) as published. */
    productVersions: Record<string, string>;
  },
): Promise<void> {
  await db.query(
    `insert into menu_publications (venue_id, id, published_at, document, counts, media_keys, restored_from, product_versions)
     values ($1, $2, $3, $4::json, $5::jsonb, $6::text[], $7, $8::jsonb)`,
    [
      venueId,
      p.id,
      p.publishedAt,
      new LargeText(p.json),
      JSON.stringify(p.counts),
      p.mediaKeys,
      p.restoredFrom,
      JSON.stringify(p.productVersions),
    ],
  );
  await db.query(
    // A first publish of a never-edited draft keeps the draft's time (the venue's creation), so
    // the draft document, and its ETag, stay what they were.
    `insert into menu_state (venue_id, latest_publication_id, draft_changed_at)
     values ($1, $2, (select created_at from venues where id = $1))
     on conflict (venue_id) do update set latest_publication_id = excluded.latest_publication_id`,
    [venueId, p.id],
  );
}

/**
 * A product row's version: every write to a row moves its revision and its updatedAt, so a row
 * with the same version as when a publication was made still holds what that publication shows.
 */
export function productVersion(row: { revision: number; updated_at: Date }): string {
  return `${row.revision}@${row.updated_at.toISOString()}`;
}

/** A publication's document (text) and the product versions it was made from; null when unknown. */
export async function findPublicationForRestore(
  db: Queryable,
  venueId: string,
  publicationId: string,
): Promise<{ document: string; productVersions: Record<string, string> } | null> {
  const { rows } = await db.query<{ document: string; product_versions: Record<string, string> | null }>(
    'select document::text as document, product_versions from menu_publications where venue_id = $1 and id = $2',
    [venueId, publicationId],
  );
  return rows[0] ? { document: rows[0].document, productVersions: rows[0].product_versions ?? {} } : null;
}

/** The published document as stored text: served as is, never re-parsed per request. */
export async function findPublicationDocument(db: Queryable, venueId: string, publicationId: string): Promise<string | null> {
  const { rows } = await db.query<{ document: string }>(
    'select document::text as document from menu_publications where venue_id = $1 and id = $2',
    [venueId, publicationId],
  );
  return rows[0]?.document ?? null;
}

export interface PublicationRow {
  id: string;
  published_at: Date;
  counts: { categories: number; ingredients: number; products: number };
  restored_from: string | null;
}

/** One page of the venue's publications, newest first, and how many there are. */
export async function listPublications(
  db: Queryable,
  venueId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: PublicationRow[]; total: number }> {
  const { rows } = await db.query<PublicationRow & { total: string }>(
    `select id, published_at, counts, restored_from, count(*) over () as total
     from menu_publications where venue_id = $1
     order by published_at desc, id desc limit $2 offset $3`,
    [venueId, page.limit, page.offset],
  );
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows.length > 0 ? Number(rows[0].total) : 0 };
  // A page past the end: the count alone.
  const count = await db.query<{ total: string }>('select count(*) as total from menu_publications where venue_id = $1', [venueId]);
  return { rows: [], total: Number(count.rows[0].total) };
}

/**
 * Deletes the publications older than `before` that are not among the latest `keep`, and returns
 * the image keys they held (their blobs go unless something else still refers to them).
 */
export async function prunePublications(db: Queryable, venueId: string, before: Date, keep: number): Promise<string[]> {
  const { rows } = await db.query<{ keys: string[] }>(
    `with gone as (
       delete from menu_publications
       where venue_id = $1 and published_at < $2
         and id not in (select id from menu_publications where venue_id = $1 order by published_at desc, id desc limit $3)
       returning media_keys)
     select coalesce(array_agg(distinct k), '{}') as keys from gone, unnest(gone.media_keys) as k`,
    [venueId, before, keep],
  );
  return rows[0]?.keys ?? [];
}

/** Sets the images of products (a restore writes its snapshot's), in one statement. */
export async function setProductImages(db: Queryable, venueId: string, rows: { id: string; image: StoredImage | null }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `update products p set image = r.image
     from jsonb_to_recordset($2::jsonb) as r(id uuid, image jsonb)
     where p.venue_id = $1 and p.id = r.id and p.image is distinct from r.image`,
    [venueId, JSON.stringify(rows)],
  );
}

export interface DraftKeys {
  categories: { id: string; external_id: string | null }[];
  ingredients: { id: string; external_id: string | null }[];
  products: { id: string; external_id: string | null; image: StoredImage | null; revision: number; updated_at: Date }[];
}

/** What a restore needs of the draft: every item's id and externalId, the products' images and versions. */
export async function draftKeys(db: Queryable, venueId: string): Promise<DraftKeys> {
  // Sequential: one connection in a transaction (see menu.repository.ts loadMenu).
  const categories = await db.query<DraftKeys['categories'][number]>('select id, external_id from categories where venue_id = $1', [
    venueId,
  ]);
  const ingredients = await db.query<DraftKeys['ingredients'][number]>('select id, external_id from ingredients where venue_id = $1', [
    venueId,
  ]);
  const products = await db.query<DraftKeys['products'][number]>(
    'select id, external_id, image, revision, updated_at from products where venue_id = $1',
    [venueId],
  );
  return { categories: categories.rows, ingredients: ingredients.rows, products: products.rows };
}
