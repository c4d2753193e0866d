import type { Queryable } from '../../db/port.js';
import { isUuid } from '../../ids.js';
import { findRow, listRows, selectRows, updateRow } from '../../db/keyed-rows.js';

export interface PromotionRow {
  id: string;
  external_id: string | null;
  name: string;
  description: string | null;
  is_active: boolean;
  sort_order: number;
  starts_at: string | null;
  ends_at: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface PromotionItemRow {
  id: string;
  promotion_id: string;
  product_id: string;
  product_external_id: string | null;
  product_name: string;
  promo_price_minor: number | null;
  sort_order: number;
  created_at: Date;
  updated_at: Date;
}

const PROMOTION_COLUMNS = 'id, external_id, name, description, is_active, sort_order, starts_at, ends_at, created_at, updated_at';
const PROMOTION_ORDER = 'sort_order, created_at, id';

export const findPromotion = (db: Queryable, venueId: string, id: string, forUpdate = false) =>
  findRow<PromotionRow>(db, venueId, 'promotions', PROMOTION_COLUMNS, id, forUpdate);

export const listPromotions = (db: Queryable, venueId: string, limit: number, offset: number) =>
  listRows<PromotionRow>(db, venueId, 'promotions', PROMOTION_COLUMNS, PROMOTION_ORDER, limit, offset);

export const allPromotions = (db: Queryable, venueId: string) =>
  selectRows<PromotionRow>(db, venueId, 'promotions', PROMOTION_COLUMNS, PROMOTION_ORDER);

const ITEM_COLUMNS = `i.id, i.promotion_id, i.product_id, p.external_id as product_external_id, p.name as product_name,
  i.promo_price_minor, i.sort_order, i.created_at, i.updated_at`;
const ITEM_ORDER = 'i.sort_order, i.created_at, i.id';

/** The items of several promotions (or of all, with null), in their order, with their product's ids and name. */
export async function itemsOf(db: Queryable, venueId: string, promotionIds: string[] | null): Promise<PromotionItemRow[]> {
  if (promotionIds !== null && promotionIds.length === 0) return [];
  const { rows } = await db.query<PromotionItemRow>(
    `select ${ITEM_COLUMNS} from promotion_items i join products p on p.venue_id = i.venue_id and p.id = i.product_id
     where i.venue_id = $1 ${promotionIds === null ? '' : 'and i.promotion_id = any($2::uuid[])'}
     order by ${ITEM_ORDER}`,
    promotionIds === null ? [venueId] : [venueId, promotionIds],
  );
  return rows;
}

export async function findItem(
  db: Queryable,
  venueId: string,
  promotionId: string,
  itemId: string,
  forUpdate = false,
): Promise<PromotionItemRow | null> {
  if (!isUuid(itemId)) return null;
  const { rows } = await db.query<PromotionItemRow>(
    `select ${ITEM_COLUMNS} from promotion_items i join products p on p.venue_id = i.venue_id and p.id = i.product_id
     where i.venue_id = $1 and i.promotion_id = $2 and i.id = $3${forUpdate ? ' for update of i' : ''}`,
    [venueId, promotionId, itemId],
  );
  return rows[0] ?? null;
}

export async function insertItem(
  db: Queryable,
  venueId: string,
  item: { id: string; promotionId: string; productId: string; promoPriceMinor: number | null; sortOrder: number },
): Promise<void> {
  await db.query(
    `insert into promotion_items (venue_id, id, promotion_id, product_id, promo_price_minor, sort_order) values ($1, $2, $3, $4, $5, $6)`,
    [venueId, item.id, item.promotionId, item.productId, item.promoPriceMinor, item.sortOrder],
  );
}

export async function updateItem(
  db: Queryable,
  venueId: string,
  itemId: string,
  item: { promoPriceMinor: number | null; sortOrder: number },
): Promise<void> {
  await db.query(`update promotion_items set promo_price_minor = $3, sort_order = $4, updated_at = now() where venue_id = $1 and id = $2`, [
    venueId,
    itemId,
    item.promoPriceMinor,
    item.sortOrder,
  ]);
}

export async function deleteItem(db: Queryable, venueId: string, itemId: string): Promise<void> {
  await db.query('delete from promotion_items where venue_id = $1 and id = $2', [venueId, itemId]);
}

/** An item's change is the promotion's change too: its updatedAt (and ETag) move. */
export const touchPromotion = (db: Queryable, venueId: string, promotionId: string) =>
  updateRow(db, venueId, 'promotions', promotionId, {});
