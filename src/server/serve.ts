import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { ensureAdminToken } from './admin-token.js';
import { removeServerNote, runningServer, writeServerNote } from './server-file.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Opens the database, migrates, listens, and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(baseConfig: Config, options: { handleSignals?: boolean } = {}): Promise<RunningServer> {
  const embedded = baseConfig.databaseUrl === null;
  let config = baseConfig;
  let newAdminToken: string | null = null;
  if (embedded) {
    const holder = runningServer(config.dataDir);
    if (holder) {
      throw new Error(`Another Carta server (pid ${holder.pid}, ${holder.url}) is using ${config.dataDir}`);
    }
    if (!config.adminToken) {
      const { token, created } = ensureAdminToken(config.dataDir);
      config = Object.freeze({ ...config, adminToken: token });
      if (created) newAdminToken = token;
    }
  }

  const db = await openDatabase(config, { listen: true });
  await migrate(db);
  const { app } = await buildApp({ config, db });
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
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (embedded) writeServerNote(config.dataDir, { pid: process.pid, url });

  if (newAdminToken) {
    // Printed once, on the first start; later starts read it from DATA_DIR.
    process.stdout.write(
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
  app.log.info({ url, engine: db.engine }, 'carta is serving');

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      shuttingDown = true;
      const timer = setTimeout(() => {
        app.log.error('graceful shutdown timed out; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      timer.unref();
      try {
        // Stops accepting, lets in-flight requests finish, then the database closes.
        await app.close();
      } finally {
        await db.close();
        if (embedded) removeServerNote(config.dataDir);
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
