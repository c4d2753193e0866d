import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import * as menu from './menu.repository.js';
import type { CleanupInput, CleanupResult } from './menu.schemas.js';
import { lockMenu } from '../../db/venue-locks.js';

type Kind = 'product' | 'category' | 'ingredient';
const TABLES = { product: 'products', category: 'categories', ingredient: 'ingredients' } as const;

/** Hide products, delete categories and ingredients, list unknown refs. */
export class CleanupService {
  constructor(private readonly db: Database) {}

  async cleanup(actor: Actor, input: CleanupInput): Promise<CleanupResult> {
    if (input.items.length === 0 && input.force !== true) {
      // The message itself says force is needed (not only an errors[] entry).
      throw errors.invalidParameter('items is empty: send force: true to clean up every product, category and ingredient of the venue');
    }
    const venueId = actor.venue.venueId;
    const everything = input.items.length === 0;
    return this.db.transaction(
      async (tx) => {
        await lockMenu(tx, venueId);
        const ids: Record<Kind, string[] | 'all'> = { product: 'all', category: 'all', ingredient: 'all' };
        const notFound: string[] = [];
        if (!everything) {
          for (const kind of ['product', 'category', 'ingredient'] as const) {
            const refs = [...new Set(input.items.filter((i) => i.type === kind).map((i) => i.ref))];
            const rows = await menu.findByRefs<{ id: string; external_id: string | null }>(
              tx,
              venueId,
              TABLES[kind],
              refs,
              refs.filter(isUuid),
            );
            const known = new Set(rows.flatMap((r) => [r.id, r.external_id]));
            notFound.push(...refs.filter((r) => !known.has(r)).map((r) => `${kind}:${r}`));
            ids[kind] = rows.map((r) => r.id);
          }
        }
        const counts = {
          products: { hidden: ids.product === 'all' || ids.product.length ? await menu.hideProducts(tx, venueId, ids.product) : 0 },
          categories: {
            deleted: ids.category === 'all' || ids.category.length ? await menu.deleteCategories(tx, venueId, ids.category) : 0,
          },
          ingredients: {
            deleted: ids.ingredient === 'all' || ids.ingredient.length ? await menu.deleteIngredients(tx, venueId, ids.ingredient) : 0,
          },
        };
        if (counts.products.hidden + counts.categories.deleted + counts.ingredients.deleted > 0) {
          await menu.bumpDraftVersion(tx, venueId);
        }
        await audit(tx, actor, [
          {
            action: 'menu.cleanup',
            entityType: 'menu',
            changes: {
              ...counts,
              force: everything,
              refs: input.items.map((i) => `${i.type}:${i.ref}`),
              notFound: notFound.length,
            },
          },
        ]);
        return { ...counts, notFound, cleanedAt: new Date().toISOString() };
      },
      { venueId },
    );
  }
}
