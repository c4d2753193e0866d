// The diff of two menu documents: pure, on the menu read shape, so a
// snapshot, the published menu and the draft compare alike.
import { jsonEqual, stableStringify } from '../../stable-json.js';
import { urlFile } from '../media/index.js';
import type { MenuDocumentValue, ProductViewValue } from './menu.schemas.js';
import { documentSlices, type ItemSlice } from './document-slices.js';
import { ingredientWithDefaults, productWithDefaults, withReadDefaults } from './menu.views.js';
import type { MenuDiffSectionsValue, SectionDiffValue } from './publications.schemas.js';

type CategoryView = MenuDocumentValue['categories'][number];
type IngredientView = MenuDocumentValue['ingredients'][number];
type GroupView = ProductViewValue['modifierGroups'][number];
type OptionView = GroupView['options'][number];
type ImageView = ProductViewValue['image'];

type Same<V> = (a: V, b: V) => boolean;

/**
 * How each read-shape field compares; null for those a diff never lists: ids, updatedAt, names copied from another item, fields derived from others and live
 * availability. Every field of the view must be named, so a field added to a view is a compile
 * error here until someone decides how it compares.
 */
type FieldRules<T> = { [K in keyof T]-?: Same<T[K]> | null };

/** Compared fields in alphabetical order, the order `fields` lists them in. */
type Compared<T> = readonly { name: keyof T & string; same: Same<unknown> }[];

function compared<T>(rules: FieldRules<T>): Compared<T> {
  return (Object.keys(rules) as (keyof T & string)[])
    .filter((name) => rules[name] !== null)
    .sort()
    .map((name) => ({ name, same: rules[name] as Same<unknown> }));
}

/** Structural, whatever the key order (translations, schedules, nutrition read back from jsonb). */
const value: Same<unknown> = jsonEqual;

/**
 * Image URLs are `<base>/<venueId>/<sha256>.webp` (stored-image.ts): nothing signed or expiring,
 * but the base follows MEDIA_PUBLIC_URL when the document is built, and a snapshot keeps the URLs
 * it was published with. The file name is the hash of the bytes: it is what identifies an image,
 * so a change of base is no change of image.
 */
function sameImageUrl(a: string | null, b: string | null): boolean {
  return a === null || b === null ? a === b : urlFile(a) === urlFile(b);
}

// Snapshots published before images existed have no `image` (withReadDefaults does not add it): read as null.
function sameImage(a: ImageView | undefined, b: ImageView | undefined): boolean {
  if (!a || !b) return (a ?? null) === (b ?? null);
  return (
    a.width === b.width &&
    a.height === b.height &&
    a.bytes === b.bytes &&
    sameImageUrl(a.imageUrl, b.imageUrl) &&
    a.variants.length === b.variants.length &&
    a.variants.every((v, i) => {
      const w = b.variants[i];
      return v.width === w.width && v.height === w.height && v.bytes === w.bytes && sameImageUrl(v.url, w.url);
    })
  );
}

/** A composition compares as its list of ingredient externalIds; the names are the ingredients'. */
function sameIngredientRefs(a: ProductViewValue['ingredients'], b: ProductViewValue['ingredients']): boolean {
  return a.length === b.length && a.every((x, i) => x.externalId === b[i].externalId);
}

/** Whether a diff compares each field of a modifier group or option; every field named, as above. */
type Kept<T> = { [K in keyof T]-?: boolean };

// Options keep what the integrator sends; ids, the ingredient's name and allergens, and live
// availability are not theirs.
const OPTION_KEPT: Kept<OptionView> = {
  id: false,
  ingredientExternalId: true,
  ingredientName: false,
  action: true,
  priceAdjustment: true,
  sortOrder: true,
  allergens: false,
  isDefault: true,
  availability: false,
};

const GROUP_KEPT: Kept<GroupView> = {
  id: false,
  name: true,
  type: true,
  isRequired: true,
  minSelections: true,
  maxSelections: true,
  maxQuantityPerOption: true,
  sortOrder: true,
  translations: true,
  options: true,
};

// OPTION_KEPT and GROUP_KEPT written out (the tests change each field): options are most of a
// menu's values, and named reads compare them about three times as fast as a loop over the names.
function sameOption(a: OptionView, b: OptionView): boolean {
  return (
    a.ingredientExternalId === b.ingredientExternalId &&
    a.action === b.action &&
    a.priceAdjustment === b.priceAdjustment &&
    a.sortOrder === b.sortOrder &&
    a.isDefault === b.isDefault
  );
}

function sameGroup(a: GroupView, b: GroupView): boolean {
  return (
    a.name === b.name &&
    a.type === b.type &&
    a.isRequired === b.isRequired &&
    a.minSelections === b.minSelections &&
    a.maxSelections === b.maxSelections &&
    a.maxQuantityPerOption === b.maxQuantityPerOption &&
    a.sortOrder === b.sortOrder &&
    jsonEqual(a.translations, b.translations) &&
    sameList(a.options, b.options, sameOption, (x, y) => x.sortOrder === y.sortOrder, optionKey)
  );
}

const keptNames = <T>(kept: Kept<T>) => (Object.keys(kept) as (keyof T)[]).filter((name) => kept[name]);
const OPTION_KEYS = keptNames(OPTION_KEPT);
const GROUP_KEYS_BUT_OPTIONS = keptNames(GROUP_KEPT).filter((name) => name !== 'options');

function pick<T>(item: T, names: (keyof T)[]): Partial<T> {
  const picked: Partial<T> = {};
  for (const name of names) picked[name] = item[name];
  return picked;
}

/** An option's kept fields as canonical JSON. */
function optionKey(o: OptionView): string {
  return stableStringify(pick(o, OPTION_KEYS));
}

/** A group's kept fields as canonical JSON, its options in canonical order. */
function groupKey(g: GroupView): string {
  return stableStringify({ ...pick(g, GROUP_KEYS_BUT_OPTIONS), options: g.options.map(optionKey).sort() });
}

/**
 * Lists in menu order compare item by item. Items that order tells apart only by id (groups of
 * equal sortOrder and name, options of equal sortOrder) come in id order, and ids are
 * new whenever groups are written again: a list with such ties also compares as a multiset of its
 * items' compared fields, so a reshuffle among equals is no change. Only lists that differ item by
 * item pay for that.
 */
function sameList<T>(a: T[], b: T[], same: Same<T>, tied: (x: T, y: T) => boolean, key: (x: T) => string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && same(a[i], b[i])) i += 1;
  if (i === a.length) return true;
  const hasTies = (list: T[]) => list.some((x, j) => j > 0 && tied(list[j - 1], x));
  if (!hasTies(a) && !hasTies(b)) return false;
  const keysA = a.map(key).sort();
  const keysB = b.map(key).sort();
  return keysA.every((k, j) => k === keysB[j]);
}

function sameGroups(a: GroupView[], b: GroupView[]): boolean {
  return sameList(a, b, sameGroup, (x, y) => x.sortOrder === y.sortOrder && x.name === y.name, groupKey);
}

const CATEGORY_FIELDS = compared<CategoryView>({
  id: null,
  externalId: value,
  name: value,
  sortOrder: value,
  schedule: value,
  cardStyle: value,
  isActive: value,
  translations: value,
  updatedAt: null,
});

const INGREDIENT_FIELDS = compared<IngredientView>({
  id: null,
  externalId: value,
  name: value,
  sortOrder: value,
  translations: value,
  allergens: value,
  updatedAt: null,
  availability: null,
});

const PRODUCT_FIELDS = compared<ProductViewValue>({
  id: null,
  externalId: value,
  name: value,
  description: value,
  priceMinor: value,
  salePriceMinor: value,
  isSaleActive: value,
  amount: value,
  unit: value,
  badgeLabel: value,
  badgeColor: value,
  categoryId: null,
  categoryExternalId: value,
  ingredients: sameIngredientRefs,
  modifierGroups: sameGroups,
  sortOrder: value,
  menuVisible: value,
  // imageUrl is the image's largest variant: a new image lists both fields, as both read differently.
  imageUrl: sameImageUrl,
  image: sameImage,
  translations: value,
  allergens: value,
  effectiveAllergens: null,
  mayContain: value,
  dietaryLabels: value,
  spiceLevel: value,
  calories: value,
  nutrition: value,
  updatedAt: null,
  availability: null,
});

const refOf = (item: { id: string; externalId: string | null }): string => item.externalId ?? item.id;

/** An item of a section as a diff reads it: its ref, its serialised bytes when known, and the item. */
interface Entry<T> {
  ref: string;
  bytes?: Buffer;
  item(): T;
}

const entriesOf = <T extends { id: string; externalId: string | null }>(items: T[]): Entry<T>[] =>
  items.map((item) => ({ ref: refOf(item), item: () => item }));

/**
 * Items match by ref. `added` and `changed` follow the order of `to`, `removed` that of `from`:
 * each is its document's menu order, so a section reads like the menu. Two items
 * serialised to the same bytes are the same; any others are compared field by field.
 */
function diffSection<T>(from: Entry<T>[], to: Entry<T>[], fields: Compared<T>): SectionDiffValue {
  const before = new Map<string, Entry<T>>();
  for (const entry of from) before.set(entry.ref, entry);
  const matched = new Set<string>();
  const added: string[] = [];
  const changed: SectionDiffValue['changed'] = [];
  for (const entry of to) {
    const { ref } = entry;
    const old = before.get(ref);
    if (old === undefined) {
      added.push(ref);
      continue;
    }
    matched.add(ref);
    if (old.bytes !== undefined && entry.bytes !== undefined && old.bytes.equals(entry.bytes)) continue;
    const [a, b] = [old.item(), entry.item()];
    let differing: string[] | undefined;
    for (const { name, same } of fields) if (!same(a[name], b[name])) (differing ??= []).push(name);
    if (differing) changed.push({ ref, fields: differing });
  }
  const removed = from.map((e) => e.ref).filter((ref) => !matched.has(ref));
  return { added, removed, changed };
}

/**
 * What changed from one menu document to another. Both are read with today's
 * defaults first (withReadDefaults), so a snapshot published before a field existed shows no change
 * in it. A cleaned-up product is still in the draft, hidden: it is `changed` with `menuVisible`.
 */
export function diffMenus(from: MenuDocumentValue, to: MenuDocumentValue): MenuDiffSectionsValue {
  const a = withReadDefaults(from);
  const b = withReadDefaults(to);
  return {
    categories: diffSection(entriesOf(a.categories), entriesOf(b.categories), CATEGORY_FIELDS),
    ingredients: diffSection(entriesOf(a.ingredients), entriesOf(b.ingredients), INGREDIENT_FIELDS),
    products: diffSection(entriesOf(a.products), entriesOf(b.products), PRODUCT_FIELDS),
  };
}

function slicedEntries<T>(slices: ItemSlice[], withDefaults: (item: T) => T): Entry<T>[] {
  return slices.map(({ ref, bytes }) => ({ ref, bytes, item: () => withDefaults(JSON.parse(bytes.toString('utf8')) as T) }));
}

/**
 * diffMenus on two serialised documents, which parses only the items whose bytes differ
 * (document-slices.ts): unchanged items of two reads of one venue's menus are the same bytes.
 */
export function diffSerialized(from: Buffer, to: Buffer): MenuDiffSectionsValue {
  const [a, b] = [documentSlices(from), documentSlices(to)];
  const same = <T>(item: T) => item;
  return {
    categories: diffSection(
      slicedEntries<CategoryView>(a.categories, same),
      slicedEntries<CategoryView>(b.categories, same),
      CATEGORY_FIELDS,
    ),
    ingredients: diffSection(
      slicedEntries(a.ingredients, ingredientWithDefaults),
      slicedEntries(b.ingredients, ingredientWithDefaults),
      INGREDIENT_FIELDS,
    ),
    products: diffSection(slicedEntries(a.products, productWithDefaults), slicedEntries(b.products, productWithDefaults), PRODUCT_FIELDS),
  };
}
