import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.js';

describe('the committed OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('matches the routes (regenerate with `npm run openapi`)', () => {
    const committed = JSON.parse(fs.readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(JSON.parse(JSON.stringify(t.app.swagger())), committed);
  });
});
