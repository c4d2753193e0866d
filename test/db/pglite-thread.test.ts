import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PgliteThread } from '../../src/db/pglite-thread.js';

// A large result comes from the PGlite thread in parts of 50 rows, each asked for in a later turn
// (pglite-worker.ts): the rows must arrive whole and in order, whatever else is queued.
describe('PGlite thread: results in parts', () => {
  let pg: PgliteThread;
  before(async () => {
    pg = await PgliteThread.open(null, {});
  });
  after(async () => pg?.close());

  const series = (n: number) => pg.query(`select g as n, repeat('x', 100) as pad from generate_series(1, ${n}) g`);

  it('returns every row in order, for results of one part, a part exactly and several', async () => {
    for (const n of [0, 1, 50, 51, 175]) {
      const { rows } = await series(n);
      assert.deepEqual(
        (rows as { n: number }[]).map((r) => r.n),
        Array.from({ length: n }, (_, i) => i + 1),
        `${n} rows`,
      );
    }
  });

  it('keeps statements queued at once apart, and a transaction whole', async () => {
    const [big, small, other] = await Promise.all([series(130), pg.query('select 7 as n'), series(60)]);
    assert.equal(big.rows.length, 130);
    assert.deepEqual(small.rows, [{ n: 7 }]);
    assert.equal(other.rows.length, 60);
    const count = await pg.transaction(async (t) => {
      await t.query('create temporary table parts (n int)');
      const { rows } = await t.query('select g as n from generate_series(1, 120) g');
      await t.query('insert into parts select unnest($1::int[])', [(rows as { n: number }[]).map((r) => r.n)]);
      return (await t.query('select count(*)::int as c from parts')).rows[0];
    });
    assert.deepEqual(count, { c: 120 });
  });
});

// A text parameter of 64K characters or more goes to the thread as UTF-8 bytes encoded a slice per
// turn and transferred (structured cloning it held the serving thread 40-230 ms for a large sync's
// rows or a publish's document): it must arrive as it was sent, a surrogate pair at a slice's edge included.
describe('PGlite thread: large text parameters', () => {
  let pg: PgliteThread;
  before(async () => {
    pg = await PgliteThread.open(null, {});
  });
  after(async () => pg?.close());

  it('takes large texts whole, beside small ones, in statements and in a transaction', async () => {
    const slice = 1 << 19;
    const large = 'ж'.repeat(slice - 1) + '😀' + 'a'.repeat(slice) + 'é😀"\\'.repeat(20_000);
    const json = JSON.stringify({ items: Array.from({ length: 3000 }, (_, i) => ({ name: `Продукт ${i} 😀`, n: i })) });
    assert.ok(json.length >= 1 << 16);
    const { rows } = await pg.query(
      "select $1::text = $2::text as same, length($2::text) as chars, $3::text as small, ($4::jsonb -> 'items' -> 2999 ->> 'name') as last",
      [large, large, 'малий', json],
    );
    assert.deepEqual(rows, [{ same: true, chars: [...large].length, small: 'малий', last: 'Продукт 2999 😀' }]);
    const echoed = await pg.transaction(async (t) => (await t.query('select $1::text as t', [large])).rows[0]);
    assert.equal((echoed as { t: string }).t, large);
  });

  it('runs the statements of a transaction in the order they were sent, a large text being packed notwithstanding', async () => {
    const large = 'x'.repeat(1 << 20);
    const seen = await pg.transaction(async (t) => {
      await t.query('create temporary table ordered (t text)');
      const [, counted] = await Promise.all([
        t.query('insert into ordered values ($1)', [large]),
        t.query('select count(*)::int as c from ordered'),
      ]);
      return counted.rows[0];
    });
    assert.deepEqual(seen, { c: 1 });
  });
});
