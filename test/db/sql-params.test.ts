import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqlParams } from '../../src/db/sql-params.js';

// The named parameters a statement is written with (src/db/sql-params.ts): the placeholders must
// stay in step with the values the driver receives, whatever the order the SQL uses them in.

describe('SqlParams', () => {
  it('numbers named values in the order they are added, across calls', () => {
    const params = new SqlParams();
    const a = params.add({ venue: 'v', order: 'o' });
    const b = params.add({ key: null, venue: 'v again' });
    assert.deepEqual(a, { venue: '$1', order: '$2' });
    assert.deepEqual(b, { key: '$3', venue: '$4' }, 'a name is scoped to its call: a second venue is a parameter of its own');
    assert.deepEqual(params.values, ['v', 'o', null, 'v again']);
  });

  it("gives a row's columns and placeholders in one order, after the values added before", () => {
    const params = new SqlParams();
    const p = params.add({ venue: 'v' });
    const row = params.row({ type: 'pickup', customer_name: null, total_amount: 1200 });
    assert.equal(row.columns, 'type, customer_name, total_amount');
    assert.equal(row.values, '$2, $3, $4');
    assert.equal(
      `insert into orders (venue_id, ${row.columns}) select ${p.venue}, ${row.values}`,
      'insert into orders (venue_id, type, customer_name, total_amount) select $1, $2, $3, $4',
    );
    assert.deepEqual(params.values, ['v', 'pickup', null, 1200]);
  });

  it('keeps a value once however often the SQL uses its placeholder', () => {
    const params = new SqlParams();
    const p = params.add({ key: 'k' });
    const sql = `select ${p.key} where ${p.key}::text is not null`;
    assert.equal(sql, 'select $1 where $1::text is not null');
    assert.deepEqual(params.values, ['k']);
  });
});
