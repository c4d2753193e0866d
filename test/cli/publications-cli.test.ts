import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { publish } from '../helpers/orders.js';
import { push, type Terminal } from '../../src/cli/integrator.js';
import { diffMenus } from '../../src/cli/publications.js';
import { carta, compiled, notBuilt, type Run } from '../helpers/cli.js';

// `carta publications`, `carta diff`, `carta restore` and the field-level changes of `carta push
// --dry-run`: the built CLI as a child process over HTTP to this file's app
// on a loopback port; colour, which needs a terminal, through the command functions in-process.

const skip = fs.existsSync(compiled) ? false : notBuilt;
const MADRID = 'Europe/Madrid';
const ESC = '\u001b[';
/** Text without its SGR colour codes. */
const uncoloured = (text: string) =>
  text
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\d+m/, '')))
    .join('');

const MENU = {
  categories: [{ externalId: 'mains', name: 'Mains', sortOrder: 1 }],
  ingredients: [
    { externalId: 'cheese', name: 'Cheese' },
    { externalId: 'bacon', name: 'Bacon' },
  ],
  products: [
    { externalId: 'burger', name: 'Burger', priceMinor: 1000, categoryExternalId: 'mains', ingredientExternalIds: ['cheese'] },
    { externalId: 'cola', name: 'Cola', priceMinor: 300 },
  ],
};

function ok(run: Run): Run {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}${run.stdout}`);
  return run;
}

/** The wall clock `HH:MM` in Madrid at an ISO instant. */
function madridTime(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: MADRID, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

/** A terminal that collects what is written; `tty` says whether stdout is one. */
function capture(tty: boolean): { term: Terminal; out: () => string } {
  let out = '';
  const term = {
    out: { isTTY: tty, write: (s: string) => ((out += s), true) },
    err: { isTTY: false, write: () => true },
  } as unknown as Terminal;
  return { term, out: () => out };
}

describe('carta publications, diff, restore and push --dry-run changes', { skip }, () => {
  let t: TestApp;
  let url: string;
  let workDir: string;
  const cli = (v: VenueFixture, args: string[]): Promise<Run> => carta(workDir, args, { CARTA_URL: url, CARTA_API_KEY: v.key });

  /** A venue in Madrid with MENU synced and published: the publication's id. */
  async function seeded(): Promise<{ v: VenueFixture; first: string }> {
    const v = await createVenue(t.app);
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: MADRID } })).status, 200);
    await syncOk(t.app, v, MENU);
    return { v, first: await publish(t.app, v) };
  }

  /** The draft after: a new price for burger, fries added, bacon cleaned up. */
  async function change(v: VenueFixture): Promise<void> {
    await syncOk(t.app, v, {
      products: [
        { externalId: 'burger', name: 'Burger', priceMinor: 1200 },
        { externalId: 'fries', name: 'Fries', priceMinor: 400 },
      ],
    });
    const cleanup = await call(t.app, 'POST', '/v1/cleanup', { key: v.key, body: { items: [{ type: 'ingredient', ref: 'bacon' }] } });
    assert.equal(cleanup.status, 201);
  }

  /** Runs a command function in-process against this file's server with `v`'s key. */
  async function inProcess<T>(v: VenueFixture, fn: () => Promise<T>, env: Record<string, string | undefined> = {}): Promise<T> {
    const names = ['CARTA_URL', 'CARTA_API_KEY', ...Object.keys(env)];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    const set = (name: string, value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value));
    for (const [name, value] of Object.entries({ CARTA_URL: url, CARTA_API_KEY: v.key, ...env })) set(name, value);
    try {
      return await fn();
    } finally {
      for (const name of names) set(name, saved[name]);
    }
  }

  before(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-publications-'));
  });
  after(async () => {
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('publications says when the venue has published nothing yet', async () => {
    const v = await createVenue(t.app);
    assert.match(ok(await cli(v, ['publications'])).stdout, /^no publications yet/);
    assert.deepEqual(JSON.parse(ok(await cli(v, ['publications', '--json'])).stdout).items, []);
  });

  it('publications lists a page newest first with times in the venue timezone, counts and restored-from; --json the list envelope', async () => {
    const { v, first } = await seeded();
    await change(v);
    const second = await publish(t.app, v);
    const restored = (await call(t.app, 'POST', `/v1/publications/${first}/restore`, { key: v.key, body: { publish: true } })).body;
    const list = (await call(t.app, 'GET', '/v1/publications', { key: v.key })).body;
    assert.deepEqual(
      list.items.map((p: any) => p.id),
      [restored.publicationId, second, first],
    );

    const lines = ok(await cli(v, ['publications']))
      .stdout.trimEnd()
      .split('\n');
    assert.equal(lines[0], `publications, newest first (times in ${MADRID}): page 1 of 1, 3 kept`);
    assert.match(lines[1], /^ID +PUBLISHED +CATEGORIES +INGREDIENTS +PRODUCTS +RESTORED FROM$/);
    const cells = lines.slice(2).map((l) => l.split(/ {2,}/));
    // The restore's publication also holds fries, which the snapshot lacked: hidden, but counted.
    assert.deepEqual(
      cells.map((c) => [c[0], c[2], c[3], c[4], c[5]]),
      [
        [restored.publicationId, '1', '2', '3', first],
        [second, '1', '1', '3', '-'],
        [first, '1', '2', '2', '-'],
      ],
    );
    // The server's clock and the CLI's are both real: published moments ago, today in Madrid.
    assert.deepEqual(
      cells.map((c) => c[1]),
      list.items.map((p: any) => `today ${madridTime(p.publishedAt)}`),
    );

    const paged = ok(await cli(v, ['publications', '--page', '2', '--limit', '2']));
    assert.match(paged.stdout, /page 2 of 2, 3 kept\n/);
    assert.equal(paged.stdout.trimEnd().split('\n').length, 3, 'the heading, the columns and one row');
    assert.ok(paged.stdout.includes(first));
    assert.deepEqual(JSON.parse(ok(await cli(v, ['publications', '--json'])).stdout), list);
    const bad = await cli(v, ['publications', '--limit', '0']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--limit.*a whole number of 1 or more/);
  });

  it('diff prints what was added, removed and changed with field names, uncoloured when piped; --json is the API answer', async () => {
    const { v, first } = await seeded();
    assert.equal(ok(await cli(v, ['diff'])).stdout, 'no differences between published and draft\n');
    await change(v);
    const out = ok(await cli(v, ['diff'])).stdout;
    assert.equal(
      out,
      [
        'diff published -> draft',
        'categories   no changes',
        'ingredients  0 added, 1 removed, 0 changed',
        '  - bacon',
        'products     1 added, 0 removed, 1 changed',
        '  + fries',
        '  ~ burger: priceMinor',
        '',
      ].join('\n'),
    );
    assert.ok(!out.includes(ESC), 'no colour when stdout is not a terminal');

    const reverse = ok(await cli(v, ['diff', 'draft', first])).stdout;
    assert.match(reverse, /^diff draft -> \S+\n/);
    assert.match(reverse, /^ {2}\+ bacon$/m);
    assert.match(reverse, /^ {2}- fries$/m);
    const api = (await call(t.app, 'GET', `/v1/menu/diff?from=${first}&to=draft`, { key: v.key })).body;
    assert.deepEqual(JSON.parse(ok(await cli(v, ['diff', first, 'draft', '--json'])).stdout), api);

    const unknown = await cli(v, ['diff', 'published', '0190a0a0-0000-7000-8000-000000000000']);
    assert.equal(unknown.code, 4, 'not found exits 4');
    assert.match(unknown.stderr, /^carta: /);
  });

  it('diff colours its lines on a terminal, unless NO_COLOR is set', async () => {
    const { v } = await seeded();
    await change(v);
    const coloured = capture(true);
    assert.equal(await inProcess(v, () => diffMenus(undefined, undefined, {}, coloured.term), { NO_COLOR: undefined }), 0);
    assert.ok(coloured.out().includes(`${ESC}32m+ fries${ESC}0m`), coloured.out());
    assert.ok(coloured.out().includes(`${ESC}31m- bacon${ESC}0m`));
    assert.ok(coloured.out().includes(`${ESC}33m~ burger${ESC}0m: priceMinor`));

    const noColour = capture(true);
    await inProcess(v, () => diffMenus(undefined, undefined, {}, noColour.term), { NO_COLOR: '1' });
    assert.ok(!noColour.out().includes(ESC), noColour.out());
    assert.equal(noColour.out(), uncoloured(coloured.out()));
  });

  it('restore makes the draft the publication again; --publish publishes it with restoredFrom; an unknown id exits 4', async () => {
    const { v, first } = await seeded();
    await change(v);
    const restored = ok(await cli(v, ['restore', first]));
    assert.equal(
      restored.stdout,
      `restored ${first} into the draft: 1 categories, 2 ingredients, 2 products\n` +
        `not published: carta diff published draft shows what a publish would change; carta restore ${first} --publish publishes it\n`,
    );
    const diff = (await call(t.app, 'GET', `/v1/menu/diff?from=${first}&to=draft`, { key: v.key })).body;
    assert.deepEqual(
      [diff.ingredients.added, diff.ingredients.removed, diff.products.added, diff.products.changed],
      [[], [], ['fries'], []],
    );
    const draft = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    assert.equal(draft.products.find((p: any) => p.externalId === 'fries').menuVisible, false);

    const published = JSON.parse(ok(await cli(v, ['restore', first, '--publish', '--json'])).stdout);
    assert.deepEqual(Object.keys(published).sort(), ['counts', 'publicationId', 'restoredFrom']);
    assert.equal(published.restoredFrom, first);
    const live = (await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key })).body;
    assert.equal(live.publicationId, published.publicationId);
    const text = ok(await cli(v, ['restore', first, '--publish'])).stdout;
    assert.match(text, new RegExp(`^published \\S+ \\(restored from ${first}\\)$`, 'm'));

    const unknown = await cli(v, ['restore', '0190a0a0-0000-7000-8000-000000000000']);
    assert.equal(unknown.code, 4);
    assert.match(unknown.stderr, /^carta: /);
  });

  it('push --dry-run prints each item it would create or update with the fields, writing nothing', async () => {
    const { v } = await seeded();
    const file = path.join(workDir, `dry-${v.id}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({
        categories: [
          { externalId: 'mains', name: 'Mains', sortOrder: 5 },
          { externalId: 'sides', name: 'Sides' },
        ],
        products: [
          { externalId: 'burger', name: 'Cheeseburger', priceMinor: 1100, categoryExternalId: 'mains', ingredientExternalIds: ['cheese'] },
          { externalId: 'cola', name: 'Cola', priceMinor: 300 },
          { externalId: 'fries', name: 'Fries', priceMinor: 400, categoryExternalId: 'sides' },
        ],
      }),
    );
    const before = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    const coloured = capture(true);
    assert.equal(await inProcess(v, () => push(file, { dryRun: true }, coloured.term), { NO_COLOR: undefined }), 0);
    assert.ok(coloured.out().includes(`  ${ESC}33m~ mains${ESC}0m: sortOrder\n`), coloured.out());
    assert.ok(coloured.out().includes(`  ${ESC}32m+ sides${ESC}0m ${ESC}2m(new)${ESC}0m\n`));

    const dry = ok(await cli(v, ['push', '--dry-run', file]));
    assert.equal(dry.stdout.replace(/^dry run: .*\n/, ''), uncoloured(coloured.out().replace(/^dry run: .*\n/, '')));
    const lines = dry.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^dry run: categories 1 created, 1 updated, 0 skipped; .*products 1 created, 1 updated, 1 skipped/);
    assert.deepEqual(lines.slice(1), [
      'categories that would change:',
      '  ~ mains: sortOrder',
      '  + sides (new)',
      'products that would change:',
      '  ~ burger: name, priceMinor',
      '  + fries (new)',
    ]);
    assert.deepEqual((await call(t.app, 'GET', '/v1/menu', { key: v.key })).body.products, before.products);

    const real = ok(await cli(v, ['push', file]));
    assert.doesNotMatch(real.stdout, /would change/, 'a real push prints counts only');
    const again = ok(await cli(v, ['push', '--dry-run', file]));
    assert.equal(again.stdout.trimEnd().split('\n').length, 1, 'nothing would change after the real push');
  });
});
