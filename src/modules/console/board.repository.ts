import type { Queryable } from '../../db/port.js';

export interface ServiceItemRow {
  kind: 'product' | 'ingredient';
  id: string;
  external_id: string | null;
  name: string;
  category_name: string | null;
}

/** The draft's visible products (with their category's name) and its ingredients, by name: what staff mark sold out. */
export async function serviceItems(db: Queryable, venueId: string): Promise<ServiceItemRow[]> {
  const { rows } = await db.query<ServiceItemRow>(
    `select 'product' as kind, p.id, p.external_id, p.name, c.name as category_name
     from products p left join categories c on c.venue_id = p.venue_id and c.id = p.category_id
     where p.venue_id = $1 and p.menu_visible and p.cleaned_up_at is null
     union all
     select 'ingredient', i.id, i.external_id, i.name, null from ingredients i where i.venue_id = $1
     order by name, id`,
    [venueId],
  );
  return rows;
}
