import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { push } from '../../src/cli/integrator.js';
import { bin, carta, compiled, notBuilt, root, type Run } from '../helpers/cli.js';
import { createOrder, orderBody, patchStatus, setUpOrderMenu } from '../helpers/orders.js';

// `carta push`, `carta pull` and `carta orders tail`: the built CLI as a child process,
// talking over HTTP to a real server (this file's app on a loopback port, on either engine).

const skip = fs.existsSync(compiled) ? false : notBuilt;

/**
 * The modifier groups of product `i`: every fifth has an add_ingredients group, every tenth also
 * groups with modifier rules of each kind and default options.
 */
function modifierGroups(i: number) {
  if (i % 5 !== 0) return undefined;
  const ing = (k: number) => `ing-${(i + k) % 30}`;
  const extras = { name: 'Extras', type: 'add_ingredients', options: [{ ingredientExternalId: ing(0), priceAdjustment: 50 }] };
  if (i % 10 !== 0) return [extras];
  return [
    extras,
    {
      name: 'Sauces',
      type: 'add_ingredients',
      minSelections: 2,
      maxSelections: 4,
      maxQuantityPerOption: 2,
      options: [
        { ingredientExternalId: ing(2), isDefault: true },
        { ingredientExternalId: ing(3), priceAdjustment: 30 },
      ],
    },
    {
      name: 'Size',
      type: 'single_choice',
      isRequired: false,
      options: [{ ingredientExternalId: ing(4) }, { ingredientExternalId: ing(5), priceAdjustment: 200, isDefault: true }],
    },
    {
      name: 'Without',
      type: 'remove_ingredients',
      maxSelections: 1,
      options: [{ ingredientExternalId: ing(0) }, { ingredientExternalId: ing(1) }],
    },
  ];
}

/** A catalogue of `n` products over 6 categories and 30 ingredients, with translations. */
function catalogue(n: number, tag = 'v1') {
  return {
    categories: Array.from({ length: 6 }, (_, i) => ({
      externalId: `cat-${i}`,
      name: `Category ${i}`,
      sortOrder: i,
      translations: { uk: { name: `Категорія ${i}` } },
    })),
    ingredients: Array.from({ length: 30 }, (_, i) => ({ externalId: `ing-${i}`, name: `Ingredient ${i}` })),
    products: Array.from({ length: n }, (_, i) => ({
      externalId: `p-${i}`,
      name: `Product ${i} ${tag}`,
      description: i % 2 ? `About ${i}` : undefined,
      priceMinor: 100 + i,
      categoryExternalId: `cat-${i % 6}`,
      ingredientExternalIds: [`ing-${i % 30}`, `ing-${(i + 1) % 30}`],
      modifierGroups: modifierGroups(i),
      translations: { uk: { name: `Продукт ${i}` } },
    })),
  };
}

describe('carta push, pull and orders tail', { skip }, () => {
  let t: TestApp;
  let v: VenueFixture;
  let url: string;
  let workDir: string;
  const cli = (args: string[], key = v.key): Promise<Run> => carta(workDir, args, { CARTA_URL: url, CARTA_API_KEY: key });

  before(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    v = await createVenue(t.app, { plan: 'pro' });
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { enabledLanguages: ['en', 'uk'] } })).status, 200);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-push-'));
  });
  after(async () => {
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('pushes a catalogue larger than one request, with progress, then pull and push again skips everything, modifier rules included', async () => {
    const file = path.join(workDir, 'menu.json');
    fs.writeFileSync(file, JSON.stringify(catalogue(650)));
    const first = await cli(['push', file]);
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.match(
      first.stdout,
      /categories 6 created, 0 updated, 0 skipped; ingredients 30 created, 0 updated, 0 skipped; products 650 created, 0 updated, 0 skipped/,
    );
    assert.doesNotMatch(first.stdout, /^(warning|error): /m);
    assert.match(first.stderr, /^request 1\/\d+: /m, 'plain progress lines when stderr is not a terminal');
    const menu = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(menu.body.products.length, 650);

    const pulled = await cli(['pull']);
    assert.equal(pulled.code, 0, pulled.stderr);
    const exported = JSON.parse(pulled.stdout);
    assert.equal(exported.products.length, 650);
    assert.deepEqual(exported.products.find((p: any) => p.externalId === 'p-5').modifierGroups[0].options[0], {
      ingredientExternalId: 'ing-5',
      action: 'add',
      priceAdjustment: 50,
      sortOrder: 0,
      isDefault: false,
    });
    // Every group carries its rules, the defaults and single_choice's fixed values written out.
    const rulesOf = (g: any) => [
      g.name,
      g.type,
      g.isRequired,
      g.minSelections,
      g.maxSelections,
      g.maxQuantityPerOption,
      g.options.map((o: any) => o.isDefault),
    ];
    assert.deepEqual(exported.products.find((p: any) => p.externalId === 'p-10').modifierGroups.map(rulesOf), [
      ['Extras', 'add_ingredients', false, 0, null, null, [false]],
      ['Sauces', 'add_ingredients', false, 2, 4, 2, [true, false]],
      ['Size', 'single_choice', false, 0, 1, null, [false, true]],
      ['Without', 'remove_ingredients', false, 0, 1, null, [false, false]],
    ]);
    assert.deepEqual(exported.products.find((p: any) => p.externalId === 'p-5').modifierGroups.map(rulesOf), [
      ['Extras', 'add_ingredients', false, 0, null, null, [false]],
    ]);
    const roundTrip = path.join(workDir, 'pulled.json');
    fs.writeFileSync(roundTrip, pulled.stdout);
    const again = await cli(['push', roundTrip]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.match(
      again.stdout,
      /categories 0 created, 0 updated, 6 skipped; ingredients 0 created, 0 updated, 30 skipped; products 0 created, 0 updated, 650 skipped/,
    );
    // The rules sent back equal the stored ones, so nothing is replaced and nothing warns.
    assert.doesNotMatch(again.stdout, /^(warning|error): /m);
    const after = await call(t.app, 'GET', '/v1/menu', { key: v.key });
    assert.deepEqual(after.body.products, menu.body.products);
  });

  it('--dry-run writes nothing; --publish publishes; per-item errors exit 1 and publish nothing', async () => {
    const file = path.join(workDir, 'changed.json');
    fs.writeFileSync(file, JSON.stringify(catalogue(20, 'v2')));
    const before = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    const dry = await cli(['push', '--dry-run', file]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^dry run: .*products 0 created, 20 updated, 0 skipped/m);
    const unchanged = (await call(t.app, 'GET', '/v1/menu', { key: v.key })).body;
    assert.deepEqual(unchanged.products, before.products);

    const published = await cli(['push', '--publish', file]);
    assert.equal(published.code, 0, published.stderr);
    assert.match(published.stdout, /^published \S+ at /m);
    const live = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(live.body.products.find((p: any) => p.externalId === 'p-3').name, 'Product 3 v2');

    const broken = catalogue(3, 'v3');
    (broken.products[1] as any).translations = { fr: { name: 'Produit' } };
    fs.writeFileSync(file, JSON.stringify(broken));
    const failed = await cli(['push', '--publish', file]);
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /^error: Product p-1: LOCALE_NOT_ENABLED/m);
    assert.match(failed.stderr, /1 item failed; not published/);
    const still = await call(t.app, 'GET', '/v1/menu?version=published', { key: v.key });
    assert.equal(still.body.publicationId, live.body.publicationId);
  });

  it('draws a progress bar in place on a terminal', async () => {
    const file = path.join(workDir, 'tty.json');
    fs.writeFileSync(file, JSON.stringify(catalogue(450, 'tty')));
    let out = '';
    let err = '';
    const term = {
      out: { write: (s: string) => ((out += s), true) },
      err: { isTTY: true, write: (s: string) => ((err += s), true) },
    } as unknown as Parameters<typeof push>[2];
    const saved = { url: process.env.CARTA_URL, key: process.env.CARTA_API_KEY };
    process.env.CARTA_URL = url;
    process.env.CARTA_API_KEY = v.key;
    try {
      assert.equal(await push(file, {}, term), 0, out + err);
    } finally {
      for (const [name, value] of [
        ['CARTA_URL', saved.url],
        ['CARTA_API_KEY', saved.key],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const frames = err.split('\r').filter(Boolean);
    assert.ok(frames.length >= 3, err);
    const last = frames[frames.length - 1];
    assert.ok(last.startsWith('\u001b[2K'), 'each frame clears the line');
    assert.match(last.slice(4), /^\[#{24}\] request (\d+)\/\1: /);
    assert.ok(err.endsWith('\n'));
    assert.match(out, /products 0 created, 450 updated, 0 skipped/);
  });

  it('reports a bad file, a refused key and a missing key with exit code 1', async () => {
    const bad = path.join(workDir, 'bad.json');
    fs.writeFileSync(bad, '{"products": [');
    const notJson = await cli(['push', bad]);
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /is not valid JSON/);
    const refused = await cli(['pull'], 'carta_live_00000000000000000000000000000000');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /carta: Invalid API key/);
    const missing = await carta(workDir, ['pull'], { CARTA_URL: url });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /CARTA_API_KEY is not set/);
  });

  it('orders tail prints new and changed orders as they arrive and stops on SIGINT', async () => {
    const ids = await setUpOrderMenu(t.app, v, { menu: { products: [{ externalId: 'fries', name: 'Fries', priceMinor: 400 }] } });
    const child = spawn(process.execPath, [bin, 'orders', 'tail', '--json', '--since', '1970-01-01T00:00:00Z'], {
      env: { ...process.env, CARTA_URL: url, CARTA_API_KEY: v.key },
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines = () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const waitFor = async (n: number) => {
      const deadline = Date.now() + 15_000;
      while (lines().length < n) {
        assert.ok(Date.now() < deadline, `saw ${lines().length} of ${n} order events: ${out} ${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const body = orderBody(ids, { items: [{ productId: ids.productIds.fries, quantity: 1 }] });
    const a = await createOrder(t.app, v.slug, body);
    const b = await createOrder(t.app, v.slug, body);
    await waitFor(2);
    assert.equal((await patchStatus(t.app, v.key, a.id, 'confirmed')).status, 200);
    await waitFor(3);
    child.kill('SIGINT');
    assert.equal(await exited, 0, err);
    const seen = lines().map((o) => `${o.id}:${o.status}`);
    assert.deepEqual(seen, [`${a.id}:new`, `${b.id}:new`, `${a.id}:confirmed`]);
  });
});
