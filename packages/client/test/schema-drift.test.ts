import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { renderSchema, SCHEMA_URL } from '../scripts/generate.js';

describe('the committed client types', () => {
  it('match docs/openapi.json (regenerate with `npm run generate -w @carta/client`)', async () => {
    assert.equal(fs.readFileSync(SCHEMA_URL, 'utf8'), await renderSchema());
  });
});
