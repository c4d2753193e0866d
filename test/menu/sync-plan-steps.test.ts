import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SyncInput } from '../../src/modules/menu/menu.schemas.js';
import { planSync, planSyncSteps, type StoredState } from '../../src/modules/menu/sync.planner.js';

// The sync service plans in steps and lets other requests run between them (docs/security.md,
// "Bounded work"): merging the largest sync's 500 products at once held the event loop for
// 150-400 ms. The steps must come at least every 50 products and end with planSync's plan.
describe('planSyncSteps', () => {
  const stored: StoredState = {
    categories: new Map(),
    ingredients: new Map(),
    products: new Map(),
    categoryIds: new Map(),
    ingredientIds: new Map(),
    unchanged: { categories: new Set(), ingredients: new Set(), products: new Set() },
  };
  const input = (n: number): SyncInput =>
    ({
      ingredients: [{ externalId: 'i1', name: 'Ingredient' }],
      products: Array.from({ length: n }, (_, i) => ({
        externalId: `p${i}`,
        name: `Product ${i}`,
        priceMinor: 100 + i,
        ingredientExternalIds: ['i1'],
        modifierGroups: [{ name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: 'i1', priceAdjustment: 10 }] }],
      })),
    }) as SyncInput;
  // Ids in order, so two plans of one input compare equal.
  const ctx = () => {
    let next = 0;
    return {
      enabledLanguages: new Set(['en']),
      newId: () => `00000000-0000-7000-8000-${String(next++).padStart(12, '0')}`,
      digestOf: (item: object) => JSON.stringify(item),
    };
  };

  it('yields at least every 50 products and ends with the plan planSync makes', () => {
    for (const n of [0, 49, 50, 500]) {
      const steps = planSyncSteps(input(n), stored, ctx());
      let yields = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) yields += 1;
      assert.ok(yields >= Math.floor(n / 50), `${n} products: ${yields} steps`);
      assert.deepEqual(step.value, planSync(input(n), stored, ctx()), `${n} products`);
      assert.equal(step.value.writes.products.length, n);
    }
  });
});
