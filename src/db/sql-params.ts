// A statement's parameters by name: the SQL says `${p.venue}` where it would count `$1 ... $30`
// by hand. Each value is one parameter however often the SQL uses it, and the values go to the
// driver in the order their placeholders were given out.

/** The placeholders given out so far, and the values they stand for (the `params` of `query`). */
export class SqlParams {
  readonly values: unknown[] = [];

  /** A `$n` placeholder for each value of `named`, under the same names. */
  add<K extends string>(named: Readonly<Record<K, unknown>>): Readonly<Record<K, string>> {
    const placeholders = {} as Record<K, string>;
    for (const name of Object.keys(named) as K[]) {
      this.values.push(named[name]);
      placeholders[name] = `$${this.values.length}`;
    }
    return placeholders;
  }

  /**
   * A row given as its columns' values: the column names and their placeholders, in one order,
   * for `insert into t (${row.columns}) values (${row.values})` (or `select ${row.values}`).
   */
  row(columns: Readonly<Record<string, unknown>>): { columns: string; values: string } {
    const placeholders = this.add(columns);
    return { columns: Object.keys(placeholders).join(', '), values: Object.values(placeholders).join(', ') };
  }
}
