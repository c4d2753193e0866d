// What is available when, pure: sold-out marks and category schedules in, the
// availability of products, options and ingredients at one instant out. The menu reads, the guest
// menu and order placement all judge by this one file.
import { createHash } from 'node:crypto';
import { ORDERING_HORIZON_MS } from '../../limits.js';
import { MAX_OPTION_QUANTITY, rulesOf } from '../../shared/modifier-rules.js';
import { AVAILABILITY_REASONS, type AvailabilityReason, type AvailabilityValue } from './availability.schemas.js';
import { sharedHours, type WeeklyHours } from '../../shared/opening-hours.js';

/** A state is recomputed at least this often, so a horizon (14 days) moving with the clock is seen. */
const MAX_VALIDITY_MS = 3_600_000;

/** Until when a state computed at `at` holds: the first boundary after it (a mark ending, hours turning), an hour at most. */
export class Validity {
  until: number;

  constructor(private readonly at: number) {
    this.until = at + MAX_VALIDITY_MS;
  }

  boundary(t: number | null): void {
    if (t !== null && t > this.at && t < this.until) this.until = t;
  }
}

/** An instant as the API writes it; null stays null. */
export const isoOrNull = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** The venue's sold-out marks, expired ones included (a read compares them with the clock). */
export interface Marks {
  /** product id -> until (ms; null: until marked available). */
  products: ReadonlyMap<string, number | null>;
  /** ingredient id -> its externalId and until. */
  ingredients: ReadonlyMap<string, { externalId: string | null; until: number | null }>;
}

export const NO_MARKS: Marks = { products: new Map(), ingredients: new Map() };

/** A category and its schedule (weekly hours in the venue's timezone; [] is always open). */
export interface ScheduledCategory {
  id: string;
  schedule: WeeklyHours[];
}

/** What holds at `at`, and until when nothing of it changes. */
export interface AvailabilityState {
  at: number;
  /** The next instant a mark ends or a category opens or closes (capped): the state is valid in [at, validUntil). */
  validUntil: number;
  /** Sold-out products at `at`, with when their mark ends. */
  products: Map<string, number | null>;
  /** Sold-out ingredients at `at`, by id and by externalId (compositions and options name them by externalId). */
  ingredientIds: Map<string, number | null>;
  ingredientExternalIds: Map<string, number | null>;
  /** Categories outside their schedule at `at`, with their next opening (null: none within 14 days). */
  closedCategories: Map<string, number | null>;
  /** The same state gives the same key, on every instance: a cache version. */
  key: string;
}

const live = (until: number | null, at: number) => until === null || until > at;

/** The state at `at` of these marks and categories, in the venue's timezone. */
export function stateAt(marks: Marks, categories: readonly ScheduledCategory[], timeZone: string, at: number): AvailabilityState {
  const validity = new Validity(at);
  const products = new Map<string, number | null>();
  for (const [id, until] of marks.products) {
    validity.boundary(until);
    if (live(until, at)) products.set(id, until);
  }
  const ingredientIds = new Map<string, number | null>();
  const ingredientExternalIds = new Map<string, number | null>();
  for (const [id, { externalId, until }] of marks.ingredients) {
    validity.boundary(until);
    if (!live(until, at)) continue;
    ingredientIds.set(id, until);
    if (externalId !== null) ingredientExternalIds.set(externalId, until);
  }
  const closedCategories = new Map<string, number | null>();
  for (const c of categories) {
    if (c.schedule.length === 0) continue;
    const hours = sharedHours(c.schedule, timeZone);
    validity.boundary(hours.nextChange(at, validity.until - at));
    if (!hours.isOpenAt(at)) closedCategories.set(c.id, hours.opensAt(at, ORDERING_HORIZON_MS));
  }
  const list = (m: Map<string, number | null>) =>
    [...m]
      .map(([id, until]) => `${id}@${until ?? ''}`)
      .sort()
      .join(',');
  // A short digest: the guest menu's cache version carries it, compared on every read.
  const key = createHash('sha1')
    .update(`${list(products)};${list(ingredientIds)};${list(closedCategories)}`)
    .digest('base64url')
    .slice(0, 16);
  return { at, validUntil: validity.until, products, ingredientIds, ingredientExternalIds, closedCategories, key };
}

/** The categories of a menu document that have a schedule (the only ones a state needs). */
export function scheduledCategories(doc: { categories: readonly ScheduledCategory[] }): ScheduledCategory[] {
  return doc.categories.filter((c) => c.schedule.length > 0).map((c) => ({ id: c.id, schedule: c.schedule }));
}

export const AVAILABLE: AvailabilityValue = Object.freeze({ available: true, until: null, reason: null });

function unavailable(reason: AvailabilityReason, until: number | null): AvailabilityValue {
  return { available: false, until: isoOrNull(until), reason };
}

// The parts of a menu's items that availability reads: any product, ingredient or option view that has them.
interface OptionLike {
  action: string;
  ingredientExternalId: string | null;
}
interface ProductLike {
  id: string;
  categoryId: string | null;
  ingredients: readonly { externalId: string | null }[];
  modifierGroups: readonly (Parameters<typeof rulesOf>[0] & { options: readonly OptionLike[] })[];
}
interface MenuLike {
  ingredients: readonly { id: string }[];
  products: readonly ProductLike[];
}

/** An option is unavailable while the ingredient it adds is sold out; `remove` options stay available. */
export function optionAvailability(option: OptionLike, state: AvailabilityState): AvailabilityValue {
  if (option.action !== 'add' || option.ingredientExternalId === null) return AVAILABLE;
  const until = state.ingredientExternalIds.get(option.ingredientExternalId);
  return until === undefined ? AVAILABLE : unavailable('ingredient_sold_out', until);
}

/**
 * When a group whose minSelections its available options cannot give gets enough
 * options back: undefined while it can be met, null when no end is known. A group with no options
 * at all requires nothing (sync keeps it with a warning).
 */
function requiredChoiceUntil(group: ProductLike['modifierGroups'][number], state: AvailabilityState): number | null | undefined {
  const { minSelections, maxQuantityPerOption } = rulesOf(group);
  if (minSelections === 0 || group.options.length === 0) return undefined;
  const perOption = maxQuantityPerOption ?? MAX_OPTION_QUANTITY;
  const options = group.options.map((o) => optionAvailability(o, state));
  const missing = Math.ceil(minSelections / perOption) - options.filter((o) => o.available).length;
  if (missing <= 0) return undefined;
  const ends = options.flatMap((o) => (o.available || o.until === null ? [] : [Date.parse(o.until)])).sort((a, b) => a - b);
  return ends.length >= missing ? ends[missing - 1] : null;
}

/**
 * A product's availability: the first reason that applies (its own mark, an ingredient of its
 * composition, a required choice with no option left, its category's schedule), available again
 * once every cause has ended (null when one of them has no known end).
 */
export function productAvailability(product: ProductLike, state: AvailabilityState): AvailabilityValue {
  const causes: { reason: AvailabilityReason; until: number | null }[] = [];
  const own = state.products.get(product.id);
  if (own !== undefined) causes.push({ reason: 'sold_out', until: own });
  if (state.ingredientExternalIds.size > 0) {
    for (const i of product.ingredients) {
      const until = i.externalId === null ? undefined : state.ingredientExternalIds.get(i.externalId);
      if (until !== undefined) causes.push({ reason: 'ingredient_sold_out', until });
    }
    for (const group of product.modifierGroups) {
      const until = requiredChoiceUntil(group, state);
      if (until !== undefined) causes.push({ reason: 'required_choice_unavailable', until });
    }
  }
  const category = product.categoryId === null ? undefined : state.closedCategories.get(product.categoryId);
  if (category !== undefined) causes.push({ reason: 'category_schedule', until: category });
  if (causes.length === 0) return AVAILABLE;
  const first = causes.reduce((a, b) => (AVAILABILITY_REASONS.indexOf(b.reason) < AVAILABILITY_REASONS.indexOf(a.reason) ? b : a));
  const until = causes.some((c) => c.until === null) ? null : Math.max(...causes.map((c) => c.until as number));
  return unavailable(first.reason, until);
}

export function ingredientAvailability(ingredient: { id: string }, state: AvailabilityState): AvailabilityValue {
  const until = state.ingredientIds.get(ingredient.id);
  return until === undefined ? AVAILABLE : unavailable('sold_out', until);
}

/** A product read with availability on it and on its options. */
export function withProductAvailability<P extends ProductLike>(
  product: P,
  state: AvailabilityState,
): P & { availability: AvailabilityValue } {
  return {
    ...product,
    modifierGroups: product.modifierGroups.map((g) => ({
      ...g,
      options: g.options.map((o) => ({ ...o, availability: optionAvailability(o, state) })),
    })),
    availability: productAvailability(product, state),
  };
}

/** A menu document read with availability on every product, option and ingredient. */
export function withAvailability<D extends MenuLike>(doc: D, state: AvailabilityState): D {
  return {
    ...doc,
    ingredients: doc.ingredients.map((i) => ({ ...i, availability: ingredientAvailability(i, state) })),
    products: doc.products.map((p) => withProductAvailability(p, state)),
  };
}
