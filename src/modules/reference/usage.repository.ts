import type { Queryable } from '../../db/port.js';

export interface Usage {
  products: number;
  categories: number;
  ingredients: number;
  banners: number;
  tables: number;
}

/** Plan usage: every product counts, hidden and cleaned-up ones included. */
export async function countUsage(db: Queryable, venueId: string): Promise<Usage> {
  const { rows } = await db.query<Usage>(
    `select (select count(*)::int from products where venue_id = $1) as products,
            (select count(*)::int from categories where venue_id = $1) as categories,
            (select count(*)::int from ingredients where venue_id = $1) as ingredients,
            (select count(*)::int from banners where venue_id = $1) as banners,
            (select count(*)::int from venue_tables where venue_id = $1) as tables`,
    [venueId],
  );
  return rows[0];
}
