import type { Queryable } from '../../db/port.js';

export type MarkKind = 'product' | 'ingredient';

const TABLES = {
  product: { table: 'product_availability', column: 'product_id' },
  ingredient: { table: 'ingredient_availability', column: 'ingredient_id' },
} as const;

/** A sold-out mark with the names of its item; `until` null: until marked available. Expired marks included. */
export interface MarkRow {
  kind: MarkKind;
  id: string;
  external_id: string | null;
  name: string;
  until: Date | null;
  updated_at: Date;
}

/**
 * Every mark of the venue, products and ingredients, and the venue's timezone (what the marks'
 * schedules are read in; null until settings are saved), in one statement.
 */
export async function allMarks(db: Queryable, venueId: string): Promise<{ timeZone: string | null; rows: MarkRow[] }> {
  const { rows } = await db.query<Partial<MarkRow> & { time_zone: string | null }>(
    `select z.time_zone, m.kind, m.id, m.external_id, m.name, m.until, m.updated_at
     from (select (select timezone from venue_settings where venue_id = $1) as time_zone) z
     left join (
       select 'product' as kind, p.id, p.external_id, p.name, a.until, a.updated_at
         from product_availability a join products p on p.venue_id = a.venue_id and p.id = a.product_id
        where a.venue_id = $1
       union all
       select 'ingredient' as kind, i.id, i.external_id, i.name, a.until, a.updated_at
         from ingredient_availability a join ingredients i on i.venue_id = a.venue_id and i.id = a.ingredient_id
        where a.venue_id = $1
     ) m on true`,
    [venueId],
  );
  return { timeZone: rows[0]?.time_zone ?? null, rows: rows.filter((r) => r.kind != null) as MarkRow[] };
}

/** Sets marks (sold out until `until`, null: indefinitely), one statement per kind. */
export async function upsertMarks(
  db: Queryable,
  venueId: string,
  kind: MarkKind,
  marks: { id: string; until: string | null }[],
): Promise<void> {
  if (marks.length === 0) return;
  const { table, column } = TABLES[kind];
  await db.query(
    `insert into ${table} (venue_id, ${column}, until)
     select $1, m.id, m.until from unnest($2::uuid[], $3::timestamptz[]) as m(id, until)
     on conflict (venue_id, ${column}) do update set until = excluded.until, updated_at = now()`,
    [venueId, marks.map((m) => m.id), marks.map((m) => m.until)],
  );
}

/** Clears marks (an item marked available again, or an expired mark). */
export async function deleteMarks(db: Queryable, venueId: string, kind: MarkKind, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const { table, column } = TABLES[kind];
  await db.query(`delete from ${table} where venue_id = $1 and ${column} = any($2::uuid[])`, [venueId, ids]);
}
