import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRetryAfter } from '../src/retry-after.js';
import { backoffDelay, retryPolicy } from '../src/retry.js';
import { chunkBody, indexMenu, mapErrorPaths, planChunks, SERVER_CAPS, splitChunk, type SyncChunk } from '../src/sync-plan.js';
import type { SyncMenu } from '../src/types.js';
import { catalogue } from './catalogue.js';

const LIMITS = { ...SERVER_CAPS, products: 200, bytes: 4 * 1024 * 1024 };

const sizes = (chunks: SyncChunk[]) => chunks.map((c) => [c.categories.length, c.ingredients.length, c.products.length]);

describe('planning the requests of a catalogue', () => {
  it('sends categories and ingredients first, side by side, and the products after them, 200 a request', () => {
    const menu = indexMenu(catalogue(1050, { categories: 250, ingredients: 300 }));
    const chunks = planChunks(menu, LIMITS, false);
    assert.deepEqual(sizes(chunks), [
      [200, 200, 0],
      [50, 100, 200],
      [0, 0, 200],
      [0, 0, 200],
      [0, 0, 200],
      [0, 0, 200],
      [0, 0, 50],
    ]);
    const order = chunks.flatMap((c) => c.products.map((e) => e.index));
    assert.deepEqual(
      order,
      Array.from({ length: 1050 }, (_, i) => i),
      'every product once, in order',
    );
  });

  it('keeps each request under the byte budget', () => {
    const menu = indexMenu(catalogue(300));
    const chunks = planChunks(menu, { ...LIMITS, bytes: 60_000 }, false);
    for (const chunk of chunks) {
      const bytes = Buffer.byteLength(JSON.stringify(chunkBody(chunk).body));
      assert.ok(bytes <= 60_000, `${bytes} bytes`);
    }
    assert.equal(
      chunks.reduce((n, c) => n + c.products.length, 0),
      300,
    );
    assert.ok(chunks.length > 3);
  });

  it('in a dry run, sends each product chunk with the categories and ingredients it refers to, as context', () => {
    const menu = indexMenu(catalogue(450));
    const chunks = planChunks(menu, LIMITS, true);
    // Products never share a request with categories or ingredients of their own; a product chunk
    // also stops where its context would pass 200 ingredients (each product refers to 8).
    assert.deepEqual(sizes(chunks), [
      [40, 200, 0],
      [0, 50, 0],
      [0, 0, 193],
      [0, 0, 193],
      [0, 0, 64],
    ]);
    for (const chunk of chunks.slice(2)) {
      const { body } = chunkBody(chunk);
      const categories = new Set(body.categories?.map((c) => c.externalId));
      const ingredients = new Set(body.ingredients?.map((i) => i.externalId));
      for (const p of body.products ?? []) {
        assert.ok(categories.has(p.categoryExternalId as string));
        for (const ref of p.ingredientExternalIds ?? []) assert.ok(ingredients.has(ref));
        for (const g of p.modifierGroups ?? []) for (const o of g.options) assert.ok(ingredients.has(o.ingredientExternalId));
      }
      assert.ok((body.ingredients?.length ?? 0) <= 200);
    }
  });

  it('splits a chunk in half, in order, so the references still come first', () => {
    const menu = indexMenu(catalogue(200, { categories: 3, ingredients: 5 }));
    const [chunk] = planChunks(menu, LIMITS, false);
    assert.deepEqual(sizes([chunk]), [[3, 5, 200]]);
    const [a, b] = splitChunk(chunk, menu, false);
    assert.deepEqual(sizes([a, b]), [
      [3, 5, 96],
      [0, 0, 104],
    ]);
    const [c, d] = splitChunk(a, menu, false);
    assert.deepEqual(sizes([c, d]), [
      [3, 5, 44],
      [0, 0, 52],
    ]);

    const dry = planChunks(menu, LIMITS, true);
    const [e, f] = splitChunk(dry[1], menu, true);
    assert.deepEqual(sizes([e, f]), [
      [0, 0, 100],
      [0, 0, 100],
    ]);
    assert.deepEqual([f.context.categories.length, f.context.ingredients.length], [3, 5], 'each half has its own context');
  });

  it('sends a repeated externalId once (its last occurrence) and warns as the server does', () => {
    const menu: SyncMenu = {
      products: [
        { externalId: 'a', name: 'A1', priceMinor: 1 },
        { externalId: 'b', name: 'B', priceMinor: 1 },
        { externalId: 'a', name: 'A2', priceMinor: 2 },
      ],
    };
    const indexed = indexMenu(menu);
    assert.deepEqual(
      indexed.products.map((e) => [e.item.name, e.index]),
      [
        ['A2', 2],
        ['B', 1],
      ],
    );
    assert.deepEqual(indexed.warnings, ['Product a: duplicate externalId in the request; the last occurrence wins']);
  });

  it('plans one empty request for an empty catalogue (the server answers it with a warning)', () => {
    assert.deepEqual(sizes(planChunks(indexMenu({}), LIMITS, false)), [[0, 0, 0]]);
    assert.deepEqual(chunkBody(planChunks(indexMenu({}), LIMITS, false)[0]).body, {});
  });

  it('maps validation messages back to positions in the caller\u2019s arrays', () => {
    const indices = { categories: [7], ingredients: [], products: [200, 201, 202] };
    assert.deepEqual(
      mapErrorPaths(
        ['products[2].priceMinor must be >= 0', 'categories[0].name is required', 'products must have at most 500 items'],
        indices,
      ),
      ['products[202].priceMinor must be >= 0', 'categories[7].name is required', 'products must have at most 500 items'],
    );
  });
});

describe('retry timing', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    assert.equal(parseRetryAfter('3', now), 3000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:59:00 GMT', now), 0, 'a date in the past: no wait');
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(null, now), null);
  });

  it('backs off exponentially with full jitter, capped', () => {
    const top = retryPolicy({ baseDelayMs: 1000, maxDelayMs: 30_000 }, () => 0.999_999);
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => Math.round(backoffDelay(top, n) / 1000)),
      [1, 2, 4, 8, 16, 30, 30],
    );
    const bottom = retryPolicy({}, () => 0);
    assert.equal(backoffDelay(bottom, 3), 0);
  });
});
