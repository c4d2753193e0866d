import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import pino from 'pino';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import type { Database } from '../db/port.js';
import { ensureAdminToken } from './admin-token.js';
import type { DataDirLock } from './data-dir-lock.js';
import { secureDataDir } from './data-dir-mode.js';
import { LogBuffer } from './log-buffer.js';
import { claimDataDir, removeServerNote, writeServerNote } from './server-file.js';

// How long a start waits for DATA_DIR's holder to go: a killed server is gone within moments of
// the signal, a carta command within a few seconds. A live server is refused after this.
const CLAIM_WAIT_MS = 5_000;

// A line reaches the log within LOG_FLUSH_MS when the server is idle, in writes of 4 KB under load.
const LOG_BUFFER_CHARS = 4096;
const LOG_FLUSH_MS = 100;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Opens the database, migrates, listens, and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(baseConfig: Config, options: { handleSignals?: boolean } = {}): Promise<RunningServer> {
  if (baseConfig.databaseUrl !== null) return start(baseConfig, null, options);

  // Before anything under DATA_DIR is opened or written: a directory others can write is refused.
  secureDataDir(baseConfig.dataDir);
  // Taken before the database is opened and let go after it is closed: two processes must never
  // have the same PGlite files open. The kernel lets it go if this process dies.
  const lock = await claimDataDir(baseConfig.dataDir, { waitMs: CLAIM_WAIT_MS });
  try {
    let config = baseConfig;
    let newAdminToken: string | null = null;
    if (!config.adminToken) {
      const { token, created } = ensureAdminToken(config.dataDir);
      config = Object.freeze({ ...config, adminToken: token });
      if (created) newAdminToken = token;
    }
    const server = await start(config, lock, options);
    if (newAdminToken) {
      // Printed once, on the first start; later starts read it from DATA_DIR. On stderr, the
      // terminal's: stdout carries the JSON log, which is often shipped and kept elsewhere.
      process.stderr.write(
        [
          '',
          'Carta generated an operator token for this data directory (kept in DATA_DIR/admin-token):',
          `  ${newAdminToken}`,
          'Create a venue and an API key with:',
          '  npx carta venue create --name "My Cafe" --currency EUR',
          '  npx carta key create --venue <venue id> --mode live',
          '',
        ].join('\n'),
      );
    }
    return server;
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/** `lock` is DATA_DIR's on PGlite (null on PostgreSQL): this server's note lives and dies with it. */
async function start(config: Config, lock: DataDirLock | null, options: { handleSignals?: boolean }): Promise<RunningServer> {
  let db: Database | null = null;
  try {
    const loaded = performance.now();
    // On PGlite its thread opens the files (a second or more of the other core on a restart, more
    // after a kill -9) while this one builds the app (serveDatabase).
    db = await openDatabase(config, { listen: true, background: true });
    return await serveDatabase(config, db, lock, options, loaded);
  } catch (err) {
    await db?.close().catch(() => {});
    throw err;
  }
}

async function serveDatabase(
  config: Config,
  db: Database,
  lock: DataDirLock | null,
  options: { handleSignals?: boolean },
  loaded: number,
): Promise<RunningServer> {
  // Building the app sends no statement (its first ones go once it listens, onReady), so the
  // database opens and migrates meanwhile.
  const migrating = migrate(db).then(() => performance.now());
  migrating.catch(() => {});
  // Log lines are buffered (log-buffer.ts): they go out when LOG_BUFFER_CHARS have gathered, or at
  // the next flush (every LOG_FLUSH_MS), so under load one write carries about twenty access lines. Written
  // one by one, or asynchronously (a hop to libuv's thread pool per write), they cost about as much
  // as building them (docs/performance.md). A 4 KB write to stdout does not hold the event loop up
  // unless the log reader stops reading.
  const logStream =
    config.logLevel === 'silent' ? undefined : new LogBuffer(pino.destination({ dest: 1, sync: true }), LOG_BUFFER_CHARS, LOG_FLUSH_MS);
  // pino flushes its asynchronous destinations on exit, not a buffered synchronous one: the lines
  // of the last 100 ms (the shutdown's among them, or a crash's) go out here.
  if (logStream) process.once('exit', () => logStream.flushSync());
  let built: Awaited<ReturnType<typeof buildApp>>;
  try {
    built = await buildApp({ config, db, logStream });
  } catch (err) {
    await migrating.catch(() => {});
    throw err;
  }
  const { app } = built;
  const appBuilt = performance.now();
  let migrated: number;
  try {
    migrated = await migrating;
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
  db.onFeedChange?.((listening, err) => {
    if (listening) app.log.info('change feed listening: memos follow other instances');
    else app.log.warn({ err }, 'change feed down: every request reads from the database until it is back');
  });
  // server.close() reaps only the keep-alive sockets idle at that moment: a request still in flight
  // when shutdown begins would leave its socket open afterwards and hold the process until the
  // client lets go (or the shutdown timeout exits with 1). Its response closes the connection instead.
  let shuttingDown = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });
  drainGracefully(app.server);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (lock) writeServerNote(config.dataDir, { pid: process.pid, url });
  // Where a start's time went, for an operator (and the bench's restart figure) to see: each
  // mark in ms since the process began. The app is built while the database opens and migrates.
  const startMs = {
    loaded: Math.round(loaded),
    built: Math.round(appBuilt),
    migrated: Math.round(migrated),
    listening: Math.round(performance.now()),
  };
  app.log.info({ url, engine: db.engine, startMs }, 'carta is serving');

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      shuttingDown = true;
      // The CLI stops sending operator calls here and waits for the lock instead.
      if (lock) removeServerNote(config.dataDir);
      const timer = setTimeout(() => {
        app.log.error('graceful shutdown timed out; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      timer.unref();
      try {
        // A request a client wrote before the signal may still be unread in its socket: one turn of
        // the event loop reads it, so drainGracefully counts its connection busy and it is answered.
        await new Promise((resolve) => setImmediate(resolve));
        // Stops accepting, lets in-flight requests finish, then the database closes.
        await app.close();
      } finally {
        await db.close();
        // Only once the files are closed may another process open them.
        await lock?.release();
        clearTimeout(timer);
      }
    })());

  if (options.handleSignals !== false) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        app.log.info({ signal }, 'shutting down');
        close().then(
          () => process.exit(0),
          (err) => {
            app.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  return { url, close };
}

/**
 * Makes server.close() let every response finish. Node's own closeIdleConnections(), which close()
 * calls first, destroys each connection it deems idle, and it deems idle one whose response has
 * been ended but is still being written (a menu of megabytes to a slow client): the client got a
 * cut body. Here a connection is idle only while its last response is written in full: the
 * server's 'request' event names each connection's latest response (pipelined ones are written in
 * order, so the latest is the last to finish). From close() on, a connection is let go as soon as
 * its responses are written: one begun before shutdown went out keep-alive, and its idle
 * connection would otherwise hold the process until the keep-alive timeout. One map write per
 * request, no listener per response.
 */
function drainGracefully(server: Server): void {
  const sockets = new Set<Socket>();
  const latest = new WeakMap<Socket, ServerResponse>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => latest.set(request.socket, response));
  // end(), not destroy(): what was written still reaches the client before the FIN.
  const endOnceWritten = (socket: Socket): void => {
    const response = latest.get(socket);
    if (response && !response.writableFinished && !response.destroyed) response.once('close', () => endOnceWritten(socket));
    else socket.end();
  };
  // Node's close() and Fastify's may each call this: a connection is waited on once.
  const ending = new WeakSet<Socket>();
  server.closeIdleConnections = () => {
    for (const socket of sockets) {
      if (ending.has(socket)) continue;
      ending.add(socket);
      const response = latest.get(socket);
      if (response && !response.writableFinished && !response.destroyed) endOnceWritten(socket);
      else socket.destroy();
    }
  };
}
