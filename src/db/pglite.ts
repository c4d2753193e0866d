import fs from 'node:fs';
import { PGlite, type Transaction as PgliteTransaction } from '@electric-sql/pglite';
import {
  DeadlineExceededError,
  type Database,
  type Transaction,
  type QueryListener,
  type QueryResult,
  type TransactionOptions,
} from './port.js';

// PGlite runs PostgreSQL in this process over one connection: statements never run in parallel,
// and its transaction() holds an exclusive lock, so a deadline is enforced between statements.
export async function openPglite(dataDir: string | null, onQuery?: QueryListener): Promise<Database> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const pg = dataDir ? await PGlite.create(dataDir) : await PGlite.create();

  const run = async <R>(q: PGlite | PgliteTransaction, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => {
    onQuery?.(text);
    const result = await q.query<R>(text, params as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };

  return {
    engine: 'pglite',
    query: (text, params) => run(pg, text, params),
    async transaction<T>(fn: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const { deadline } = options;
      return pg.transaction(async (t) => {
        const tx: Transaction = {
          query: (text, params) => {
            if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
            return run(t, text, params);
          },
          exec: async (sql) => {
            onQuery?.(sql);
            await t.exec(sql);
          },
        };
        const result = await fn(tx);
        if (deadline !== undefined && Date.now() > deadline) throw new DeadlineExceededError();
        return result;
      });
    },
    async exec(sql) {
      onQuery?.(sql);
      await pg.exec(sql);
    },
    close: () => pg.close(),
  };
}
