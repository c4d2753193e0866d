import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validatorCompiles } from '../../src/http/bounded-errors.js';
import { createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// The validators and the explanations of their errors are compiled when the app is ready
// (src/http/validation.ts): the first large invalid body after a start once held the event loop
// 0.4-0.6 s while its explanation compiled. Counted through validatorCompiles, not timed: the
// times are printed for the record, a loaded machine makes them too noisy to assert.

/** A sync body wrong at every level: categories, products, their modifier groups and options, nutrition. */
function invalidSync(products: number): string {
  return JSON.stringify({
    categories: [{ externalId: 1, schedule: [{ day: 'x' }] }],
    products: Array.from({ length: products }, (_, i) => ({
      externalId: `p${i}`,
      name: 'x',
      priceMinor: -1,
      salePriceMinor: 'x',
      nutrition: { fat: 0.33 },
      translations: { uk: { name: '' } },
      modifierGroups: Array.from({ length: 5 }, () => ({
        name: '',
        type: 'x',
        options: Array.from({ length: 5 }, (_, o) => ({ ingredientExternalId: o % 2 ? 1 : '' })),
      })),
    })),
  });
}

describe('validators compiled before the app serves', () => {
  let t: TestApp;
  let v: VenueFixture;
  let readyMs = 0;
  before(async () => {
    const started = performance.now();
    t = await startApp({}, undefined, { warmValidators: true });
    readyMs = performance.now() - started;
    v = await createVenue(t.app);
  });
  after(() => t?.close());

  const send = (body: string, url = '/v1/sync', method: 'POST' | 'PATCH' = 'POST') =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' }, payload: body });

  it('compiles nothing for the first large invalid sync body, nor for the ones after it', async () => {
    const body = invalidSync(300);
    const times: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const compiled = validatorCompiles();
      const started = performance.now();
      const res = await send(body);
      times.push(Math.round(performance.now() - started));
      assert.equal(res.statusCode, 400, res.body.slice(0, 300));
      const errors: string[] = res.json().errors;
      for (const field of [
        /^categories\[0\]\.name is required$/,
        /^products\[0\]\.priceMinor must be >= 0$/,
        /^products\[0\]\.nutrition\.fat must have at most one decimal$/,
        /^products\[0\]\.modifierGroups\[0\]\.options\[0\]\.ingredientExternalId /,
      ]) {
        assert.ok(
          errors.some((e) => field.test(e)),
          `${field}: ${JSON.stringify(errors.slice(0, 8))}`,
        );
      }
      assert.equal(validatorCompiles(), compiled, `request ${i + 1} compiled a schema`);
    }
    console.log(
      `app ready in ${Math.round(readyMs)} ms; the invalid sync (${Math.round(body.length / 1024)} KB) answered in ${times.join(', ')} ms`,
    );
  });

  it('compiles nothing for the first invalid body of another route', async () => {
    const compiled = validatorCompiles();
    const patch = await send(
      JSON.stringify({ name: 1, openingHours: { weekly: [{ day: 'x' }] }, orderConfig: { pausedUntil: '2026-12-08T12:00:00+24:00' } }),
      '/v1/settings',
      'PATCH',
    );
    assert.equal(patch.statusCode, 400);
    assert.equal(validatorCompiles(), compiled);
  });
});
