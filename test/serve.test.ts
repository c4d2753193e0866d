import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bin, carta, cartaEnv, cliSkipReason, dataDirFromTemplate, spawnServer, type ServerProcess } from './helpers/cli.js';
import { freePort } from './helpers/net.js';

const skip = cliSkipReason();

type Server = ServerProcess;

/** `carta serve` as a child process; resolves once /health answers. */
const startServer = (dataDir: string): Promise<Server> => spawnServer([bin, 'serve'], cartaEnv(dataDir));

async function stop(server: Server): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  return server.exited;
}

describe('carta serve (embedded default)', { skip }, () => {
  let dataDir: string;
  const started: Server[] = [];
  before(() => {
    dataDir = dataDirFromTemplate();
  });
  after(async () => {
    for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates and prints an operator token once, serves the API, and shuts down cleanly on SIGTERM', async () => {
    const server = await startServer(dataDir);
    started.push(server);

    // First start: the token is printed once and kept under DATA_DIR, readable by its owner only.
    const tokenFile = path.join(dataDir, 'admin-token');
    assert.ok(fs.existsSync(tokenFile));
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.ok(token.length >= 32);
    assert.equal(fs.statSync(tokenFile).mode & 0o077, 0);
    assert.ok(server.output().includes(token), 'the generated token is printed');
    assert.ok(fs.existsSync(path.join(dataDir, 'server.json')));

    // The CLI finds the running server through DATA_DIR/server.json and works through it.
    const venueRun = await carta(dataDir, ['venue', 'create', '--name', 'Served Cafe', '--currency', 'EUR', '--json']);
    assert.equal(venueRun.code, 0, venueRun.stderr);
    const venue = JSON.parse(venueRun.stdout);
    const keyRun = await carta(dataDir, ['key', 'create', '--venue', venue.id, '--json']);
    assert.equal(keyRun.code, 0, keyRun.stderr);
    const key = JSON.parse(keyRun.stdout);

    // Real HTTP: the key works, and the operator API takes the stored token.
    const ref = await fetch(`${server.url}/v1/reference`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(ref.status, 200);
    assert.ok(ref.headers.get('x-request-id'));
    assert.equal(((await ref.json()) as { planLimits: { plan: string } }).planLimits.plan, 'free');
    const shown = await fetch(`${server.url}/admin/v1/venues/${venue.id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(shown.status, 200);

    // A second server on the same DATA_DIR is refused while the first holds it.
    const rival = await carta(dataDir, ['serve'], { PORT: String(await freePort()) });
    assert.notEqual(rival.code, 0);
    assert.match(rival.stderr, /Another Carta server/);

    assert.equal(await stop(server), 0);
    assert.equal(fs.existsSync(path.join(dataDir, 'server.json')), false);
  });

  it('does not print the operator token again on a later start, and keeps the data', async () => {
    const tokenBefore = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const server = await startServer(dataDir);
    started.push(server);
    try {
      assert.equal(server.output().includes(tokenBefore), false);
      assert.equal(fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim(), tokenBefore);
      const list = await carta(dataDir, ['key', 'list', '--venue', '0193a0b0-0000-7000-8000-000000000000']);
      assert.equal(list.code, 4, 'the CLI talks to the running server and gets its 404');
    } finally {
      assert.equal(await stop(server), 0);
    }
  });

  it('lets an in-flight request finish during a graceful shutdown', async () => {
    const server = await startServer(dataDir);
    started.push(server);
    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    const body = JSON.stringify({ name: 'Late Cafe', currency: 'EUR' });
    const response = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        `${server.url}/admin/v1/venues`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      // Half the body now, the rest after the server has been told to stop.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const res = await response;
    assert.equal(res.status, 201, res.body);
    assert.equal(JSON.parse(res.body).name, 'Late Cafe');
    // The keep-alive socket is let go with the response, so the process need not wait for the client.
    assert.equal(res.connection, 'close');
    assert.equal(await server.exited, 0);
  });
});
