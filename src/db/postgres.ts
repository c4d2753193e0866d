import pg from 'pg';
import { ChangeFeed } from './change-feed.js';
import {
  DeadlineExceededError,
  isConnectionLost,
  isReadOnly,
  LargeText,
  QUERY_CANCELED,
  sqlState,
  type Database,
  type Queryable,
  type Transaction,
  type QueryListener,
  type QueryResult,
  type TransactionOptions,
  type WriteScope,
} from './port.js';
import { utf8InTurns } from '../next-turn.js';
import { encodeScope } from './write-epochs.js';
import { assertWithinScope, WriteTracker } from './write-scope.js';

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** Schema to use instead of public (tests give each file a schema of its own). */
  schema?: string;
  onQuery?: QueryListener;
  lockTimeoutMs?: number;
  /**
   * Listen for other instances' writes on one more connection, so memos stay valid across
   * instances: `true` uses `url`, a string another URL (past a transaction pooler, which cannot
   * hold a LISTEN). A server listens; a one-off CLI command need not. Writes always notify.
   */
  listen?: boolean;
  listenUrl?: string | null;
}

/** The NOTIFY channel of one database (and schema: test files share a database). */
function writesChannel(schema?: string): string {
  return schema ? `carta_writes_${schema}` : 'carta_writes';
}

/** How the pool's connections show in pg_stat_activity (the change feed's: CHANGE_FEED_APPLICATION). */
export const POOL_APPLICATION = 'carta';

// int8 (counts, sums) arrive as strings by default; every value we keep in int8 fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const connection = {
    connectionString: options.url,
    // A lock wait (a venue's menu or order lock) ends with an error instead of hanging a request.
    options: [`-c lock_timeout=${options.lockTimeoutMs ?? 10_000}`, options.schema ? `-c search_path=${options.schema}` : '']
      .filter(Boolean)
      .join(' '),
    connectionTimeoutMillis: 10_000,
    application_name: POOL_APPLICATION,
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize, idleTimeoutMillis: 30_000 });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  // Nor one checked out: the pool listens only to idle clients, so a connection cut between two
  // statements, or right as it is handed over (before transaction() sees it), would emit an
  // unhandled 'error'. The statement in flight, or the next, fails and the request answers 503.
  pool.on('connect', (client) => client.on('error', () => {}));
  const { onQuery } = options;
  const serverVersion = await pool.query<{ v: number }>(`select current_setting('server_version_num')::int as v`).then((r) => r.rows[0].v);
  const hasTransactionTimeout = serverVersion >= 170000;

  const channel = writesChannel(options.schema);
  // The change notification as an SQL expression: sent with a transaction's COMMIT, or evaluated
  // inside a statement committed on its own (alone).
  const notifyCall = (scope?: WriteScope) => `pg_notify(${pg.escapeLiteral(channel)}, ${pg.escapeLiteral(encodeScope(scope))})`;
  const listenUrl = options.listenUrl ?? (options.listen ? options.url : null);
  const feed = listenUrl ? new ChangeFeed({ ...connection, connectionString: listenUrl }, channel) : null;
  // Normally listening within milliseconds; a feed that cannot connect does not hold up the start
  // (memos read through until it is up; it keeps retrying).
  if (feed) await Promise.race([feed.start(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  let checkoutWaitMs = 0;
  let checkouts = 0;
  // Without a feed memos are never trusted (coherent() is false), so there is no epoch to keep.
  const wrote = (scope?: WriteScope) => feed?.wrote(scope);

  const run = async <R>(q: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    onQuery?.(text);
    // A Buffer parameter goes in binary form, which for text and json is the UTF-8 text itself.
    const values = params?.some((p) => p instanceof LargeText)
      ? await Promise.all(params.map((p) => (p instanceof LargeText ? utf8InTurns(p.text) : p)))
      : params;
    const result = await q.query(text, values as unknown[] | undefined);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  /** Statements committed on their own (autocommit), on any pooled connection. */
  const unread: Queryable = { query: (text, params) => run(pool, text, params) };

  const db: Database = {
    engine: 'postgres',
    writeEpoch: (scope) => feed?.writeEpoch(scope) ?? 0,
    // Without the feed other instances' writes are unseen: memos read through.
    coherent: () => feed?.coherent() ?? false,
    onWrite: (listener) => feed?.onWrite(listener) ?? (() => {}),
    ...(feed
      ? {
          catchUp: () => feed.catchUp(),
          onCatchUpRoundTrip: (listener: (seconds: number, waits: number) => void) => {
            feed.onRoundTrip = listener;
          },
          onFeedChange: (listener: (listening: boolean, err?: Error) => void) => {
            feed.onChange = listener;
            // A first start that failed happened before anyone listened: say so now.
            if (!feed.coherent()) listener(false);
          },
        }
      : {}),
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, checkoutWaitMs, checkouts }),
    query<R>(text: string, params?: readonly unknown[]) {
      if (isReadOnly(text)) return run<R>(pool, text, params);
      // A write commits together with its notification (see transaction), never one without the other.
      return db.transaction((tx) => tx.query<R>(text, params));
    },
    // Autocommit: nothing to notify.
    unread,
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const { deadline } = options;
      const writes = new WriteTracker(options.venueId);
      const waitStarted = performance.now();
      const client = await pool.connect();
      checkoutWaitMs += performance.now() - waitStarted;
      checkouts += 1;
      let broken = false;
      try {
        await client.query('BEGIN');
        if (deadline !== undefined && hasTransactionTimeout) {
          await client.query(`SET LOCAL transaction_timeout = ${Math.max(1, deadline - Date.now())}`);
        }
        const tx: Transaction = {
          exec: async (sql) => {
            onQuery?.(sql);
            writes.note(null);
            await client.query(sql);
          },
          query: async (text, params) => {
            if (deadline !== undefined) {
              // PostgreSQL 15 has no transaction_timeout and statement_timeout is per statement:
              // give each statement only the time the transaction has left.
              const left = deadline - Date.now();
              if (left <= 0) throw new DeadlineExceededError();
              await client.query(`SET LOCAL statement_timeout = ${Math.ceil(left)}`);
            }
            if (!isReadOnly(text)) writes.note(text);
            return run(client, text, params);
          },
        };
        const result = await fn(tx);
        if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
        // The notification goes out with the commit (same round trip), and only if it commits.
        await client.query(writes.wrote ? `select ${notifyCall(writes.scope())}; COMMIT` : 'COMMIT');
        if (writes.wrote) wrote(writes.scope());
        return result;
      } catch (err) {
        if (isConnectionLost(err)) {
          // The server rolls back what it had not committed; nothing is retried here, because a cut
          // COMMIT may have landed. Memos read again in case it did.
          broken = true;
          if (writes.wrote) wrote();
        } else {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        if (deadline !== undefined && sqlState(err) === QUERY_CANCELED) throw new DeadlineExceededError();
        throw err;
      } finally {
        // A broken client is closed, not pooled: the next checkout opens a new connection.
        client.release(broken);
      }
    },
    async alone<T>(scope: WriteScope, fn: (db: Queryable, notify: string) => Promise<T>): Promise<T> {
      const checked: Queryable = {
        query: (text, params) => {
          assertWithinScope(scope, text);
          return unread.query(text, params);
        },
      };
      try {
        const result = await fn(checked, notifyCall(scope));
        wrote(scope);
        return result;
      } catch (err) {
        // A cut connection may have committed it: memos read again in case it did.
        if (isConnectionLost(err)) wrote();
        throw err;
      }
    },
    async exec(sql) {
      await db.transaction((tx) => tx.exec(sql));
    },
    async close() {
      await feed?.close();
      await pool.end();
    },
  };
  return db;
}
