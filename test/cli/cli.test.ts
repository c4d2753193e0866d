import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPglite } from '../../src/db/pglite.js';
import { call } from '../helpers/app.js';
import { carta, cliSkipReason, dataDirFromTemplate, root, type Run } from '../helpers/cli.js';

const skip = cliSkipReason();

function json(run: Run): any {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe('carta CLI', { skip }, () => {
  let dataDir: string;
  before(() => {
    dataDir = dataDirFromTemplate();
  });
  after(() => {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints usage and exits 0 for --help on every command', async () => {
    const commands = [
      [],
      ['serve'],
      ['migrate'],
      ['venue'],
      ['venue', 'create'],
      ['venue', 'show'],
      ['venue', 'update'],
      ['key'],
      ['key', 'create'],
      ['key', 'list'],
      ['key', 'regenerate'],
      ['key', 'revoke'],
      ['availability'],
      ['availability', 'list'],
      ['availability', 'off'],
      ['availability', 'on'],
      ['hours'],
      ['pause'],
    ];
    const runs = await Promise.all(commands.map((c) => carta(dataDir, [...c, '--help'])));
    runs.forEach((run, i) => {
      const name = ['carta', ...commands[i]].join(' ');
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.ok(run.stdout.includes(`Usage: ${name}`), `${name}: ${run.stdout}`);
    });
  });

  it('prints its version', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const run = await carta(dataDir, ['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout.trim(), pkg.version);
  });

  it('reports an up-to-date database from migrate', async () => {
    assert.deepEqual(json(await carta(dataDir, ['migrate', '--json'])), { applied: [] });
  });

  it('creates, shows and updates a venue, and manages its keys end to end', async () => {
    const venue = json(await carta(dataDir, ['venue', 'create', '--name', 'Cli Cafe', '--currency', 'UAH', '--json']));
    assert.deepEqual(Object.keys(venue).sort(), [
      'createdAt',
      'currency',
      'defaultLanguage',
      'id',
      'name',
      'plan',
      'sandbox',
      'slug',
      'subscriptionStatus',
    ]);
    assert.equal(venue.name, 'Cli Cafe');
    assert.equal(venue.slug, 'cli-cafe');
    assert.equal(venue.currency, 'UAH');
    assert.equal(venue.plan, 'free');
    assert.equal(venue.subscriptionStatus, 'active');
    assert.equal(venue.sandbox.slug, 'cli-cafe-sandbox');

    const shown = await carta(dataDir, ['venue', 'show', venue.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`venue\\s+${venue.id}`));
    assert.match(shown.stdout, /slug\s+cli-cafe\n/);
    assert.match(shown.stdout, /currency\s+UAH/);

    const updated = json(await carta(dataDir, ['venue', 'update', venue.id, '--plan', 'pro', '--json']));
    assert.equal(updated.plan, 'pro');
    assert.equal(updated.id, venue.id);

    const created = json(await carta(dataDir, ['key', 'create', '--venue', venue.id, '--label', 'till', '--json']));
    assert.match(created.key, /^carta_live_[0-9A-Za-z]{32}$/);
    assert.equal(created.mode, 'live');
    assert.equal(created.readOnly, false);
    assert.equal(created.label, 'till');

    const testKey = json(await carta(dataDir, ['key', 'create', '--venue', venue.id, '--mode', 'test', '--read-only', '--json']));
    assert.match(testKey.key, /^carta_test_[0-9A-Za-z]{32}$/);
    assert.equal(testKey.readOnly, true);

    const listRun = await carta(dataDir, ['key', 'list', '--venue', venue.id, '--json']);
    const list = json(listRun);
    assert.equal(list.items.length, 2);
    assert.equal(list.items[0].id, created.id);
    assert.equal(list.items[0].hint, created.key.slice(-4));
    assert.equal(listRun.stdout.includes(created.key), false);
    assert.equal(listRun.stdout.includes(testKey.key), false);
    for (const item of list.items) assert.equal('key' in item, false);

    const regenerated = json(await carta(dataDir, ['key', 'regenerate', created.id, '--json']));
    assert.equal(regenerated.id, created.id);
    assert.match(regenerated.key, /^carta_live_[0-9A-Za-z]{32}$/);
    assert.notEqual(regenerated.key, created.key);

    assert.deepEqual(json(await carta(dataDir, ['key', 'revoke', testKey.id, '--json'])), { id: testKey.id, revoked: true });

    // What the CLI wrote is what the API serves: the regenerated key works, the old and the revoked ones do not.
    const db = await openPglite(path.join(dataDir, 'pglite'));
    const config = loadConfig({ RATE_LIMITS: 'off', LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const { app } = await buildApp({ config, db });
    try {
      const ok = await call(app, 'GET', '/v1/reference', { key: regenerated.key });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.planLimits.plan, 'pro');
      assert.equal((await call(app, 'GET', '/v1/reference', { key: created.key })).status, 401);
      assert.equal((await call(app, 'GET', '/v1/reference', { key: testKey.key })).status, 401);
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('refuses a currency outside the reference list with a message and a non-zero exit', async () => {
    const run = await carta(dataDir, ['venue', 'create', '--name', 'Bad Currency', '--currency', 'BTC', '--json']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /currency/);
    assert.equal(run.stdout, '');
  });

  it('refuses invalid input with the same validation messages as the API', async () => {
    const run = await carta(dataDir, ['venue', 'create', '--name', 'Bad Slug', '--currency', 'EUR', '--slug', 'NO']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /Validation failed/);
    assert.match(run.stderr, /slug must /);
  });

  it('refuses a missing required option', async () => {
    const run = await carta(dataDir, ['venue', 'create', '--currency', 'EUR']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /--name/);
  });

  it('refuses an id that is not a uuid, and exits 4 for an unknown venue', async () => {
    const bad = await carta(dataDir, ['venue', 'show', 'not-an-id']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /id must be a valid uuid/);

    const unknownVenue = await carta(dataDir, ['venue', 'show', '0193a0b0-0000-7000-8000-000000000000']);
    assert.equal(unknownVenue.code, 4);
    assert.match(unknownVenue.stderr, /Venue not found/);
  });
});
