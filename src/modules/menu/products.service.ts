import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { assertIfMatch, etagOf } from '../../shared/etag.js';
import { stableStringify } from '../../stable-json.js';
import { audit, type Actor } from '../audit/index.js';
import { type MediaService, imageKeys, type MediaUrls } from '../media/index.js';
import { readSettings } from '../settings/index.js';
import * as menu from './menu.repository.js';
import type { ProductPatchInput, ProductViewValue } from './menu.schemas.js';
import { productView, type ImageView } from './menu.views.js';
import { checkTranslations, mergeTranslations } from './translations.js';
import { lockMenu } from '../../db/venue-locks.js';
import { jsonEqual } from '../../stable-json.js';
import { sentFoodColumns, unknownCodes, type FoodColumns } from './food-info.js';
import { type AvailabilityService, withProductAvailability } from '../availability/index.js';

export interface ProductRead {
  product: ProductViewValue;
  etag: string;
}

/** A ref is an externalId or an opaque id; an id match wins when both exist. */
export async function findProductByRef(db: Queryable, venueId: string, ref: string, forUpdate = false): Promise<menu.ProductRow | null> {
  return menu.findOneByRef<menu.ProductRow>(db, venueId, 'products', ref, { forUpdate });
}

async function readProduct(
  db: Queryable,
  venueId: string,
  row: menu.ProductRow,
  image: ImageView,
  availability: AvailabilityService,
): Promise<ProductRead> {
  const ingredientIds = [...new Set([...row.ingredient_ids, ...row.modifier_groups.flatMap((g) => g.options.map((o) => o.ingredientId))])];
  // One after the other: inside a transaction both share one connection.
  const category = row.category_id ? await menu.findCategoryById(db, venueId, row.category_id) : null;
  const ingredients = await menu.findIngredientsByIds(db, venueId, ingredientIds);
  const marks = await availability.marksIn(db, venueId);
  const state = availability.stateAt(
    marks,
    category && category.schedule.length > 0 ? [{ id: category.id, schedule: category.schedule }] : [],
    availability.clock(),
  );
  const product = withProductAvailability(
    productView(row, {
      categories: new Map(category ? [[category.id, category]] : []),
      ingredients: new Map(ingredients.map((i) => [i.id, i])),
      image,
    }),
    state,
  );
  // The ETag is the product's read shape: it moves with every change by any path (sync,
  // patch, cleanup, translations, images, a renamed ingredient).
  return { product, etag: etagOf(JSON.stringify(product)) };
}

const PATCH_FIELDS = {
  name: 'name',
  description: 'description',
  priceMinor: 'price_minor',
  salePriceMinor: 'sale_price_minor',
  isSaleActive: 'is_sale_active',
  amount: 'amount',
  unit: 'unit',
  badgeLabel: 'badge_label',
  badgeColor: 'badge_color',
  sortOrder: 'sort_order',
  menuVisible: 'menu_visible',
  spiceLevel: 'spice_level',
  calories: 'calories',
} as const satisfies Partial<Record<keyof ProductPatchInput, keyof menu.ProductRow>>;

/** Food information a PATCH sets as a whole, normalised: column -> field name. */
const FOOD_FIELDS: Record<keyof FoodColumns, string> = {
  allergens: 'allergens',
  may_contain: 'mayContain',
  dietary_labels: 'dietaryLabels',
  nutrition: 'nutrition',
};

export class ProductsService {
  constructor(
    private readonly db: Database,
    private readonly urls: MediaUrls,
    /** Lets go of a deleted product's image blobs. */
    private readonly media: Pick<MediaService, 'release' | 'afterRelease'>,
    private readonly availability: AvailabilityService,
  ) {}

  private read(db: Queryable, venueId: string, row: menu.ProductRow): Promise<ProductRead> {
    return readProduct(db, venueId, row, (image) => this.urls.view(venueId, image), this.availability);
  }

  async get(venueId: string, ref: string): Promise<ProductRead> {
    const row = await findProductByRef(this.db, venueId, ref);
    if (!row) throw errors.productNotFound();
    return this.read(this.db, venueId, row);
  }

  /** Omitted keeps, null clears, a value sets; If-Match guards against lost updates. */
  async patch(actor: Actor, ref: string, input: ProductPatchInput, ifMatch: string | undefined): Promise<ProductRead> {
    const venueId = actor.venue.venueId;
    const unknown = unknownCodes(input);
    if (unknown) throw errors.validation([unknown]);
    return this.db.transaction(
      async (tx) => {
        await lockMenu(tx, venueId);
        const row = await findProductByRef(tx, venueId, ref, true);
        if (!row) throw errors.productNotFound();
        const current = await this.read(tx, venueId, row);
        assertIfMatch(ifMatch, current.etag);

        const next: menu.ProductRow = { ...row };
        const fields: string[] = [];
        for (const [key, column] of Object.entries(PATCH_FIELDS) as [keyof typeof PATCH_FIELDS, keyof menu.ProductRow][]) {
          const value = input[key];
          if (value === undefined) continue;
          if (row[column] !== value) fields.push(key);
          (next as unknown as Record<string, unknown>)[column] = value;
        }
        if (input.categoryRef !== undefined) {
          let categoryId: string | null = null;
          if (input.categoryRef !== null) {
            const category = await menu.findOneByRef<menu.CategoryRow>(tx, venueId, 'categories', input.categoryRef);
            if (!category) throw errors.categoryNotFound();
            categoryId = category.id;
          }
          if (categoryId !== row.category_id) fields.push('categoryRef');
          next.category_id = categoryId;
        }
        const food = sentFoodColumns(input);
        for (const column of Object.keys(food) as (keyof FoodColumns)[]) {
          if (!jsonEqual(row[column], food[column])) fields.push(FOOD_FIELDS[column]);
        }
        Object.assign(next, food);
        if (input.translations !== undefined) {
          const settings = await readSettings(tx, venueId);
          const problem = checkTranslations(input.translations, new Set(settings.enabledLanguages));
          if (problem) throw errors.translation(problem.code, `Product ${row.external_id ?? row.id}: ${problem.message}`);
          next.translations = mergeTranslations(row.translations, input.translations);
          if (stableStringify(next.translations) !== stableStringify(row.translations)) fields.push('translations');
        }
        if (next.is_sale_active && next.sale_price_minor === null) {
          throw errors.validation(['isSaleActive cannot be true without a salePriceMinor (sent or stored)']);
        }
        if (fields.length === 0) return current;

        await menu.updateProduct(tx, venueId, next);
        await menu.bumpDraftVersion(tx, venueId);
        await audit(tx, actor, [
          { action: 'product.update', entityType: 'product', entityRef: row.external_id ?? row.id, changes: { fields } },
        ]);
        const updated = await findProductByRef(tx, venueId, row.id);
        return this.read(tx, venueId, updated!);
      },
      { venueId },
    );
  }

  async delete(actor: Actor, ref: string): Promise<{ id: string; externalId: string | null; deleted: true }> {
    const venueId = actor.venue.venueId;
    const { result, released } = await this.db.transaction(
      async (tx) => {
        await lockMenu(tx, venueId);
        const row = await findProductByRef(tx, venueId, ref, true);
        if (!row) throw errors.productNotFound();
        await menu.deleteProduct(tx, venueId, row.id);
        await menu.bumpDraftVersion(tx, venueId);
        // Its image goes with it, unless a published snapshot still shows it.
        const gone = await this.media.release(tx, venueId, imageKeys(row.image));
        await audit(tx, actor, [
          {
            action: 'product.delete',
            entityType: 'product',
            entityRef: row.external_id ?? row.id,
            changes: { id: row.id, externalId: row.external_id },
          },
        ]);
        return { result: { id: row.id, externalId: row.external_id, deleted: true as const }, released: gone };
      },
      { venueId },
    );
    await this.media.afterRelease(venueId, released);
    return result;
  }
}
