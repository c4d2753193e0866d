import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { AVAILABILITY_MAX_AHEAD_MS } from '../../limits.js';
import { instantOf } from '../../shared/timestamps.js';
import { audit, type Actor } from '../audit/index.js';
import type { WebhookEvents } from '../webhooks/index.js';
import { allMarks, deleteMarks, upsertMarks, type MarkKind, type MarkRow } from './availability.repository.js';
import type {
  AvailabilityListValue,
  AvailabilityPutInput,
  AvailabilityPutResultValue,
  MarkInput,
  SoldOutItemValue,
} from './availability.schemas.js';
import { stateAt, type AvailabilityState, type Marks, type ScheduledCategory } from './item-availability.js';

/** A venue's marks as loaded, with the timezone its schedules are read in. */
export interface LiveMarks {
  marks: Marks;
  rows: MarkRow[];
  timeZone: string;
  /** The latest state computed per list of categories (a menu version's), while the clock stays in it. */
  states: WeakMap<readonly ScheduledCategory[], AvailabilityState>;
}

const SECTIONS = { products: 'product', ingredients: 'ingredient' } as const satisfies Record<string, MarkKind>;

/**
 * Sold-out marks: set through PUT /v1/availability, listed by GET, and read by the
 * menu reads, the guest menu and order placement against the injected clock. A mark ends by
 * itself when its `until` passes: reads compare, no job runs.
 */
/**
 * The draft items that refs name, by ref (an externalId, else an id; a ref naming nothing is
 * absent), in one statement: the menu's (menu/item-refs.ts), given by services.ts, so the SQL of
 * the menu's tables stays in the menu module, which sits above this one.
 */
export type ItemKeysByRefs = (
  db: Queryable,
  venueId: string,
  table: 'products' | 'ingredients',
  refs: string[],
) => Promise<Map<string, { id: string; external_id: string | null }>>;

export class AvailabilityService {
  private readonly loaded: EpochMemo<LiveMarks>;

  constructor(
    private readonly db: Database,
    private readonly events: WebhookEvents,
    /** The time every rule here is judged at (tests move it). */
    readonly clock: () => number,
    private readonly itemKeysByRefs: ItemKeysByRefs,
  ) {
    this.loaded = new EpochMemo(db);
  }

  private async load(venueId: string, db: Queryable = this.db): Promise<LiveMarks> {
    const { rows, timeZone } = await allMarks(db, venueId);
    const products = new Map<string, number | null>();
    const ingredients = new Map<string, { externalId: string | null; until: number | null }>();
    for (const r of rows) {
      const until = r.until === null ? null : r.until.getTime();
      if (r.kind === 'product') products.set(r.id, until);
      else ingredients.set(r.id, { externalId: r.external_id, until });
    }
    return { marks: { products, ingredients }, rows, timeZone: timeZone ?? 'UTC', states: new WeakMap() };
  }

  /** The venue's marks, memoised until the venue's next write. */
  marks(venueId: string): Promise<LiveMarks> {
    return this.loaded.get(venueId, { venueId }, () => this.load(venueId));
  }

  peekMarks(venueId: string): LiveMarks | undefined {
    return this.loaded.peek(venueId);
  }

  /** The marks as `db` (an open transaction) sees them: the memo while current, else read through `db`, not kept. */
  async marksIn(db: Queryable, venueId: string): Promise<LiveMarks> {
    return this.loaded.peek(venueId) ?? this.load(venueId, db);
  }

  /**
   * The state now for these categories (a menu version's scheduled ones), the same object while
   * nothing changes: no mark ends and no category opens or closes.
   */
  stateNow(live: LiveMarks, categories: readonly ScheduledCategory[]): AvailabilityState {
    const now = this.clock();
    const kept = live.states.get(categories);
    if (kept && kept.at <= now && now < kept.validUntil) return kept;
    const state = stateAt(live.marks, categories, live.timeZone, now);
    live.states.set(categories, state);
    return state;
  }

  /** The state at another moment (a scheduled order's), not kept. */
  stateAt(live: LiveMarks, categories: readonly ScheduledCategory[], at: number): AvailabilityState {
    return stateAt(live.marks, categories, live.timeZone, at);
  }

  async list(venueId: string): Promise<AvailabilityListValue> {
    const { rows } = await this.marks(venueId);
    const now = this.clock();
    const item = (r: MarkRow): SoldOutItemValue => ({
      ref: r.external_id ?? r.id,
      id: r.id,
      externalId: r.external_id,
      name: r.name,
      until: r.until === null ? null : r.until.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    });
    const current = rows
      .filter((r) => r.until === null || r.until.getTime() > now)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
    return {
      products: current.filter((r) => r.kind === 'product').map(item),
      ingredients: current.filter((r) => r.kind === 'ingredient').map(item),
    };
  }

  /** PUT /v1/availability: all or nothing; counts the entries whose state changed. */
  async set(actor: Actor, input: AvailabilityPutInput): Promise<AvailabilityPutResultValue> {
    const venueId = actor.venue.venueId;
    const now = this.clock();
    const problems: string[] = [];
    for (const section of ['products', 'ingredients'] as const) {
      (input[section] ?? []).forEach((m, i) => {
        if (m.until === undefined || m.until === null) return;
        const path = `${section}[${i}].until`;
        const until = Date.parse(m.until);
        if (m.available) problems.push(`${path} is only for available false`);
        else if (until <= now) problems.push(`${path} must be in the future`);
        else if (until > now + AVAILABILITY_MAX_AHEAD_MS) problems.push(`${path} must be at most 30 days ahead`);
      });
    }
    if (problems.length > 0) throw errors.validation(problems);
    const notify = await this.events.wanted(venueId, 'menu.availability_changed');
    let queued = 0;
    const result = await this.db.transaction(
      async (tx) => {
        const current = new Map((await allMarks(tx, venueId)).rows.map((r) => [`${r.kind}:${r.id}`, r]));
        const changed: Record<MarkKind, { ref: string; id: string; available: boolean; until: string | null }[]> = {
          product: [],
          ingredient: [],
        };
        const missing: string[] = [];
        for (const [section, kind] of Object.entries(SECTIONS) as [keyof typeof SECTIONS, MarkKind][]) {
          const entries = input[section] ?? [];
          const found = await this.itemKeysByRefs(
            tx,
            venueId,
            section,
            entries.map((e) => e.ref),
          );
          // The last entry for an item wins, as a sequence of toggles would.
          const last = new Map<string, { entry: MarkInput; ref: string }>();
          entries.forEach((e, i) => {
            const row = found.get(e.ref);
            if (!row) missing.push(`${section}[${i}].ref "${e.ref}" not found`);
            else last.set(row.id, { entry: e, ref: e.ref });
          });
          if (missing.length > 0) continue;
          const sets: { id: string; until: string | null }[] = [];
          const clears: string[] = [];
          for (const [id, { entry, ref }] of last) {
            const mark = current.get(`${kind}:${id}`);
            const active = mark !== undefined && (mark.until === null || mark.until.getTime() > now);
            if (entry.available) {
              if (mark) clears.push(id);
              if (active) changed[kind].push({ ref, id, available: true, until: null });
              continue;
            }
            const until = entry.until ? instantOf(entry.until).toISOString() : null;
            if (active && (mark.until?.toISOString() ?? null) === until) continue;
            sets.push({ id, until });
            changed[kind].push({ ref, id, available: false, until });
          }
          await upsertMarks(tx, venueId, kind, sets);
          await deleteMarks(tx, venueId, kind, clears);
        }
        if (missing.length > 0) throw errors.validation(missing);
        const counts = { products: { updated: changed.product.length }, ingredients: { updated: changed.ingredient.length } };
        if (changed.product.length + changed.ingredient.length > 0) {
          await audit(tx, actor, [
            {
              action: 'availability.update',
              entityType: 'availability',
              changes: {
                products: counts.products.updated,
                ingredients: counts.ingredients.updated,
                refs: [...changed.product, ...changed.ingredient].map((c) => c.ref),
              },
            },
          ]);
          if (notify)
            queued = await this.events.record(tx, venueId, 'menu.availability_changed', {
              products: changed.product,
              ingredients: changed.ingredient,
            });
        }
        return counts;
      },
      { venueId },
    );
    this.events.queued(venueId, queued);
    return result;
  }
}
