import fs from 'node:fs';
import path from 'node:path';
import { PgliteThread, type ThreadTransaction } from './pglite-thread.js';
import {
  DeadlineExceededError,
  isReadOnly,
  LargeText,
  type Database,
  type Queryable,
  type Transaction,
  type QueryListener,
  type QueryResult,
  type TransactionOptions,
} from './port.js';
import { GrowthAnalyzer } from './pglite-analyze.js';
import { WriteEpochs } from './write-epochs.js';
import { assertWithinScope, WriteTracker } from './write-scope.js';

// PGlite runs PostgreSQL in this process, on a thread of its own (pglite-thread.ts), over one
// connection: statements never run in parallel, and a transaction holds the connection
// exclusively, so a deadline is enforced between statements.
// `background`: resolves while the thread still opens an existing database's files, so the caller
// can work meanwhile (serve.ts builds the app); statements wait for the open, and fail with its error.
export async function openPglite(
  dataDir: string | null,
  onQuery?: QueryListener,
  options: { background?: boolean } = {},
): Promise<Database> {
  const closeFiles = dataDir !== null && openToOthersOrNew(dataDir);
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  // PGlite preallocates shared_buffers inside its WASM heap: the default 128 MB is most of an
  // embedded server's memory. 16 MB keeps the resident size low; the OS page cache still holds
  // the data files, so reads stay fast.
  const pg = PgliteThread.start(dataDir, { postgresqlconf: ['shared_buffers = 16MB'] });
  // A new database's files are closed to others once written; a failed open is reported here
  // unless the caller takes it from its first statement.
  if (closeFiles || !options.background) await pg.whenOpen();
  if (closeFiles) {
    try {
      closeToGroupAndOthers(fs.realpathSync(dataDir as string));
    } catch (err) {
      // The thread would keep the process alive after the error is reported.
      await pg.close();
      throw err;
    }
  }

  // Move after every write that can have changed data (a committed transaction, a statement
  // that is not a plain select, a script), so in-process memos know when to read again.
  const epochs = new WriteEpochs();
  // The statistics autovacuum would keep (pglite-analyze.ts): maintenance, outside onQuery's count.
  const analyzer = new GrowthAnalyzer({
    tables: async () =>
      (
        await pg.query(
          `select quote_ident(relname) as name from pg_class where relkind = 'r' and relnamespace = current_schema()::regnamespace order by 1`,
        )
      ).rows.map((r) => (r as { name: string }).name),
    analyze: async (table) => {
      await pg.query(`analyze ${table}`);
    },
  });
  epochs.listen(() => analyzer.wrote());

  // `moves`: a statement outside a transaction that can write moves the epoch (not `unread`'s).
  const run = async <R>(
    q: PgliteThread | ThreadTransaction,
    text: string,
    params?: readonly unknown[],
    moves = q === pg,
  ): Promise<QueryResult<R>> => {
    onQuery?.(text);
    try {
      const result = await q.query(
        text,
        params?.some((p) => p instanceof LargeText) ? params.map((p) => (p instanceof LargeText ? p.text : p)) : params,
      );
      return { rows: result.rows as R[], rowCount: result.affectedRows ?? result.rows.length };
    } finally {
      if (moves && !isReadOnly(text)) epochs.moved();
    }
  };

  /** Statements that move no epoch as they run: unread's, and alone's (which moves its scope's after). */
  const unread: Queryable = { query: (text, params) => run(pg, text, params, false) };

  return {
    engine: 'pglite',
    // The only writer: every write moves the epoch as it happens.
    writeEpoch: (scope) => epochs.of(scope),
    coherent: () => true,
    onWrite: (listener) => epochs.listen(listener),
    query: (text, params) => run(pg, text, params),
    unread,
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const { deadline } = options;
      const writes = new WriteTracker(options.venueId);
      try {
        return await pg.transaction(async (t) => {
          const tx: Transaction = {
            query: (text, params) => {
              if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
              if (!isReadOnly(text)) writes.note(text);
              return run(t, text, params);
            },
            exec: async (sql) => {
              onQuery?.(sql);
              writes.note(null);
              await t.exec(sql);
            },
          };
          const result = await fn(tx);
          if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
          return result;
        });
      } finally {
        epochs.moved(writes.scope());
      }
    },
    // One connection, no other instance: the statement's commit is all there is to it.
    async alone(scope, fn) {
      const checked: Queryable = {
        query: (text, params) => {
          assertWithinScope(scope, text);
          return unread.query(text, params);
        },
      };
      try {
        return await fn(checked, 'null');
      } finally {
        epochs.moved(scope);
      }
    },
    async exec(sql) {
      onQuery?.(sql);
      try {
        await pg.exec(sql);
      } finally {
        epochs.moved();
      }
    },
    async close() {
      await analyzer.stop();
      await pg.close();
    },
  };
}

// PGlite writes a new database's files (initdb's) 0666 whatever the umask; what PostgreSQL adds
// later follows the umask. They hold customers' details and webhook secrets, so a new database,
// or one an earlier version left open, has every entry's group and other bits cleared once it is
// open. The folder itself is closed last: while it is still open to others, the walk is not done.

function openToOthersOrNew(dataDir: string): boolean {
  if (process.platform === 'win32') return false;
  return !fs.existsSync(path.join(dataDir, 'PG_VERSION')) || (fs.statSync(dataDir).mode & 0o077) !== 0;
}

function closeToGroupAndOthers(target: string): void {
  const stat = fs.lstatSync(target);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) for (const name of fs.readdirSync(target)) closeToGroupAndOthers(path.join(target, name));
  if (stat.mode & 0o077) fs.chmodSync(target, stat.mode & 0o700);
}
