import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JSON_SHAPE_LIMITS, jsonShapeProblem } from '../../src/http/json-shape.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';

// Shapes that cost JSON.parse seconds are refused before it runs (docs/security.md).
describe('jsonShapeProblem', () => {
  const { maxDepth, maxArrayItems, maxContainers, maxPropertyNames } = JSON_SHAPE_LIMITS;
  const items = (n: number, unit: string) => `[${Array(n).fill(unit).join(',')}]`;

  it('passes ordinary bodies, and structure characters inside strings', () => {
    assert.equal(jsonShapeProblem(JSON.stringify({ products: [{ name: '{[,"]}\\', tags: ['a', 'b'] }] })), null);
    assert.equal(jsonShapeProblem(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`), null);
    assert.equal(jsonShapeProblem(items(maxArrayItems, '0')), null);
    assert.equal(jsonShapeProblem('['.repeat(maxDepth) + ']'.repeat(maxDepth)), null);
  });

  it('refuses each limit, naming it', () => {
    assert.equal(jsonShapeProblem('['.repeat(maxDepth + 1)), `body is nested more than ${maxDepth} levels deep`);
    assert.equal(jsonShapeProblem(items(maxArrayItems + 1, '0')), `body has an array of more than ${maxArrayItems} items`);
    assert.equal(jsonShapeProblem(items(1000, items(20, items(10, '{}')))), `body has more than ${maxContainers} objects and arrays`);
    let n = 0;
    const names = `{${Array.from({ length: maxPropertyNames + 1 }, () => `"k${n++}":0`).join(',')}}`;
    assert.equal(jsonShapeProblem(names), `body has more than ${maxPropertyNames} different property names`);
  });

  it('counts a name repeated in many objects once', () => {
    assert.equal(jsonShapeProblem(items(5000, '{"a":1,"b":2}')), null);
  });

  it('leaves malformed text to the parser', () => {
    assert.equal(jsonShapeProblem(']]]'), null);
    assert.equal(jsonShapeProblem('{"a":"unterminated'), null);
  });

  it('scans 5 MB in well under a second', () => {
    const text = items(Math.floor((5 * 1024 * 1024) / 3), '{}');
    const started = performance.now();
    jsonShapeProblem(text);
    assert.ok(performance.now() - started < 200);
  });
});

describe('a body of a refused shape', () => {
  let t: TestApp;
  let v: VenueFixture;
  before(async () => {
    t = await startApp();
    v = await createVenue(t.app);
  });
  after(async () => t.close());

  it('is 400 Validation failed with the limit named, and nothing is written', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/sync',
      headers: { authorization: `Bearer ${v.key}`, 'content-type': 'application/json' },
      payload: `{"products":${'['.repeat(100)}${']'.repeat(100)}}`,
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().errors, [`body is nested more than ${JSON_SHAPE_LIMITS.maxDepth} levels deep`]);
    const menu = await call(t.app, 'GET', '/v1/menu?version=draft', { key: v.key });
    assert.deepEqual(menu.body.products, []);
  });
});
