import pg from 'pg';
import {
  DeadlineExceededError,
  QUERY_CANCELED,
  sqlState,
  type Database,
  type Transaction,
  type QueryListener,
  type QueryResult,
  type TransactionOptions,
} from './port.js';

export interface PostgresOptions {
  url: string;
  poolSize: number;
  /** Schema to use instead of public (tests give each file a schema of its own). */
  schema?: string;
  onQuery?: QueryListener;
  lockTimeoutMs?: number;
}

// int8 (counts, sums) arrive as strings by default; every value we keep in int8 fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    // A lock wait (a venue's menu or order lock) ends with an error instead of hanging a request.
    options: [`-c lock_timeout=${options.lockTimeoutMs ?? 10_000}`, options.schema ? `-c search_path=${options.schema}` : '']
      .filter(Boolean)
      .join(' '),
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const { onQuery } = options;
  const serverVersion = await pool
    .query<{ v: number }>(`select current_setting('server_version_num')::int as v`)
    .then((r) => r.rows[0].v);
  const hasTransactionTimeout = serverVersion >= 170000;

  const run = async <R>(q: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    onQuery?.(text);
    const result = await q.query(text, params as unknown[] | undefined);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };

  return {
    engine: 'postgres',
    // Other instances write too: nothing read here can be assumed current.
    exclusive: false,
    writeEpoch: () => 0,
    query: (text, params) => run(pool, text, params),
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const { deadline } = options;
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        if (deadline !== undefined && hasTransactionTimeout) {
          await client.query(`SET LOCAL transaction_timeout = ${Math.max(1, deadline - Date.now())}`);
        }
        const tx: Transaction = {
          exec: async (sql) => {
            onQuery?.(sql);
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
            return run(client, text, params);
          },
        };
        const result = await fn(tx);
        if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        if (deadline !== undefined && sqlState(err) === QUERY_CANCELED) throw new DeadlineExceededError();
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async exec(sql) {
      onQuery?.(sql);
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
