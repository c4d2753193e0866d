import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { menuFixture, mutate } from '../../bench/workload.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { bin, cartaEnv, compiled, dataDirFromTemplate, notBuilt, spawnServer, type ServerProcess } from '../helpers/cli.js';
import { onPostgres, throwawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { sleep } from '../helpers/net.js';

// Restore is all or nothing (a kill -9 mid-restore leaves the draft as it was), tested
// like the sync in test/server/crash-restart.test.ts: `carta serve` on the engine of this run
// (PGlite: a DATA_DIR; PostgreSQL: a throwaway database) restores a 500-product publication into a
// draft that differs from it, is killed with SIGKILL at moments spread over the restore, and is
// started again on the same data. The draft is then exactly what it was, apart from generatedAt and live availability,
// with no new publication, or wholly the restored snapshot (with its publication when publish was
// asked); an acknowledged restore is never lost.

const skip = fs.existsSync(compiled) ? false : notBuilt;

// 500 products in all, the most one sync takes.
const PRODUCTS = 490;
const EXTRAS = 10;
const EMPTY = { added: [], removed: [], changed: [] };

async function api(url: string, method: string, route: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function ok(res: Promise<{ status: number; body: any }>, status = 200): Promise<any> {
  const { status: got, body } = await res;
  assert.equal(got, status, JSON.stringify(body));
  return body;
}

describe('restore across kill -9 and restart of a server process', { skip }, () => {
  const dataDir = dataDirFromTemplate();
  const servers: ServerProcess[] = [];
  let database: ThrowawayDatabase | undefined;
  let env: NodeJS.ProcessEnv;

  const start = async () => {
    const server = await spawnServer([bin, 'serve'], env, { readyPath: '/ready', timeoutMs: 60_000 });
    servers.push(server);
    return server;
  };
  const kill9 = async (server: ServerProcess) => {
    server.child.kill('SIGKILL');
    await server.exited;
  };

  before(async () => {
    database = onPostgres ? await throwawayDatabase('carta_restore_crash') : undefined;
    env = cartaEnv(dataDir, { ADMIN_TOKEN, ...(database ? { DATABASE_URL: database.url.href } : {}) });
  });

  after(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await kill9(server);
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the draft as it was or wholly restored after every kill -9 during a 500-product restore', { timeout: 300_000 }, async (t) => {
    const iterations = 6;
    let server = await start();
    const venue = await ok(
      api(server.url, 'POST', '/admin/v1/venues', ADMIN_TOKEN, { name: 'Restore Crash', currency: 'EUR', plan: 'pro' }),
      201,
    );
    const key: string = (await ok(api(server.url, 'POST', `/admin/v1/venues/${venue.id}/api-keys`, ADMIN_TOKEN, { mode: 'live' }), 201))
      .key;
    await ok(api(server.url, 'PATCH', '/v1/settings', key, { enabledLanguages: ['en', 'uk', 'es'] }));

    // Two menus: the fixture, and a fifth of its products changed plus products only it has (which
    // a restore of the first hides). Each is published; the draft holds the second.
    const a = menuFixture({ seed: 5, products: PRODUCTS, categories: 50, ingredients: 75, locales: ['uk', 'es'] });
    const b = mutate(a, 0.2, 6).body;
    const extras = Array.from({ length: EXTRAS }, (_, i) => `extra-${i}`);
    b.products = [...(b.products ?? []), ...extras.map((externalId, i) => ({ externalId, name: `Extra ${i}`, priceMinor: 500 + i }))];
    await ok(api(server.url, 'POST', '/v1/sync', key, a), 201);
    const publicationA: string = (await ok(api(server.url, 'POST', '/v1/publish', key), 201)).publicationId;
    await ok(api(server.url, 'POST', '/v1/sync', key, b), 201);
    const publicationB: string = (await ok(api(server.url, 'POST', '/v1/publish', key), 201)).publicationId;

    // The draft without what moves with the clock: generatedAt, and live availability (the
    // fixture's category schedules open and close while the test runs).
    const draftOf = async (url: string) => {
      const { generatedAt: _g, ordering: _o, ...rest } = await ok(api(url, 'GET', '/v1/menu', key));
      const still = (items: any[]) => items.map(({ availability: _a, ...item }: any) => item);
      return { ...rest, categories: still(rest.categories), products: still(rest.products) };
    };
    const publicationsOf = async (url: string) =>
      (await ok(api(url, 'GET', '/v1/publications?limit=100', key))).items as { id: string; restoredFrom: string | null }[];
    /** What a restore of `target` leaves, checked in every section; the draft holds what it lacks, hidden. */
    const assertRestored = async (url: string, target: string, to: string) => {
      const diff = await ok(api(url, 'GET', `/v1/menu/diff?from=${target}&to=${to}`, key));
      assert.deepEqual([diff.categories, diff.ingredients], [EMPTY, EMPTY]);
      assert.deepEqual(diff.products, { added: target === publicationA ? extras : [], removed: [], changed: [] });
    };

    // A timed restore on the restarted (cold) server: the kills below are spread over about that long.
    await kill9(server);
    server = await start();
    const timedAt = Date.now();
    await ok(api(server.url, 'POST', `/v1/publications/${publicationA}/restore`, key, {}));
    const restoreMs = Date.now() - timedAt;
    await assertRestored(server.url, publicationA, 'draft');
    let target = publicationB;

    // As the sync test: odd kills anywhere from before the request arrives to after the reply, even
    // ones around the boundary between the last kill that lost its restore and the last that kept it.
    let lost = 0;
    let kept = Math.ceil(restoreMs * 1.25);
    const margin = Math.ceil(restoreMs * 0.1);
    const trace: string[] = [];
    for (let n = 1; n <= iterations; n += 1) {
      const publish = n % 4 < 2;
      const before = await draftOf(server.url);
      const publications = await publicationsOf(server.url);
      const [from, to] =
        n % 2 === 1 ? [0, Math.ceil(restoreMs * 1.25)] : [Math.max(0, Math.min(lost, kept) - margin), Math.max(lost, kept) + margin];
      const killAfter = from + Math.floor(Math.random() * (to - from + 1));
      let replied = false;
      const restore = api(server.url, 'POST', `/v1/publications/${target}/restore`, key, { publish }).then(
        (res) => {
          assert.equal(res.status, 200, JSON.stringify(res.body));
          replied = true;
        },
        () => {},
      );
      await sleep(killAfter);
      await kill9(server);
      await restore;
      server = await start();

      const now = await publicationsOf(server.url);
      const draft = await draftOf(server.url);
      let applied: boolean;
      if (publish) {
        // The new publication and the draft's content commit together or not at all.
        applied = now.length === publications.length + 1;
        if (applied) {
          assert.deepEqual(now.slice(1), publications);
          assert.equal(now[0].restoredFrom, target);
          await assertRestored(server.url, target, now[0].id);
        } else {
          assert.deepEqual(now, publications, `iteration ${n}: a publication appeared`);
        }
      } else {
        assert.deepEqual(now, publications, `iteration ${n}: a restore without publish published`);
        applied = !isDeepStrictEqual(draft, before);
      }
      if (applied) await assertRestored(server.url, target, 'draft');
      else assert.deepEqual(draft, before, `iteration ${n}: the draft changed, yet the restore was not kept`);
      if (replied) assert.ok(applied, `iteration ${n}: an acknowledged restore was lost`);

      if (applied) kept = killAfter;
      else lost = killAfter;
      trace.push(`${killAfter}${publish ? 'p' : ''}${!applied ? '-' : replied ? 'R' : 'C'}`);
      if (applied) target = target === publicationA ? publicationB : publicationA;
    }

    // The data is still whole: a last restore with publish applies.
    const last = await ok(api(server.url, 'POST', `/v1/publications/${target}/restore`, key, { publish: true }));
    await assertRestored(server.url, target, 'draft');
    await assertRestored(server.url, target, last.publicationId);
    await kill9(server);
    // Kill times in ms: p with publish; - lost the restore, C kept it unacknowledged, R kept it after the reply.
    t.diagnostic(`cold restore ${restoreMs} ms; kills: ${trace.join(' ')}`);
  });
});
