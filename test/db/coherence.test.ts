import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { CATCH_UP_TIMEOUT_MS, CHANGE_FEED_APPLICATION, ChangeFeed } from '../../src/db/change-feed.js';
import type { Database } from '../../src/db/port.js';
import { openPostgres } from '../../src/db/postgres.js';
import type { App } from '../../src/http/types.js';
import { admin, call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { onPostgres } from '../helpers/db.js';
import { until } from '../helpers/net.js';
import { createOrder, orderBody, setUpOrderMenu, sleep } from '../helpers/orders.js';

// Two instances on one PostgreSQL schema, each with its own pool and change feed (as two
// `carta serve` processes have), driven through inject. Each keeps memos of what it read (key
// look-ups, menu versions, order pages); a write through one must be read fresh through the other
// on the very next request, with no pause between them (the two-process test paces its requests).

const skip = onPostgres ? false : 'PostgreSQL only: on PGlite this process is the only writer';

/**
 * A TCP proxy to PostgreSQL whose two directions pass through `toServer` and `toClient` (each
 * writes what it lets through): the tests below freeze it, as a network partition does, or hold
 * PostgreSQL's replies back. `url` is DATABASE_URL through the proxy.
 */
async function pgProxy(filters: {
  toServer: (data: Buffer, server: net.Socket) => void;
  toClient: (data: Buffer, client: net.Socket) => void;
}) {
  const target = new URL(process.env.DATABASE_URL as string);
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d: Buffer) => filters.toServer(d, server));
    server.on('data', (d: Buffer) => filters.toClient(d, client));
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(process.env.DATABASE_URL as string);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as net.AddressInfo).port);
  return {
    url: url.href,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

describe('memos across instances: the PostgreSQL change feed', { skip }, () => {
  let a: TestApp;
  let bDb: Database;
  let b: App;

  before(async () => {
    a = await startApp();
    bDb = await openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 4, schema: a.database.schema, listen: true });
    ({ app: b } = await buildApp({ config: a.config, db: bDb }));
    await b.ready();
  });
  after(async () => {
    await b?.close();
    await bDb?.close();
    await a?.close();
  });

  it('reads every product change made through one instance fresh through the other, 100 times in a row', async () => {
    const v = await createVenue(a.app);
    assert.equal(
      (await call(a.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] } }))
        .status,
      201,
    );
    let etag = (await call(b, 'GET', '/v1/menu', { key: v.key })).headers.etag as string;
    for (let i = 1; i <= 100; i += 1) {
      const [writer, reader] = i % 2 === 0 ? [a.app, b] : [b, a.app];
      const patch = await call(writer, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 100 + i } });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      const read = await call(reader, 'GET', '/v1/menu', { key: v.key, headers: { 'if-none-match': etag } });
      assert.equal(read.status, 200, `change ${i}: the reader answered 304 with the old ETag`);
      assert.equal(read.body.products[0].priceMinor, 100 + i, `change ${i}`);
      etag = read.headers.etag as string;
    }
  });

  it('refuses a key revoked through the other instance on the next request', async () => {
    const v = await createVenue(a.app);
    assert.equal((await call(b, 'GET', '/v1/reference', { key: v.key })).status, 200);
    assert.equal((await admin(a.app, 'DELETE', `/api-keys/${v.keyId}`)).status, 204);
    const res = await call(b, 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 401);
    assert.equal(res.body.message, 'Invalid API key');
  });

  it("shows an order placed through one instance in the other's idle poll at once", async () => {
    const v = await createVenue(a.app);
    const ids = await setUpOrderMenu(a.app, v);
    // updatedSince is inclusive: a poll returns the order at the cursor and anything newer.
    let last = await createOrder(a.app, v.slug, orderBody(ids));
    const poll = async () => {
      const res = await call(b, 'GET', `/v1/orders?updatedSince=${encodeURIComponent(last.updatedAt)}`, { key: v.key });
      return res.body.items.filter((o: any) => o.updatedAt !== last.updatedAt).map((o: any) => [o.id, o.status]);
    };
    for (let i = 0; i < 20; i += 1) {
      assert.deepEqual(await poll(), [], `${i}: idle, nothing after the cursor`);
      const order = await createOrder(a.app, v.slug, orderBody(ids));
      assert.deepEqual(await poll(), [[order.id, 'new']], `${i}: the new order`);
      last = order;
      const cancelled = await call(a.app, 'PATCH', `/v1/orders/${order.id}/status`, { key: v.key, body: { status: 'cancelled' } });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.deepEqual(await poll(), [[order.id, 'cancelled']], `${i}: the status change`);
      last = cancelled.body;
    }
  });

  it('reads through while its change feed is down, and trusts its memos again once it is back', async () => {
    const v = await createVenue(a.app);
    assert.equal(
      (await call(a.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] } }))
        .status,
      201,
    );
    assert.equal((await call(b, 'GET', '/v1/menu', { key: v.key })).status, 200);
    assert.equal(bDb.coherent(), true);
    const reported: boolean[] = [];
    bDb.onFeedChange?.((listening) => reported.push(listening));

    // Cut every change feed of this database (B's and A's): their connections drop.
    await a.database.db.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()`,
      [CHANGE_FEED_APPLICATION],
    );
    for (let i = 0; bDb.coherent() && i < 100; i += 1) await sleep(10);
    assert.equal(bDb.coherent(), false, 'B knows its feed is down');
    for (let i = 1; i <= 5; i += 1) {
      await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 200 + i } });
      assert.equal((await call(b, 'GET', '/v1/menu', { key: v.key })).body.products[0].priceMinor, 200 + i);
    }

    for (let i = 0; !bDb.coherent() && i < 500; i += 1) await sleep(10);
    assert.equal(bDb.coherent(), true, 'B listens again');
    assert.deepEqual(reported, [false, true], 'the outage is reported once, and the recovery');
    for (let i = 1; i <= 5; i += 1) {
      await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 300 + i } });
      assert.equal((await call(b, 'GET', '/v1/menu', { key: v.key })).body.products[0].priceMinor, 300 + i);
    }
  });
});

describe('memos across instances: eventual reads and the change feed turned off', { skip }, () => {
  let a: TestApp;
  const others: { app: App; db: Database }[] = [];

  /** Another instance on A's schema, with its own pool, config and (maybe) change feed. */
  async function instance(overrides: Parameters<typeof startApp>[0], listen: boolean) {
    const db = await openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 4, schema: a.database.schema, listen });
    const { app } = await buildApp({ config: { ...a.config, ...overrides }, db });
    await app.ready();
    others.push({ app, db });
    return { app, db };
  }

  before(async () => {
    a = await startApp();
  });
  after(async () => {
    for (const o of others) {
      await o.app.close();
      await o.db.close();
    }
    await a?.close();
  });

  it('READ_CONSISTENCY=eventual: trusts the feed without a catch-up, and sees a change within moments', async () => {
    const b = await instance({ readConsistency: 'eventual' }, true);
    const v = await createVenue(a.app);
    assert.equal(
      (await call(a.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] } }))
        .status,
      201,
    );
    assert.equal((await call(b.app, 'GET', '/v1/menu', { key: v.key })).status, 200);
    assert.equal(b.db.coherent(), true);
    for (let i = 1; i <= 5; i += 1) {
      await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 100 + i } });
      let price = 0;
      for (let tries = 0; tries < 200 && price !== 100 + i; tries += 1) {
        price = (await call(b.app, 'GET', '/v1/menu', { key: v.key })).body.products[0].priceMinor;
        if (price !== 100 + i) await sleep(5);
      }
      assert.equal(price, 100 + i, `change ${i} reached the other instance`);
    }
  });

  it('DATABASE_LISTEN_URL=off: no feed, so no memo is trusted and every read is fresh', async () => {
    const b = await instance({ databaseListenUrl: null }, false);
    assert.equal(b.db.coherent(), false);
    const v = await createVenue(a.app);
    assert.equal(
      (await call(a.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] } }))
        .status,
      201,
    );
    for (let i = 1; i <= 10; i += 1) {
      await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 100 + i } });
      assert.equal((await call(b.app, 'GET', '/v1/menu', { key: v.key })).body.products[0].priceMinor, 100 + i);
    }
  });
});

describe('the change feed behind a connection that stops answering', { skip }, () => {
  let a: TestApp;
  let proxy: Awaited<ReturnType<typeof pgProxy>> | undefined;
  let frozen = false;
  let b: { app: App; db: Database } | undefined;

  before(async () => {
    a = await startApp();
    // Stops passing bytes, as a network partition does (no reset).
    proxy = await pgProxy({
      toServer: (d, server) => {
        if (!frozen) server.write(d);
      },
      toClient: (d, client) => {
        if (!frozen) client.write(d);
      },
    });
    const db = await openPostgres({
      url: process.env.DATABASE_URL as string,
      poolSize: 4,
      schema: a.database.schema,
      listenUrl: proxy.url,
    });
    const { app } = await buildApp({ config: a.config, db });
    await app.ready();
    b = { app, db };
  });
  after(async () => {
    frozen = false;
    await b?.app.close();
    await b?.db.close();
    await proxy?.close();
    await a?.close();
  });

  it('gives up on a stuck catch-up, answers from the database, and listens again once the network is back', async () => {
    const { app, db } = b!;
    const v = await createVenue(a.app);
    assert.equal(
      (await call(a.app, 'POST', '/v1/sync', { key: v.key, body: { products: [{ externalId: 'p1', name: 'Tea', priceMinor: 100 }] } }))
        .status,
      201,
    );
    assert.equal((await call(app, 'GET', '/v1/menu', { key: v.key })).status, 200);
    assert.equal(db.coherent(), true);

    frozen = true;
    await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 150 } });
    const started = Date.now();
    const read = await call(app, 'GET', '/v1/menu', { key: v.key });
    assert.equal(read.status, 200);
    assert.equal(read.body.products[0].priceMinor, 150, 'fresh, read from the database');
    assert.ok(Date.now() - started < CATCH_UP_TIMEOUT_MS + 1000, `answered in ${Date.now() - started} ms`);
    assert.equal(db.coherent(), false);

    frozen = false;
    for (let i = 0; !db.coherent() && i < 500; i += 1) await sleep(10);
    assert.equal(db.coherent(), true, 'listening again');
    await call(a.app, 'PATCH', '/v1/products/p1', { key: v.key, body: { priceMinor: 175 } });
    assert.equal((await call(app, 'GET', '/v1/menu', { key: v.key })).body.products[0].priceMinor, 175);
  });
});

describe('catch-up round trips one after another', { skip }, () => {
  // The proxy counts the feed's queries (its round trips are empty queries) and can hold back PostgreSQL's replies.
  /** Protocol messages: a type byte, then a length that counts itself. */
  const messages = (bytes: Buffer) => {
    const out: Buffer[] = [];
    for (let at = 0, end = 0; at + 5 <= bytes.length; at = end) {
      end = at + 1 + bytes.readInt32BE(at + 1);
      out.push(bytes.subarray(at, end));
    }
    return out;
  };
  /** The ReadyForQuery messages among the replies held. */
  const readies = (replies: Buffer[] | null) => messages(Buffer.concat(replies ?? [])).filter((m) => m[0] === 0x5a).length;
  let proxy: Awaited<ReturnType<typeof pgProxy>> | undefined;
  let queries = 0;
  let counting = false;
  let held: Buffer[] | null = null;
  let toFeed: net.Socket | undefined;
  let feed: ChangeFeed | undefined;
  let writer: pg.Client | undefined;

  before(async () => {
    proxy = await pgProxy({
      toServer: (d, server) => {
        // After start-up the feed's only messages are its round trips, one simple query each.
        if (counting) queries += messages(d).filter((m) => m[0] === 0x51).length;
        server.write(d);
      },
      toClient: (d, client) => {
        toFeed = client;
        if (held) held.push(d);
        else client.write(d);
      },
    });
    writer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await writer.connect();
  });
  after(async () => {
    await feed?.close();
    await writer?.end();
    await proxy?.close();
  });

  it('sends the batch that gathered while a round trip was out when it returns, answers in order, and each batch sees what committed before it', async () => {
    const channel = `carta_pipeline_${randomBytes(4).toString('hex')}`;
    feed = new ChangeFeed({ connectionString: proxy!.url }, channel);
    await feed.start();
    assert.equal(feed.coherent(), true);
    counting = true;

    const order: string[] = [];
    held = [];
    const first = feed.catchUp().then(() => order.push('first'));
    // Until PostgreSQL has answered the first round trip (its reply held here), so the write below commits after it.
    // A wait that times out is left to the assertions after it, which say what went wrong.
    await until('the answer to the first round trip', () => readies(held) >= 1, 1000).catch(() => {});
    assert.equal(queries, 1, 'the round trip of the first batch went out at the end of its turn');

    // A write committed elsewhere after the first round trip was answered: the second batch must see it.
    const epoch = feed.writeEpoch();
    await writer!.query('select pg_notify($1, $2)', [channel, '']);
    await nextTurn();
    let seenBySecond = epoch;
    const second = feed.catchUp().then(() => {
      order.push('second');
      seenBySecond = feed!.writeEpoch();
    });
    const third = feed.catchUp();
    await sleep(50);
    assert.equal(queries, 1, 'a batch waits while a round trip is out');
    assert.deepEqual(order, [], 'nothing is answered while the replies of PostgreSQL are held');

    // The replies flow again: the first is answered, then the second batch (both its callers) goes out and is answered.
    const replies = messages(Buffer.concat(held));
    held = null;
    for (const message of replies) toFeed!.write(message);
    await Promise.all([first, second, third]);
    assert.equal(queries, 2, 'the callers that gathered meanwhile shared one round trip');
    assert.deepEqual(order, ['first', 'second']);
    assert.ok(seenBySecond > epoch, 'the write committed before the second batch had moved the epoch when it was answered');
    assert.equal(feed.coherent(), true);
  });
});
