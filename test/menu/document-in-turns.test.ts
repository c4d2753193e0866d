import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MenuDocumentValue } from '../../src/modules/menu/menu.schemas.js';
import { stringifyInTurns } from '../../src/modules/menu/menu.views.js';
import { jsonArrayInTurns, utf8InTurns } from '../../src/next-turn.js';

// A large menu's document is serialised a slice of products per turn (docs/security.md): the text
// must be JSON.stringify's, byte for byte, whatever the number of products.
describe('stringifyInTurns', () => {
  const doc = (n: number) =>
    ({
      version: 'draft',
      publicationId: null,
      publishedAt: null,
      generatedAt: '2026-01-01T00:00:00.000Z',
      currency: 'EUR',
      categories: [{ id: 'c', name: 'Кава "x"' }],
      ingredients: [],
      products: Array.from({ length: n }, (_, i) => ({ id: `p${i}`, name: `Product ${i} 😀`, modifierGroups: [{ options: [{ n: i }] }] })),
    }) as unknown as MenuDocumentValue;

  it("gives JSON.stringify's text for 0, 1 and many products, across slice boundaries", async () => {
    for (const n of [0, 1, 49, 50, 51, 120]) assert.equal(await stringifyInTurns(doc(n)), JSON.stringify(doc(n)), `${n} products`);
  });

  it('refuses a document whose products are not its last property', async () => {
    const { products, ...rest } = doc(2);
    await assert.rejects(stringifyInTurns({ products, ...rest } as MenuDocumentValue), /last property/);
  });
});

describe('utf8InTurns', () => {
  it('encodes as Buffer.from does, a surrogate pair at a slice boundary included', async () => {
    const slice = 1 << 19;
    // An emoji's two halves across the first boundary, Cyrillic and ASCII around it.
    const text = 'ж'.repeat(slice - 1) + '😀' + 'a'.repeat(slice) + 'é😀'.repeat(1000);
    assert.ok((await utf8InTurns(text)).equals(Buffer.from(text, 'utf8')));
    assert.equal((await utf8InTurns('short ж')).toString('utf8'), 'short ж');
  });
});

// A sync's rows go to the upsert as one JSON array built 50 rows per turn (docs/security.md).
describe('jsonArrayInTurns', () => {
  it("gives JSON.stringify's text for 0, 1 and many rows, across slice boundaries, dates and odd items included", async () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `r${i}`,
        name: `Рядок ${i} 😀 "q"`,
        at: new Date(i * 1000),
        groups: [{ n: i, none: null }],
        skip: undefined,
      }));
    for (const n of [0, 1, 49, 50, 51, 120]) assert.equal(await jsonArrayInTurns(rows(n)), JSON.stringify(rows(n)), `${n} rows`);
    const odd = [undefined, () => 1, 'text', 7, null];
    assert.equal(await jsonArrayInTurns(odd), JSON.stringify(odd));
  });
});
