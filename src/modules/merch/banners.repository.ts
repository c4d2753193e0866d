import type { Queryable } from '../../db/port.js';
import type { StoredImage } from '../media/index.js';
import type { StoredTranslations } from '../menu/index.js';
import { findRow, listRows, selectRows } from '../../db/keyed-rows.js';

export interface BannerRow {
  id: string;
  external_id: string | null;
  title: string;
  subtitle: string | null;
  link_url: string | null;
  product_id: string | null;
  product_external_id: string | null;
  is_active: boolean;
  sort_order: number;
  starts_at: string | null;
  ends_at: string | null;
  translations: StoredTranslations;
  image: StoredImage | null;
  created_at: Date;
  updated_at: Date;
}

export const BANNER_COLUMNS = `id, external_id, title, subtitle, link_url, product_id,
  (select p.external_id from products p where p.venue_id = banners.venue_id and p.id = banners.product_id) as product_external_id,
  is_active, sort_order, starts_at, ends_at, translations, image, created_at, updated_at`;

/** Banners are listed, and shown, in sortOrder, then oldest first. */
export const BANNER_ORDER = 'sort_order, created_at, id';

export const findBanner = (db: Queryable, venueId: string, id: string, forUpdate = false) =>
  findRow<BannerRow>(db, venueId, 'banners', BANNER_COLUMNS, id, forUpdate);

export const listBanners = (db: Queryable, venueId: string, limit: number, offset: number) =>
  listRows<BannerRow>(db, venueId, 'banners', BANNER_COLUMNS, BANNER_ORDER, limit, offset);

/** Every banner of a venue (the guest's live view picks from them). */
export const allBanners = (db: Queryable, venueId: string) => selectRows<BannerRow>(db, venueId, 'banners', BANNER_COLUMNS, BANNER_ORDER);

export async function findBannersByIds(db: Queryable, venueId: string, ids: string[]): Promise<BannerRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<BannerRow>(`select ${BANNER_COLUMNS} from banners where venue_id = $1 and id = any($2::uuid[])`, [
    venueId,
    ids,
  ]);
  return rows;
}

/** New translations for several banners in one statement (PUT /v1/translations). */
export async function updateBannerTranslations(
  db: Queryable,
  venueId: string,
  rows: { id: string; translations: StoredTranslations }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `update banners b set translations = r.translations, revision = b.revision + 1, updated_at = now()
     from jsonb_to_recordset($2::jsonb) as r(id uuid, translations jsonb)
     where b.venue_id = $1 and b.id = r.id`,
    [venueId, JSON.stringify(rows)],
  );
}

/** Sets (or clears) a banner's image. */
export async function setBannerImage(db: Queryable, venueId: string, bannerId: string, image: StoredImage | null): Promise<void> {
  await db.query(`update banners set image = $3::jsonb, revision = revision + 1, updated_at = now() where venue_id = $1 and id = $2`, [
    venueId,
    bannerId,
    image === null ? null : JSON.stringify(image),
  ]);
}
