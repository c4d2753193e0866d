// A deterministic POST /v1/sync workload: the same seed always gives the same body, so tests and
// benchmarks compare like with like. No runtime dependencies (the schema import is types only).
import type { SyncInput } from '../src/modules/menu/menu.schemas.js';

export type SyncBody = SyncInput;
export type CategoryItem = NonNullable<SyncInput['categories']>[number];
export type IngredientItem = NonNullable<SyncInput['ingredients']>[number];
export type ProductItem = NonNullable<SyncInput['products']>[number];
export type ModifierGroupItem = NonNullable<ProductItem['modifierGroups']>[number];
export type ModifierOptionItem = ModifierGroupItem['options'][number];
type ScheduleItem = NonNullable<CategoryItem['schedule']>[number];

export interface FixtureOptions {
  seed: number;
  products?: number;
  categories?: number;
  ingredients?: number;
  groupsPerProduct?: number;
  optionsPerGroup?: number;
  ingredientRefsPerProduct?: number;
  /** Locales every entity gets translations in (they must be enabled for the venue). */
  locales?: readonly string[];
  /** Prepended to every externalId, so one venue can take several disjoint fixtures. */
  idPrefix?: string;
}

/** mulberry32: a tiny, fast, well-distributed 32-bit PRNG; [0, 1) like Math.random. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** k distinct integers from [0, n), in draw order (partial Fisher-Yates). */
  sample(n: number, k: number): number[] {
    const pool = Array.from({ length: n }, (_, i) => i);
    const count = Math.min(k, n);
    for (let i = 0; i < count; i += 1) {
      const j = i + Math.floor(this.next() * (n - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, count);
  }
}

// Parallel word lists: index i of every language names the same thing.
type Words = { en: readonly string[] } & Record<string, readonly string[]>;

const ADJECTIVES: Words = {
  en: ['Classic', 'Spicy', 'Smoked', 'Grilled', 'Crispy', 'Creamy', 'Roasted', 'Homemade', 'Garden', 'Truffle', 'Golden', 'Rustic'],
  uk: [
    'Класичний',
    'Гострий',
    'Копчений',
    'Гриль',
    'Хрумкий',
    'Вершковий',
    'Запечений',
    'Домашній',
    'Садовий',
    'Трюфельний',
    'Золотий',
    'Сільський',
  ],
  es: [
    'Clásico',
    'Picante',
    'Ahumado',
    'A la parrilla',
    'Crujiente',
    'Cremoso',
    'Asado',
    'Casero',
    'De la huerta',
    'Trufado',
    'Dorado',
    'Rústico',
  ],
};
const DISHES: Words = {
  en: [
    'Burger',
    'Pizza',
    'Salad',
    'Soup',
    'Pasta',
    'Risotto',
    'Steak',
    'Sandwich',
    'Wrap',
    'Taco',
    'Curry',
    'Omelette',
    'Pancakes',
    'Lemonade',
    'Latte',
    'Cheesecake',
  ],
  uk: [
    'Бургер',
    'Піца',
    'Салат',
    'Суп',
    'Паста',
    'Різото',
    'Стейк',
    'Сендвіч',
    'Рол',
    'Тако',
    'Карі',
    'Омлет',
    'Млинці',
    'Лимонад',
    'Лате',
    'Чизкейк',
  ],
  es: [
    'Hamburguesa',
    'Pizza',
    'Ensalada',
    'Sopa',
    'Pasta',
    'Risotto',
    'Filete',
    'Sándwich',
    'Wrap',
    'Taco',
    'Curry',
    'Tortilla',
    'Tortitas',
    'Limonada',
    'Café con leche',
    'Tarta de queso',
  ],
};
const INGREDIENTS: Words = {
  en: [
    'Mozzarella',
    'Cheddar',
    'Bacon',
    'Tomato',
    'Onion',
    'Jalapeño',
    'Mushrooms',
    'Avocado',
    'Egg',
    'Chicken',
    'Basil',
    'Garlic',
    'Olives',
    'Pickles',
    'Spinach',
    'Parmesan',
  ],
  uk: [
    'Моцарела',
    'Чедер',
    'Бекон',
    'Томат',
    'Цибуля',
    'Халапеньо',
    'Гриби',
    'Авокадо',
    'Яйце',
    'Курка',
    'Базилік',
    'Часник',
    'Оливки',
    'Корнішони',
    'Шпинат',
    'Пармезан',
  ],
  es: [
    'Mozzarella',
    'Cheddar',
    'Beicon',
    'Tomate',
    'Cebolla',
    'Jalapeño',
    'Champiñones',
    'Aguacate',
    'Huevo',
    'Pollo',
    'Albahaca',
    'Ajo',
    'Aceitunas',
    'Pepinillos',
    'Espinaca',
    'Parmesano',
  ],
};
const CATEGORIES: Words = {
  en: ['Starters', 'Mains', 'Pizza', 'Burgers', 'Salads', 'Soups', 'Desserts', 'Drinks', 'Coffee', 'Breakfast', 'Kids', 'Specials'],
  uk: [
    'Закуски',
    'Основні страви',
    'Піца',
    'Бургери',
    'Салати',
    'Супи',
    'Десерти',
    'Напої',
    'Кава',
    'Сніданки',
    'Дитяче меню',
    'Спецпропозиції',
  ],
  es: [
    'Entrantes',
    'Principales',
    'Pizza',
    'Hamburguesas',
    'Ensaladas',
    'Sopas',
    'Postres',
    'Bebidas',
    'Café',
    'Desayunos',
    'Infantil',
    'Especiales',
  ],
};
const SERVED: Record<string, string> = { en: 'served hot', uk: 'подається гарячим', es: 'servido caliente' };
const AND: Record<string, string> = { en: 'and', uk: 'та', es: 'y' };
const BADGES: Words = {
  en: ['NEW', 'HOT', 'VEGAN', "CHEF'S PICK", 'BESTSELLER'],
  uk: ['НОВИНКА', 'ГОСТРЕ', 'ВЕГАН', 'ВІД ШЕФА', 'ХІТ'],
  es: ['NUEVO', 'PICANTE', 'VEGANO', 'DEL CHEF', 'MÁS VENDIDO'],
};
const GROUP_NAMES: Record<ModifierGroupType, Record<string, string>> = {
  single_choice: { en: 'Size', uk: 'Розмір', es: 'Tamaño' },
  add_ingredients: { en: 'Extras', uk: 'Додатки', es: 'Extras' },
  remove_ingredients: { en: 'Remove', uk: 'Прибрати', es: 'Quitar' },
};
const GROUP_TYPES = ['single_choice', 'add_ingredients', 'remove_ingredients'] as const;
type ModifierGroupType = (typeof GROUP_TYPES)[number];
const BADGE_COLORS = ['RED', 'PURPLE', 'YELLOW', 'GREEN', 'BLUE', 'GREY'] as const;
const CARD_STYLES = ['minimalism', 'compact', 'premium'] as const;
// The food information codes (the reference's lists), kept here so the fixture has no runtime import.
const ALLERGENS = [
  'gluten',
  'crustaceans',
  'eggs',
  'fish',
  'peanuts',
  'soybeans',
  'milk',
  'nuts',
  'celery',
  'mustard',
  'sesame',
  'sulphites',
  'lupin',
  'molluscs',
] as const;
const DIETARY_LABELS = ['vegetarian', 'vegan', 'gluten_free', 'lactose_free', 'halal', 'kosher'] as const;
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** A word in `locale`, or the English one tagged with the locale when the list lacks it. */
function word(words: Words, index: number, locale: string): string {
  const list = words[locale];
  return list ? list[index % list.length] : `${words.en[index % words.en.length]} (${locale})`;
}

function phrase(dict: Record<string, string>, locale: string): string {
  return dict[locale] ?? `${dict.en} (${locale})`;
}

/** `base` for the first round of a list, then `base 2`, `base 3`, ... */
function numbered(base: string, index: number, listLength: number): string {
  const round = Math.floor(index / listLength);
  return round === 0 ? base : `${base} ${round + 1}`;
}

function pad(n: number): string {
  return String(n).padStart(4, '0');
}

export function categoryExternalId(i: number, prefix = ''): string {
  return `${prefix}cat-${pad(i)}`;
}
export function ingredientExternalId(i: number, prefix = ''): string {
  return `${prefix}ing-${pad(i)}`;
}
export function productExternalId(i: number, prefix = ''): string {
  return `${prefix}prod-${pad(i)}`;
}

/** k distinct codes of `codes`, in the list's order. */
function codes<T>(rng: Rng, list: readonly T[], k: number): T[] {
  return rng
    .sample(list.length, k)
    .sort((a, b) => a - b)
    .map((i) => list[i]);
}

/** Food information for every product: allergens, traces, labels, spice, calories and nutrition. */
function foodInformation(
  rng: Rng,
): Pick<ProductItem, 'allergens' | 'mayContain' | 'dietaryLabels' | 'spiceLevel' | 'calories' | 'nutrition'> {
  const grams = (max: number) => rng.int(0, max * 10) / 10;
  return {
    allergens: codes(rng, ALLERGENS, rng.int(1, 4)),
    mayContain: codes(rng, ALLERGENS, rng.int(0, 2)),
    dietaryLabels: codes(rng, DIETARY_LABELS, rng.int(0, 2)),
    spiceLevel: rng.int(0, 3),
    calories: rng.int(50, 1200),
    nutrition: {
      fat: grams(60),
      saturatedFat: grams(20),
      carbohydrate: grams(120),
      sugars: grams(40),
      fibre: grams(15),
      protein: grams(60),
      salt: grams(5),
    },
  };
}

function schedule(rng: Rng): ScheduleItem[] {
  const open = `${String(rng.int(7, 11)).padStart(2, '0')}:${rng.pick(['00', '30'])}`;
  const close = `${String(rng.int(20, 23)).padStart(2, '0')}:${rng.pick(['00', '30'])}`;
  const closedDay = rng.int(0, 6);
  return DAYS.map((day, d) => (d === closedDay ? { day, isOpen: false } : { day, isOpen: true, openTime: open, closeTime: close }));
}

/** The request body of one full-menu sync: categories, then ingredients, then products. */
export function menuFixture(options: FixtureOptions): SyncBody {
  const {
    seed,
    products = 500,
    categories = 200,
    ingredients = 200,
    groupsPerProduct = 3,
    optionsPerGroup = 8,
    ingredientRefsPerProduct = 6,
    locales = ['uk', 'es'],
    idPrefix = '',
  } = options;
  const rng = new Rng(seed);
  // Food information draws from its own stream, so the rest of a seed's menu is what it was before these fields.
  const food = new Rng(seed ^ 0x5eed_f00d);
  const translate = (make: (locale: string) => Record<string, string>) =>
    locales.length === 0 ? undefined : Object.fromEntries(locales.map((l) => [l, make(l)]));

  const categoryItems: CategoryItem[] = Array.from({ length: categories }, (_, i) => {
    const w = i % CATEGORIES.en.length;
    const item: CategoryItem = {
      externalId: categoryExternalId(i, idPrefix),
      name: numbered(word(CATEGORIES, w, 'en'), i, CATEGORIES.en.length),
      sortOrder: i,
    };
    if (i % 4 === 0) item.schedule = schedule(rng);
    if (rng.chance(0.3)) item.cardStyle = rng.chance(0.2) ? null : rng.pick(CARD_STYLES);
    if (rng.chance(0.05)) item.isActive = false;
    const translations = translate((l) => ({ name: numbered(word(CATEGORIES, w, l), i, CATEGORIES.en.length) }));
    if (translations) item.translations = translations;
    return item;
  });

  const ingredientWord: number[] = [];
  const ingredientItems: IngredientItem[] = Array.from({ length: ingredients }, (_, i) => {
    const w = i % INGREDIENTS.en.length;
    ingredientWord.push(w);
    const item: IngredientItem = {
      externalId: ingredientExternalId(i, idPrefix),
      name: numbered(word(INGREDIENTS, w, 'en'), i, INGREDIENTS.en.length),
    };
    if (rng.chance(0.5)) item.sortOrder = rng.int(0, 50);
    item.allergens = codes(food, ALLERGENS, food.int(0, 2));
    const translations = translate((l) => ({ name: numbered(word(INGREDIENTS, w, l), i, INGREDIENTS.en.length) }));
    if (translations) item.translations = translations;
    return item;
  });

  const describe = (refs: number[], locale: string) => {
    const names = refs.slice(0, 3).map((r) => word(INGREDIENTS, ingredientWord[r], locale));
    const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} ${phrase(AND, locale)} ${names[names.length - 1]}` : names.join('');
    return list ? `${list}, ${phrase(SERVED, locale)}.` : `${phrase(SERVED, locale)}.`;
  };

  const productItems: ProductItem[] = Array.from({ length: products }, (_, i) => {
    const adjective = rng.int(0, ADJECTIVES.en.length - 1);
    const dish = rng.int(0, DISHES.en.length - 1);
    const nameIn = (l: string) => `${word(ADJECTIVES, adjective, l)} ${word(DISHES, dish, l)}`;
    const refs = rng.sample(ingredients, ingredientRefsPerProduct);
    const priceMinor = rng.int(10, 900) * 50;
    const item: ProductItem = {
      externalId: productExternalId(i, idPrefix),
      name: nameIn('en'),
      description: describe(refs, 'en'),
      priceMinor,
      sortOrder: i,
      ingredientExternalIds: refs.map((r) => ingredientExternalId(r, idPrefix)),
    };
    if (categories > 0) item.categoryExternalId = categoryExternalId(rng.int(0, categories - 1), idPrefix);
    if (rng.chance(0.15)) {
      item.salePriceMinor = Math.round((priceMinor * 0.8) / 10) * 10;
      item.isSaleActive = rng.chance(0.7);
    }
    if (rng.chance(0.7)) {
      item.unit = rng.pick(['PCS', 'G', 'ML'] as const);
      item.amount = item.unit === 'PCS' ? rng.int(1, 12) : rng.int(5, 100) * 10;
    }
    let badge = -1;
    if (rng.chance(0.1)) {
      badge = rng.int(0, BADGES.en.length - 1);
      item.badgeLabel = word(BADGES, badge, 'en');
      item.badgeColor = rng.pick(BADGE_COLORS);
    }
    if (rng.chance(0.03)) item.menuVisible = false;
    Object.assign(item, foodInformation(food));
    const translations = translate((l) => ({
      name: nameIn(l),
      description: describe(refs, l),
      ...(badge >= 0 ? { badgeLabel: word(BADGES, badge, l).slice(0, 16) } : {}),
    }));
    if (translations) item.translations = translations;
    if (groupsPerProduct > 0) {
      item.modifierGroups = Array.from({ length: groupsPerProduct }, (_, g) =>
        modifierGroup(rng, g, ingredients, optionsPerGroup, locales, idPrefix),
      );
    }
    return item;
  });

  return { categories: categoryItems, ingredients: ingredientItems, products: productItems };
}

function modifierGroup(
  rng: Rng,
  index: number,
  ingredients: number,
  optionsPerGroup: number,
  locales: readonly string[],
  idPrefix: string,
): ModifierGroupItem {
  const type = GROUP_TYPES[index % GROUP_TYPES.length];
  const round = Math.floor(index / GROUP_TYPES.length);
  const nameIn = (l: string) => {
    const base = phrase(GROUP_NAMES[type], l);
    return round === 0 ? base : `${base} ${round + 1}`;
  };
  const options: ModifierOptionItem[] = rng.sample(ingredients, optionsPerGroup).map((ing, o) => {
    const option: ModifierOptionItem = { ingredientExternalId: ingredientExternalId(ing, idPrefix) };
    if (type === 'single_choice') {
      // Sizes: the first is cheaper than the base price, the rest dearer; the second is preselected.
      option.priceAdjustment = o === 0 ? -rng.int(1, 4) * 50 : o * 250;
      if (o === 1) option.isDefault = true;
    } else if (type === 'add_ingredients') {
      option.priceAdjustment = rng.int(1, 20) * 50;
      if (rng.chance(0.5)) option.action = 'add';
    } else {
      option.action = 'remove';
    }
    return option;
  });
  const group: ModifierGroupItem = { name: nameIn('en'), type, options };
  if (type === 'single_choice') group.isRequired = rng.chance(0.8);
  // Modifier rules, drawn from no stream so the rest of a seed's menu stays the same.
  if (type === 'add_ingredients')
    Object.assign(group, { maxSelections: Math.min(50, Math.max(1, options.length - 2)), maxQuantityPerOption: 3 });
  if (locales.length > 0) group.translations = Object.fromEntries(locales.map((l) => [l, { name: nameIn(l) }]));
  return group;
}

export interface Mutation {
  body: SyncBody;
  /** How many products differ from the input: exactly Math.round(products * fraction). */
  changed: number;
  changedIds: string[];
}

/**
 * A copy of `body` with a seeded choice of products changed (every one gets a new price, about
 * half a new name too). Categories and ingredients are copied unchanged.
 */
export function mutate(body: SyncBody, fraction: number, seed: number): Mutation {
  const copy = structuredClone(body);
  const products = copy.products ?? [];
  const rng = new Rng(seed);
  const chosen = rng.sample(products.length, Math.round(products.length * fraction)).sort((a, b) => a - b);
  for (const index of chosen) {
    const p = products[index];
    const step = rng.int(1, 20) * 10;
    p.priceMinor = p.priceMinor + step <= 100_000_000 ? p.priceMinor + step : p.priceMinor - step;
    if (rng.chance(0.5)) p.name = p.name.endsWith(' (new recipe)') ? p.name.slice(0, -' (new recipe)'.length) : `${p.name} (new recipe)`;
  }
  return { body: copy, changed: chosen.length, changedIds: chosen.map((i) => products[i].externalId) };
}
