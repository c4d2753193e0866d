import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { App } from '../../src/http/types.js';
import { ADMIN_TOKEN, call } from '../helpers/app.js';
import { bin, cartaEnv, dataDirFromTemplate, spawnServer, type ServerProcess } from '../helpers/cli.js';
import { onPostgres, throwawayDatabase, type ThrowawayDatabase } from '../helpers/db.js';
import { expectStatus, orderBody, placeOrder } from '../helpers/orders.js';
import { until } from '../helpers/net.js';
import { Receiver, venueWithEndpoint } from '../helpers/webhook-receiver.js';

// A restart or a kill -9 loses no pending delivery: real server processes (src/main.ts,
// what `carta serve` runs) on the engine of this run take guest orders while a loopback receiver,
// verifying every signature with the standardwebhooks package, fails one of them; one server is
// killed with SIGKILL while orders are in flight and started again on the same data (PGlite: the
// same DATA_DIR; PostgreSQL: the same database, with a second server taking orders throughout).
// Every order the database holds, acknowledged or cut off by the kill after its commit, reaches
// the receiver once after deduplication by webhook-id, in commit order.
//
// The kill lands while the endpoint's queue waits for the retry of the failed delivery, so no
// delivery is leased at that moment: one that was would wait out its 30 s lease (the dispatcher's
// default, which a server process takes) before any instance sent it again, longer than this test
// may take. A delivery claimed by an instance that died is test/webhooks/webhook-dispatch.test.ts's case.

/** `carta serve` as `npm start` runs it (bin/carta.js; scripts/test.mjs rebuilds it when src changed). */
const startServer = (env: NodeJS.ProcessEnv): Promise<ServerProcess> =>
  spawnServer([bin, 'serve'], env, { readyPath: '/ready', timeoutMs: 60_000 });

/**
 * The test helpers drive an app through `inject` alone; this carries their requests over loopback
 * HTTP to a server process instead, so the same fixtures set up a venue and place orders there.
 */
function overHttp(server: ServerProcess): App {
  const inject = async (req: { method: string; url: string; headers: Record<string, string>; payload?: string }) => {
    const res = await fetch(`${server.url}${req.url}`, { method: req.method, headers: req.headers, body: req.payload });
    const body = await res.text();
    // As inject answers with payloadAsStream too (call() reads every answer that way).
    return { statusCode: res.status, body, headers: Object.fromEntries(res.headers), stream: () => Readable.from([Buffer.from(body)]) };
  };
  return { inject } as unknown as App;
}

async function kill9(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

describe('webhook deliveries across kill -9 and restart of server processes', () => {
  const receiver = new Receiver();
  const dataDir = dataDirFromTemplate();
  const servers: ServerProcess[] = [];
  let database: ThrowawayDatabase | undefined;
  let env: NodeJS.ProcessEnv;

  const start = async () => {
    const server = await startServer(env);
    servers.push(server);
    return server;
  };

  before(async () => {
    await receiver.listen();
    database = onPostgres ? await throwawayDatabase('carta_webhook_restart') : undefined;
    env = cartaEnv(dataDir, {
      ADMIN_TOKEN,
      SSRF_TEST_ALLOW: `127.0.0.1:${receiver.port}`,
      ...(database ? { DATABASE_URL: database.url.href } : {}),
    });
  });

  after(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await kill9(server);
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await receiver.close();
  });

  it(
    'delivers every order.created once, in commit order, while the receiver fails and a server is killed and restarted',
    { timeout: 90_000 },
    async (t) => {
      // PostgreSQL: two servers on one database, each taking orders; PGlite: the one server.
      const [a, b] = await Promise.all([start(), ...(onPostgres ? [start()] : [])]);
      const { v, ids, endpointId } = await venueWithEndpoint(overHttp(a), receiver, ['order.created']);

      const acknowledged: string[] = [];
      const place = async (server: ServerProcess) => {
        const res = await placeOrder(overHttp(server), v.slug, orderBody(ids));
        expectStatus(res, 201);
        acknowledged.push(res.body.id);
      };
      const log = async (server: ServerProcess): Promise<any[]> => {
        const res = await call(overHttp(server), 'GET', `/v1/webhooks/${endpointId}/deliveries?limit=100`, { key: v.key });
        expectStatus(res, 200);
        return res.body.items;
      };

      // Orders through every server; the receiver answers the third delivery with a 500.
      receiver.script = [200, 200, 500];
      for (let i = 0; i < 3; i += 1) await place(i % 2 === 1 && b ? b : a);
      const failed = await until('the failed delivery', () => receiver.requests.find((r) => r.status === 500));
      // Recorded and due again in about 5 s: until then the endpoint's queue waits, nothing is leased.
      await until('the failure recorded', async () =>
        (await log(a)).some((d) => d.eventId === failed.id && d.status === 'pending' && d.lastStatusCode === 500),
      );

      // Orders in flight on A when it is killed (some committed, answered or not), and on B meanwhile.
      let answeredOnA = 0;
      let cut = 0;
      const inFlight = Array.from({ length: 6 }, () =>
        place(a).then(
          () => (answeredOnA += 1),
          (err: unknown) => {
            // No answer: the kill cut the request, before or after its commit. Any answer must be a 201.
            if (err instanceof assert.AssertionError) throw err;
            cut += 1;
          },
        ),
      );
      const onB = b ? [place(b), place(b)] : [];
      await until('an order answered on A while the others are in flight', () => answeredOnA > 0);
      await kill9(a);
      await Promise.all([...inFlight, ...onB]);
      // The retry of the failed delivery succeeds; the receiver fails the one after it.
      receiver.script = [200, 503];

      const restarted = await start();
      await place(restarted);
      if (b) await place(b);
      await place(restarted);

      // The database's orders in commit order (updatedAt ascending; none has changed since it was placed).
      const orders = await call(overHttp(restarted), 'GET', '/v1/orders?updatedSince=1970-01-01T00:00:00Z&limit=100', { key: v.key });
      expectStatus(orders, 200);
      const committed: string[] = orders.body.items.map((o: any) => o.id);
      assert.deepEqual(
        acknowledged.filter((id) => !committed.includes(id)),
        [],
        'every acknowledged order is in the database',
      );

      const delivered = () =>
        receiver
          .unique()
          .filter((r) => r.type === 'order.created')
          .map((r) => r.body.data.order.id as string);
      await until('every order delivered', () => committed.every((id) => delivered().includes(id)), 30_000);
      assert.deepEqual(delivered(), committed, 'each order once after deduplication by webhook-id, in commit order');
      assert.ok(
        receiver.requests.some((r) => r.status === 503),
        'a failure after the restart was retried too',
      );
      const entries = await until('the log settled', async () => {
        const items = await log(restarted);
        return items.every((d) => d.status === 'delivered') && items;
      });
      assert.equal(entries.length, committed.length, 'one delivery per order');
      t.diagnostic(
        `${committed.length} orders (${acknowledged.length} acknowledged, ${cut} cut by the kill), ` +
          `${receiver.requests.length} requests, ${receiver.accepted.length - receiver.unique().length} duplicates`,
      );
    },
  );
});
