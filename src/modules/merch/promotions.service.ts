import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { assertIfMatch } from '../../shared/etag.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { readSettings } from '../settings/index.js';
import { deleteRow, insertRow, updateRow } from '../../db/keyed-rows.js';
import { ChangeSet } from '../../shared/writes.js';
import { mapViolations, nextSchedule, productIdOf } from './merch-rules.js';
import { etagged, type Etagged } from '../../shared/etag.js';
import * as promotions from './promotions.repository.js';
import type {
  PromotionCreateInput,
  PromotionItemCreateInput,
  PromotionItemPatchInput,
  PromotionItemView,
  PromotionPatchInput,
  PromotionView,
} from './promotions.schemas.js';

export function itemView(row: promotions.PromotionItemRow): PromotionItemView {
  return {
    id: row.id,
    promotionId: row.promotion_id,
    productId: row.product_id,
    productExternalId: row.product_external_id,
    productName: row.product_name,
    promoPriceMinor: row.promo_price_minor,
    sortOrder: row.sort_order,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function promotionView(row: promotions.PromotionRow, items: promotions.PromotionItemRow[]): PromotionView {
  return {
    id: row.id,
    externalId: row.external_id,
    name: row.name,
    description: row.description,
    isActive: row.is_active,
    sortOrder: row.sort_order,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    items: items.filter((i) => i.promotion_id === row.id).map(itemView),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const PLAIN_FIELDS = {
  externalId: 'external_id',
  name: 'name',
  description: 'description',
  isActive: 'is_active',
  sortOrder: 'sort_order',
} as const;

/** Promotions and their items. What they do to guests' prices: guest-merch.ts. */
export class PromotionsService {
  constructor(private readonly db: Database) {}

  private async load(db: Queryable, venueId: string, id: string, forUpdate = false): Promise<promotions.PromotionRow> {
    const row = await promotions.findPromotion(db, venueId, id, forUpdate);
    if (!row) throw errors.promotionNotFound();
    return row;
  }

  private async read(db: Queryable, venueId: string, row: promotions.PromotionRow): Promise<Etagged<PromotionView>> {
    return etagged(promotionView(row, await promotions.itemsOf(db, venueId, [row.id])));
  }

  private async loadItem(db: Queryable, venueId: string, promotionId: string, itemId: string, forUpdate = false) {
    const item = await promotions.findItem(db, venueId, promotionId, itemId, forUpdate);
    if (!item) throw errors.promotionItemNotFound();
    return item;
  }

  async list(venueId: string, query: { page?: number; limit?: number }) {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await promotions.listPromotions(this.db, venueId, limit, offset);
    const items = await promotions.itemsOf(
      this.db,
      venueId,
      rows.map((r) => r.id),
    );
    return listEnvelope(
      rows.map((r) => promotionView(r, items)),
      total,
      page,
      limit,
    );
  }

  async get(venueId: string, id: string): Promise<Etagged<PromotionView>> {
    return this.read(this.db, venueId, await this.load(this.db, venueId, id));
  }

  async create(actor: Actor, input: PromotionCreateInput): Promise<Etagged<PromotionView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const schedule = nextSchedule(input, null, (await readSettings(tx, venueId)).timezone);
        const id = uuidv7();
        await mapViolations({ externalId: input.externalId }, () =>
          insertRow(tx, venueId, 'promotions', {
            id,
            external_id: input.externalId ?? null,
            name: input.name,
            description: input.description ?? null,
            is_active: input.isActive ?? true,
            sort_order: input.sortOrder ?? 0,
            ...schedule,
          }),
        );
        await audit(tx, actor, [
          {
            action: 'promotion.create',
            entityType: 'promotion',
            entityRef: input.externalId ?? id,
            changes: { id, externalId: input.externalId ?? null },
          },
        ]);
        return this.read(tx, venueId, await this.load(tx, venueId, id));
      },
      { venueId },
    );
  }

  async patch(actor: Actor, id: string, input: PromotionPatchInput, ifMatch: string | undefined): Promise<Etagged<PromotionView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        const current = await this.read(tx, venueId, row);
        assertIfMatch(ifMatch, current.etag);
        const change = new ChangeSet(row).plain(input, PLAIN_FIELDS);
        const schedule = nextSchedule(input, row, (await readSettings(tx, venueId)).timezone);
        change.set('startsAt', 'starts_at', schedule.starts_at);
        change.set('endsAt', 'ends_at', schedule.ends_at);
        if (change.empty) return current;
        await mapViolations({ externalId: input.externalId }, () => updateRow(tx, venueId, 'promotions', row.id, change.changes));
        await audit(tx, actor, [
          { action: 'promotion.update', entityType: 'promotion', entityRef: row.external_id ?? row.id, changes: { fields: change.fields } },
        ]);
        return this.read(tx, venueId, await this.load(tx, venueId, row.id));
      },
      { venueId },
    );
  }

  async delete(actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        await deleteRow(tx, venueId, 'promotions', row.id);
        await audit(tx, actor, [
          {
            action: 'promotion.delete',
            entityType: 'promotion',
            entityRef: row.external_id ?? row.id,
            changes: { id: row.id, externalId: row.external_id },
          },
        ]);
        return { id: row.id, deleted: true as const };
      },
      { venueId },
    );
  }

  // ---- items ----------------------------------------------------------------------------------

  async listItems(venueId: string, promotionId: string, query: { page?: number; limit?: number }) {
    const promotion = await this.load(this.db, venueId, promotionId);
    const { page, limit, offset } = pageWindow(query);
    const all = await promotions.itemsOf(this.db, venueId, [promotion.id]);
    return listEnvelope(all.slice(offset, offset + limit).map(itemView), all.length, page, limit);
  }

  async getItem(venueId: string, promotionId: string, itemId: string): Promise<Etagged<PromotionItemView>> {
    const promotion = await this.load(this.db, venueId, promotionId);
    return etagged(itemView(await this.loadItem(this.db, venueId, promotion.id, itemId)));
  }

  /** 404 PRODUCT_NOT_FOUND for an unknown product; 409 DUPLICATE_PROMOTION_ITEM when it is already in (the database decides). */
  async addItem(actor: Actor, promotionId: string, input: PromotionItemCreateInput): Promise<Etagged<PromotionItemView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const promotion = await this.load(tx, venueId, promotionId, true);
        const productId = await productIdOf(tx, venueId, input.productRef);
        const id = uuidv7();
        await mapViolations({}, () =>
          promotions.insertItem(tx, venueId, {
            id,
            promotionId: promotion.id,
            productId,
            promoPriceMinor: input.promoPriceMinor ?? null,
            sortOrder: input.sortOrder ?? 0,
          }),
        );
        await promotions.touchPromotion(tx, venueId, promotion.id);
        await audit(tx, actor, [
          { action: 'promotion.item_add', entityType: 'promotion_item', entityRef: id, changes: { promotionId: promotion.id, productId } },
        ]);
        return etagged(itemView(await this.loadItem(tx, venueId, promotion.id, id)));
      },
      { venueId },
    );
  }

  async patchItem(
    actor: Actor,
    promotionId: string,
    itemId: string,
    input: PromotionItemPatchInput,
    ifMatch: string | undefined,
  ): Promise<Etagged<PromotionItemView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const promotion = await this.load(tx, venueId, promotionId, true);
        const item = await this.loadItem(tx, venueId, promotion.id, itemId, true);
        const current = etagged(itemView(item));
        assertIfMatch(ifMatch, current.etag);
        const change = new ChangeSet(item).plain(input, { promoPriceMinor: 'promo_price_minor', sortOrder: 'sort_order' });
        if (change.empty) return current;
        await promotions.updateItem(tx, venueId, item.id, {
          promoPriceMinor: input.promoPriceMinor === undefined ? item.promo_price_minor : input.promoPriceMinor,
          sortOrder: input.sortOrder ?? item.sort_order,
        });
        await promotions.touchPromotion(tx, venueId, promotion.id);
        await audit(tx, actor, [
          {
            action: 'promotion.item_update',
            entityType: 'promotion_item',
            entityRef: item.id,
            changes: { promotionId: promotion.id, fields: change.fields },
          },
        ]);
        return etagged(itemView(await this.loadItem(tx, venueId, promotion.id, item.id)));
      },
      { venueId },
    );
  }

  async removeItem(actor: Actor, promotionId: string, itemId: string): Promise<{ id: string; deleted: true }> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const promotion = await this.load(tx, venueId, promotionId, true);
        const item = await this.loadItem(tx, venueId, promotion.id, itemId, true);
        await promotions.deleteItem(tx, venueId, item.id);
        await promotions.touchPromotion(tx, venueId, promotion.id);
        await audit(tx, actor, [
          {
            action: 'promotion.item_remove',
            entityType: 'promotion_item',
            entityRef: item.id,
            changes: { promotionId: promotion.id, productId: item.product_id },
          },
        ]);
        return { id: item.id, deleted: true as const };
      },
      { venueId },
    );
  }
}
