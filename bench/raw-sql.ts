// Baseline (b): the same rows as a fixture sync, written by hand in one transaction with one
// set-based statement per table on the same engine. No validation, planning or reads.
import { randomUUID } from 'node:crypto';
import type { Database } from '../src/db/port.js';
import type { SyncBody } from './workload.js';

export async function rawSqlWrite(db: Database, venueId: string, body: SyncBody): Promise<number> {
  const categoryIds = new Map((body.categories ?? []).map((c) => [c.externalId, randomUUID()]));
  const ingredientIds = new Map((body.ingredients ?? []).map((i) => [i.externalId, randomUUID()]));
  const categories = (body.categories ?? []).map((c) => ({
    id: categoryIds.get(c.externalId),
    external_id: c.externalId,
    name: c.name,
    sort_order: c.sortOrder ?? 0,
    schedule: c.schedule ?? [],
    card_style: c.cardStyle ?? null,
    is_active: c.isActive ?? true,
    translations: c.translations ?? {},
  }));
  const ingredients = (body.ingredients ?? []).map((i) => ({
    id: ingredientIds.get(i.externalId),
    external_id: i.externalId,
    name: i.name,
    sort_order: i.sortOrder ?? 0,
    translations: i.translations ?? {},
  }));
  const products = (body.products ?? []).map((p) => ({
    id: randomUUID(),
    external_id: p.externalId,
    name: p.name,
    description: p.description ?? null,
    price_minor: p.priceMinor,
    sale_price_minor: p.salePriceMinor ?? null,
    is_sale_active: p.isSaleActive ?? false,
    amount: p.amount ?? null,
    unit: p.unit ?? null,
    badge_label: p.badgeLabel ?? null,
    badge_color: p.badgeColor ?? null,
    category_id: p.categoryExternalId ? (categoryIds.get(p.categoryExternalId) ?? null) : null,
    ingredient_ids: (p.ingredientExternalIds ?? []).map((e) => ingredientIds.get(e)).filter(Boolean),
    modifier_groups: (p.modifierGroups ?? []).map((g, gi) => ({
      id: randomUUID(),
      name: g.name,
      type: g.type,
      isRequired: g.isRequired ?? false,
      sortOrder: g.sortOrder ?? gi,
      translations: g.translations ?? {},
      options: g.options.map((o, oi) => ({
        id: randomUUID(),
        ingredientId: ingredientIds.get(o.ingredientExternalId),
        action: o.action ?? 'add',
        priceAdjustment: o.priceAdjustment ?? 0,
        sortOrder: o.sortOrder ?? oi,
      })),
    })),
    sort_order: p.sortOrder ?? 0,
    menu_visible: p.menuVisible ?? true,
    translations: p.translations ?? {},
  }));
  const started = performance.now();
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into categories (venue_id, id, external_id, name, sort_order, schedule, card_style, is_active, translations)
       select $1, r.id, r.external_id, r.name, r.sort_order, r.schedule, r.card_style, r.is_active, r.translations
       from jsonb_to_recordset($2::jsonb) as r(id uuid, external_id text, name text, sort_order int, schedule jsonb, card_style text, is_active boolean, translations jsonb)`,
      [venueId, JSON.stringify(categories)],
    );
    await tx.query(
      `insert into ingredients (venue_id, id, external_id, name, sort_order, translations)
       select $1, r.id, r.external_id, r.name, r.sort_order, r.translations
       from jsonb_to_recordset($2::jsonb) as r(id uuid, external_id text, name text, sort_order int, translations jsonb)`,
      [venueId, JSON.stringify(ingredients)],
    );
    await tx.query(
      `insert into products (venue_id, id, external_id, name, description, price_minor, sale_price_minor, is_sale_active, amount, unit,
         badge_label, badge_color, category_id, ingredient_ids, modifier_groups, sort_order, menu_visible, translations)
       select $1, r.id, r.external_id, r.name, r.description, r.price_minor, r.sale_price_minor, r.is_sale_active, r.amount, r.unit,
         r.badge_label, r.badge_color, r.category_id, r.ingredient_ids, r.modifier_groups, r.sort_order, r.menu_visible, r.translations
       from jsonb_to_recordset($2::jsonb) as r(id uuid, external_id text, name text, description text, price_minor int, sale_price_minor int,
         is_sale_active boolean, amount int, unit text, badge_label text, badge_color text, category_id uuid, ingredient_ids uuid[],
         modifier_groups jsonb, sort_order int, menu_visible boolean, translations jsonb)`,
      [venueId, JSON.stringify(products)],
    );
  });
  return performance.now() - started;
}
