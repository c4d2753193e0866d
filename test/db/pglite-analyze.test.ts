import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onPostgres, testDatabase } from '../helpers/db.js';

// PGlite runs no autovacuum (src/db/pglite-analyze.ts): the embedded database analyses its tables as
// its writes grow, so plans made on empty tables do not stay sequential scans.
describe('the embedded database keeps its statistics', { skip: onPostgres && 'PostgreSQL has autovacuum' }, () => {
  it('analyses every table once 500 writes have committed, and again as they double', async () => {
    const { db, dispose } = await testDatabase();
    const reltuples = async () =>
      (await db.query<{ n: number }>(`select reltuples::int as n from pg_class where relname = 'analyse_probe'`)).rows[0].n;
    const until = async (what: string, ready: () => Promise<boolean>) => {
      for (let waited = 0; waited < 10_000 && !(await ready()); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(await ready(), what);
    };
    try {
      await db.exec(`create table analyse_probe (id int primary key)`);
      assert.equal(await reltuples(), -1, 'never analysed yet');
      let n = 0;
      const write = async (count: number) => {
        for (let i = 0; i < count; i += 1, n += 1)
          await db.transaction(async (tx) => void (await tx.query('insert into analyse_probe values ($1)', [n])));
      };
      await write(500);
      const unanalysed = async () =>
        (
          await db.query<{ n: number }>(
            `select count(*) filter (where last_analyze is null)::int as n from pg_stat_user_tables where schemaname = current_schema()`,
          )
        ).rows[0].n;
      await until('every table analysed', async () => (await unanalysed()) === 0);
      assert.equal(await reltuples(), 500);
      // Doubling: the next run comes after as many writes again.
      const first = await reltuples();
      await write(1000);
      await until('analysed again', async () => (await reltuples()) > first);
    } finally {
      await dispose();
    }
  });
});
