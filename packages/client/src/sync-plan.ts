// How syncCatalog cuts a catalogue into POST /v1/sync requests: pure, so it is tested on its own.
import type { SyncCategory, SyncIngredient, SyncMenu, SyncProduct } from './types.js';

export type SectionName = 'categories' | 'ingredients' | 'products';
export const SECTIONS: readonly SectionName[] = ['categories', 'ingredients', 'products'];

interface Items {
  categories: SyncCategory;
  ingredients: SyncIngredient;
  products: SyncProduct;
}

/** One item and where it stands in the caller's array (validation errors are mapped back to it). */
export interface Entry<S extends SectionName = SectionName> {
  index: number;
  item: Items[S];
  /** Bytes of the item as JSON. */
  bytes: number;
}

type Sections<T> = { [S in SectionName]: T };
type EntryLists = { [S in SectionName]: Entry<S>[] };

export interface IndexedMenu extends EntryLists {
  /** Request-wide warnings the client produced (repeated externalIds). */
  warnings: string[];
  categoryById: Map<string, Entry<'categories'>>;
  ingredientById: Map<string, Entry<'ingredients'>>;
}

export interface SyncChunk extends EntryLists {
  /**
   * Dry runs only: categories and ingredients sent ahead of this chunk's products so that their
   * references resolve as they would after the earlier chunks were written. Their counts and
   * messages belong to the earlier chunks and are not taken from this one.
   */
  context: { categories: Entry<'categories'>[]; ingredients: Entry<'ingredients'>[] };
}

export interface ChunkLimits extends Sections<number> {
  /** JSON bytes of one request body. */
  bytes: number;
}

/** The array caps, and a body comfortably under the 5 MB cap. */
export const SERVER_CAPS: Sections<number> = { categories: 200, ingredients: 200, products: 500 };
export const DEFAULT_REQUEST_BYTES = 4 * 1024 * 1024;

const ENTITY: Sections<string> = { categories: 'Category', ingredients: 'Ingredient', products: 'Product' };
const encoder = new TextEncoder();

function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}

/**
 * Across chunks, a repeated externalId is sent once, its last occurrence, at the
 * place of its first (what the server does within one request), with the server's warning.
 */
function lastOccurrences<S extends SectionName>(section: S, items: readonly Items[S][] | undefined, warnings: string[]): Entry<S>[] {
  const byId = new Map<string, Entry<S>>();
  const repeated = new Set<string>();
  (items ?? []).forEach((item, index) => {
    if (byId.has(item.externalId)) repeated.add(item.externalId);
    byId.set(item.externalId, { index, item, bytes: jsonBytes(item) });
  });
  for (const id of repeated) warnings.push(`${ENTITY[section]} ${id}: duplicate externalId in the request; the last occurrence wins`);
  return [...byId.values()];
}

export function indexMenu(menu: SyncMenu): IndexedMenu {
  const warnings: string[] = [];
  const categories = lastOccurrences('categories', menu.categories, warnings);
  const ingredients = lastOccurrences('ingredients', menu.ingredients, warnings);
  const products = lastOccurrences('products', menu.products, warnings);
  return {
    categories,
    ingredients,
    products,
    warnings,
    categoryById: new Map(categories.map((e) => [e.item.externalId, e])),
    ingredientById: new Map(ingredients.map((e) => [e.item.externalId, e])),
  };
}

function emptyChunk(): SyncChunk {
  return { categories: [], ingredients: [], products: [], context: { categories: [], ingredients: [] } };
}

export function chunkSize(chunk: SyncChunk): number {
  return chunk.categories.length + chunk.ingredients.length + chunk.products.length;
}

function chunkBytes(chunk: SyncChunk): number {
  let bytes = 64;
  for (const list of [chunk.categories, chunk.ingredients, chunk.products, chunk.context.categories, chunk.context.ingredients]) {
    for (const e of list) bytes += e.bytes + 1;
  }
  return bytes;
}

/** The categories and ingredients of the menu that a product refers to. */
function references(menu: IndexedMenu, product: SyncProduct): { categories: Entry<'categories'>[]; ingredients: Entry<'ingredients'>[] } {
  const categories: Entry<'categories'>[] = [];
  const category = product.categoryExternalId ? menu.categoryById.get(product.categoryExternalId) : undefined;
  if (category) categories.push(category);
  const ingredients = new Set<Entry<'ingredients'>>();
  const add = (ref: string) => {
    const entry = menu.ingredientById.get(ref);
    if (entry) ingredients.add(entry);
  };
  for (const ref of product.ingredientExternalIds ?? []) add(ref);
  for (const group of product.modifierGroups ?? []) for (const option of group.options) add(option.ingredientExternalId);
  return { categories, ingredients: [...ingredients] };
}

/**
 * Adds a product to a chunk if it fits the caps and the byte budget, with (dry runs) the
 * references it needs that the chunk does not carry yet. An empty chunk always takes it.
 */
function tryAddProduct(chunk: SyncChunk, entry: Entry<'products'>, menu: IndexedMenu, limits: ChunkLimits, dryRun: boolean): boolean {
  const extra = { categories: [] as Entry<'categories'>[], ingredients: [] as Entry<'ingredients'>[] };
  if (dryRun) {
    const refs = references(menu, entry.item);
    extra.categories = refs.categories.filter((e) => !chunk.context.categories.includes(e));
    extra.ingredients = refs.ingredients.filter((e) => !chunk.context.ingredients.includes(e));
  }
  const empty = chunkSize(chunk) === 0;
  const fits =
    chunk.products.length + 1 <= limits.products &&
    chunk.context.categories.length + extra.categories.length <= limits.categories &&
    chunk.context.ingredients.length + extra.ingredients.length <= limits.ingredients &&
    chunkBytes(chunk) + entry.bytes + [...extra.categories, ...extra.ingredients].reduce((n, e) => n + e.bytes + 1, 0) <= limits.bytes;
  if (!fits && !empty) return false;
  chunk.products.push(entry);
  // A lone product whose references pass a cap takes what fits; the rest resolve as unknown (a warning).
  chunk.context.categories.push(...extra.categories.slice(0, limits.categories - chunk.context.categories.length));
  chunk.context.ingredients.push(...extra.ingredients.slice(0, limits.ingredients - chunk.context.ingredients.length));
  return true;
}

function tryAdd<S extends 'categories' | 'ingredients'>(chunk: SyncChunk, section: S, entry: Entry<S>, limits: ChunkLimits): boolean {
  const list = chunk[section] as Entry<S>[];
  if (chunkSize(chunk) > 0 && (list.length + 1 > limits[section] || chunkBytes(chunk) + entry.bytes > limits.bytes)) return false;
  list.push(entry);
  return true;
}

/**
 * The requests, in order. Categories and ingredients go first, side by side
 * (within a request they are written before the products, so products that refer to them follow
 * in the same or a later request). A real run lets the products start in the last of those
 * requests; a dry run, which writes nothing, sends each product chunk with the categories and
 * ingredients its products refer to, so its warnings are the ones a real run would give.
 */
export function planChunks(menu: IndexedMenu, limits: ChunkLimits, dryRun: boolean): SyncChunk[] {
  const chunks: SyncChunk[] = [];
  let c = 0;
  let i = 0;
  while (c < menu.categories.length || i < menu.ingredients.length) {
    const chunk = emptyChunk();
    while (c < menu.categories.length && tryAdd(chunk, 'categories', menu.categories[c], limits)) c += 1;
    while (i < menu.ingredients.length && tryAdd(chunk, 'ingredients', menu.ingredients[i], limits)) i += 1;
    chunks.push(chunk);
  }
  let current = !dryRun && chunks.length > 0 ? (chunks.pop() as SyncChunk) : emptyChunk();
  for (const entry of menu.products) {
    if (tryAddProduct(current, entry, menu, limits, dryRun)) continue;
    chunks.push(current);
    current = emptyChunk();
    tryAddProduct(current, entry, menu, limits, dryRun);
  }
  if (chunkSize(current) > 0 || chunks.length === 0) chunks.push(current);
  return chunks;
}

/**
 * A chunk the server could not take (413 SYNC_TOO_LARGE, PAYLOAD_TOO_LARGE) as two halves, in
 * order, so categories and ingredients still precede the products of the second half.
 */
export function splitChunk(chunk: SyncChunk, menu: IndexedMenu, dryRun: boolean): [SyncChunk, SyncChunk] {
  const items: [SectionName, Entry][] = [
    ...chunk.categories.map((e) => ['categories', e] as [SectionName, Entry]),
    ...chunk.ingredients.map((e) => ['ingredients', e] as [SectionName, Entry]),
    ...chunk.products.map((e) => ['products', e] as [SectionName, Entry]),
  ];
  const middle = Math.ceil(items.length / 2);
  const unbounded: ChunkLimits = { categories: Infinity, ingredients: Infinity, products: Infinity, bytes: Infinity };
  const halves = [items.slice(0, middle), items.slice(middle)].map((part) => {
    const half = emptyChunk();
    for (const [section, entry] of part) {
      if (section === 'products') tryAddProduct(half, entry as Entry<'products'>, menu, unbounded, dryRun);
      else (half[section] as Entry[]).push(entry);
    }
    return half;
  });
  return [halves[0], halves[1]];
}

/** The JSON body of a chunk, and for each section the caller's index of every item it sends. */
export function chunkBody(chunk: SyncChunk): { body: SyncMenu; indices: Sections<number[]> } {
  const body: SyncMenu = {};
  const indices: Sections<number[]> = { categories: [], ingredients: [], products: [] };
  const categories = [...chunk.context.categories, ...chunk.categories];
  const ingredients = [...chunk.context.ingredients, ...chunk.ingredients];
  if (categories.length > 0) body.categories = categories.map((e) => e.item);
  if (ingredients.length > 0) body.ingredients = ingredients.map((e) => e.item);
  if (chunk.products.length > 0) body.products = chunk.products.map((e) => e.item);
  indices.categories = categories.map((e) => e.index);
  indices.ingredients = ingredients.map((e) => e.index);
  indices.products = chunk.products.map((e) => e.index);
  return { body, indices };
}

/**
 * Validation messages name positions in the request (`products[3].priceMinor ...`);
 * a chunk's positions are mapped back to the caller's arrays.
 */
export function mapErrorPaths(errors: readonly string[], indices: Sections<number[]>): string[] {
  return errors.map((message) =>
    message.replace(/^(categories|ingredients|products)\[(\d+)\]/, (whole, section: SectionName, position: string) => {
      const index = indices[section][Number(position)];
      return index === undefined ? whole : `${section}[${index}]`;
    }),
  );
}
