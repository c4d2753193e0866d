import { Type, type Static, type TOptional } from 'typebox';
import { DECIMALS_KEYWORD, HhMm, Nullable, StringEnum, Timestamp } from '../../http/schemas/common.js';
import { CLEANUP_ARRAY_CAP, SYNC_ARRAY_CAPS, SYNC_NESTED_CAPS } from '../../limits.js';
import { Availability } from '../availability/index.js';
import { MediaImage } from '../media/index.js';
import {
  ALLERGEN_CODES,
  BADGE_COLORS,
  CARD_STYLES,
  DIETARY_LABEL_CODES,
  NUTRIENTS,
  MODIFIER_TYPES_ACCEPTED,
  MODIFIER_TYPES_CANONICAL,
  UNITS,
} from '../../shared/catalog.js';
import { DAYS } from '../../shared/schedule.js';
import { NameTranslations, ProductTranslations, TEXT_MAX } from './translations.schemas.js';

const ExternalId = Type.String({ minLength: 1, maxLength: 255 });
const Name = Type.String({ minLength: 1, maxLength: TEXT_MAX.name });
const SortOrder = Type.Integer({ minimum: -2147483648, maximum: 2147483647 });
const Money = Type.Integer({ minimum: 0, maximum: 100_000_000 });

export const ScheduleEntry = Type.Object(
  { day: StringEnum(DAYS), isOpen: Type.Boolean(), openTime: Type.Optional(HhMm), closeTime: Type.Optional(HhMm) },
  { additionalProperties: false },
);
export type ScheduleEntryValue = Static<typeof ScheduleEntry>;

// ---- sync input -----------------------------------------------------------------------------

export const CategoryInput = Type.Object(
  {
    externalId: ExternalId,
    name: Name,
    sortOrder: Type.Optional(SortOrder),
    schedule: Type.Optional(Type.Array(ScheduleEntry, { maxItems: 7 })),
    cardStyle: Type.Optional(Nullable(StringEnum(CARD_STYLES))),
    isActive: Type.Optional(Type.Boolean()),
    translations: Type.Optional(NameTranslations),
  },
  { additionalProperties: false },
);
export type CategoryInputValue = Static<typeof CategoryInput>;

/**
 * A list of codes of the reference. Any text passes the schema: an unknown code is
 * the item's own error in a sync (the others are saved) and a 400 on PATCH.
 */
const Codes = (what: string, codes: readonly string[]) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
    maxItems: codes.length,
    uniqueItems: true,
    description: `${what}: codes of GET /v1/reference (${codes.join(', ')}), each once; read in the reference's order; [] clears`,
  });
const AllergenCodes = Codes('Allergens', ALLERGEN_CODES);

// One decimal as `x-decimals` (validation.ts), not `multipleOf: 0.1`, which validators that divide in
// binary floating point refuse for 0.3, 1.2 or 2.9; the published document says it in words.
const Grams = Type.Number({
  minimum: 0,
  maximum: 1000,
  [DECIMALS_KEYWORD]: 1,
  description: 'Grams per portion, at most one decimal (12.5, not 12.25)',
});
/** Per portion; the keys sent are the keys read back. */
export const Nutrition = Type.Object(
  Object.fromEntries(NUTRIENTS.map((n) => [n, Type.Optional(Grams)])) as Record<(typeof NUTRIENTS)[number], TOptional<typeof Grams>>,
  {
    additionalProperties: false,
    description: `Per portion, in grams (at most one decimal, 0-1000): any of ${NUTRIENTS.join(', ')}`,
  },
);

/** Food information of a product, in sync items and PATCH bodies alike. */
const foodFields = {
  allergens: Type.Optional(Codes('Allergens declared beyond those of the composition', ALLERGEN_CODES)),
  mayContain: Type.Optional(Codes('Allergens it may contain as traces', ALLERGEN_CODES)),
  dietaryLabels: Type.Optional(Codes('Dietary labels', DIETARY_LABEL_CODES)),
  spiceLevel: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 3 }), { description: '0 (not spicy) to 3; null clears' })),
  calories: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 10_000 }), { description: 'kcal per portion; null clears' })),
  nutrition: Type.Optional(Nullable(Nutrition)),
};

export const IngredientInput = Type.Object(
  {
    externalId: ExternalId,
    name: Name,
    sortOrder: Type.Optional(SortOrder),
    translations: Type.Optional(NameTranslations),
    allergens: Type.Optional(AllergenCodes),
  },
  { additionalProperties: false },
);
export type IngredientInputValue = Static<typeof IngredientInput>;

export const ModifierOptionInput = Type.Object(
  {
    ingredientExternalId: ExternalId,
    action: Type.Optional(StringEnum(['add', 'remove'] as const)),
    priceAdjustment: Type.Optional(Type.Integer({ minimum: -100_000_000, maximum: 100_000_000 })),
    sortOrder: Type.Optional(SortOrder),
    isDefault: Type.Optional(
      Type.Boolean({ description: 'Preselected on the guest page (default false); at most one per single_choice group' }),
    ),
  },
  { additionalProperties: false },
);

/** Modifier rules, shared by sync items and reads. */
const ruleFields = {
  minSelections: Type.Integer({
    minimum: 0,
    maximum: 50,
    description:
      'The fewest choices, counted as the sum of the chosen quantities. single_choice: always 1 when isRequired, else 0; remove_ingredients: always 0; add_ingredients: default 0',
  }),
  maxSelections: Nullable(Type.Integer({ minimum: 1, maximum: 50 }), {
    description: 'The most choices (sum of quantities); null: no limit. single_choice: always 1; otherwise default null',
  }),
  maxQuantityPerOption: Nullable(Type.Integer({ minimum: 1, maximum: 99 }), {
    description: 'How often one option may be taken; null: up to 99 (default)',
  }),
};

export const ModifierGroupInput = Type.Object(
  {
    name: Name,
    type: StringEnum(MODIFIER_TYPES_ACCEPTED),
    isRequired: Type.Optional(Type.Boolean()),
    minSelections: Type.Optional(ruleFields.minSelections),
    maxSelections: Type.Optional(ruleFields.maxSelections),
    maxQuantityPerOption: Type.Optional(ruleFields.maxQuantityPerOption),
    options: Type.Array(ModifierOptionInput, { maxItems: SYNC_NESTED_CAPS.optionsPerModifierGroup }),
    sortOrder: Type.Optional(SortOrder),
    translations: Type.Optional(NameTranslations),
  },
  {
    additionalProperties: false,
    description: [
      "A group is replaced wholesale, rules included. Its rules count choices as the sum of the chosen options' quantities:",
      '- single_choice: exactly one option when isRequired (the default), at most one otherwise; minSelections and maxSelections sent with other values are replaced, with a warning.',
      '- add_ingredients: minSelections (default 0) to maxSelections (default null, no limit) choices.',
      '- remove_ingredients: minSelections is always 0; maxSelections limits how many may be removed.',
      'minSelections above maxSelections, or above what the known options can give at maxQuantityPerOption each, is a per-item error.',
    ].join('\n'),
  },
);
export type ModifierGroupInputValue = Static<typeof ModifierGroupInput>;

/** Product fields shared by sync items and PATCH bodies. */
const productFields = {
  name: Name,
  description: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX.description }))),
  priceMinor: Money,
  salePriceMinor: Type.Optional(Nullable(Money)),
  isSaleActive: Type.Optional(Type.Boolean()),
  amount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100_000 }))),
  unit: Type.Optional(Nullable(StringEnum(UNITS))),
  badgeLabel: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX.badgeLabel }))),
  badgeColor: Type.Optional(Nullable(StringEnum(BADGE_COLORS))),
  sortOrder: Type.Optional(SortOrder),
  menuVisible: Type.Optional(Type.Boolean()),
  translations: Type.Optional(ProductTranslations),
  ...foodFields,
};

export const ProductInput = Type.Object(
  {
    externalId: ExternalId,
    ...productFields,
    categoryExternalId: Type.Optional(Nullable(ExternalId)),
    ingredientExternalIds: Type.Optional(Type.Array(ExternalId, { maxItems: SYNC_NESTED_CAPS.ingredientRefsPerProduct })),
    modifierGroups: Type.Optional(Type.Array(ModifierGroupInput, { maxItems: SYNC_NESTED_CAPS.modifierGroupsPerProduct })),
  },
  { additionalProperties: false },
);
export type ProductInputValue = Static<typeof ProductInput>;

export const SyncBody = Type.Object(
  {
    categories: Type.Optional(Type.Array(CategoryInput, { maxItems: SYNC_ARRAY_CAPS.categories })),
    ingredients: Type.Optional(Type.Array(IngredientInput, { maxItems: SYNC_ARRAY_CAPS.ingredients })),
    products: Type.Optional(Type.Array(ProductInput, { maxItems: SYNC_ARRAY_CAPS.products })),
  },
  {
    additionalProperties: false,
    // Documentation only: the validator ignores x- keywords; the OpenAPI document shows them as named examples.
    'x-examples': {
      withTranslations: {
        summary: 'A category, two ingredients and a product with a modifier group, in English and Spanish',
        description:
          'Spanish must be enabled first (PATCH /v1/settings with enabledLanguages), or each item reports LOCALE_NOT_ENABLED in its errors[].',
        value: {
          categories: [{ externalId: 'cat-coffee', name: 'Coffee', sortOrder: 1, translations: { es: { name: 'Café' } } }],
          ingredients: [
            { externalId: 'ing-milk', name: 'Milk', translations: { es: { name: 'Leche' } } },
            { externalId: 'ing-oat-milk', name: 'Oat milk', translations: { es: { name: 'Leche de avena' } } },
          ],
          products: [
            {
              externalId: 'prod-latte',
              name: 'Latte',
              description: 'Espresso with steamed milk',
              priceMinor: 6500,
              amount: 300,
              unit: 'ML',
              categoryExternalId: 'cat-coffee',
              ingredientExternalIds: ['ing-milk'],
              modifierGroups: [
                {
                  name: 'Milk',
                  type: 'single_choice',
                  isRequired: true,
                  options: [
                    { ingredientExternalId: 'ing-milk', priceAdjustment: 0 },
                    { ingredientExternalId: 'ing-oat-milk', priceAdjustment: 1500 },
                  ],
                  translations: { es: { name: 'Leche' } },
                },
              ],
              translations: { es: { name: 'Café con leche', description: 'Espresso con leche vaporizada' } },
            },
          ],
        },
      },
      priceChange: {
        summary: 'Only what changed: a known product with a new price (every omitted field keeps its value)',
        value: { products: [{ externalId: 'prod-latte', name: 'Latte', priceMinor: 6900 }] },
      },
    },
  },
);
export type SyncInput = Static<typeof SyncBody>;

export const SyncQuery = Type.Object({ dryRun: Type.Optional(Type.Boolean({ default: false })) });

const Change = Type.Object({
  externalId: Type.String(),
  action: StringEnum(['created', 'updated'] as const),
  fields: Type.Array(Type.String(), { description: 'Read-shape field names the update changes, in alphabetical order; [] for created' }),
});
export type SyncChange = Static<typeof Change>;

const SectionResult = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer(),
  errors: Type.Array(Type.String()),
  warnings: Type.Array(Type.String()),
  changes: Type.Optional(Type.Array(Change, { description: 'Dry runs only: each item the sync would create or update' })),
});
export type SectionResultValue = Static<typeof SectionResult>;

export const SyncResponse = Type.Object({
  success: Type.Boolean(),
  categories: Type.Optional(SectionResult),
  ingredients: Type.Optional(SectionResult),
  products: Type.Optional(SectionResult),
  warnings: Type.Array(Type.String()),
  translations: Type.Object({ applied: Type.Integer() }),
  dryRun: Type.Optional(Type.Boolean()),
  syncedAt: Timestamp,
});
export type SyncResult = Static<typeof SyncResponse>;

// ---- read shapes ----------------------------------------------------------------------------

// Reads always carry it; the stored snapshot does not (availability is live).
const LiveAvailability = Type.Optional(Availability);

const Translations = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()));

export const CategoryView = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  sortOrder: Type.Integer(),
  schedule: Type.Array(ScheduleEntry),
  cardStyle: Nullable(Type.String()),
  isActive: Type.Boolean(),
  translations: Translations,
  updatedAt: Timestamp,
});
export type CategoryViewValue = Static<typeof CategoryView>;

const ReadCodes = Type.Array(Type.String());

export const IngredientView = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  sortOrder: Type.Integer(),
  translations: Translations,
  // Snapshots published before food information have none: read as [].
  allergens: Type.Optional(ReadCodes),
  updatedAt: Timestamp,
  availability: LiveAvailability,
});
export type IngredientViewValue = Static<typeof IngredientView>;

export const ModifierOptionView = Type.Object({
  id: Type.String(),
  ingredientExternalId: Nullable(Type.String()),
  ingredientName: Type.String(),
  action: Type.String(),
  priceAdjustment: Type.Integer(),
  sortOrder: Type.Integer(),
  allergens: Type.Optional(Type.Array(Type.String(), { description: "Its ingredient's allergens" })),
  // Snapshots published before modifier rules have none: read as false (withReadDefaults).
  isDefault: Type.Optional(Type.Boolean()),
  availability: LiveAvailability,
});

export const ModifierGroupView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: StringEnum(MODIFIER_TYPES_CANONICAL),
  isRequired: Type.Boolean(),
  // Snapshots published before modifier rules have none: read as the type's defaults (withReadDefaults).
  minSelections: Type.Optional(ruleFields.minSelections),
  maxSelections: Type.Optional(ruleFields.maxSelections),
  maxQuantityPerOption: Type.Optional(ruleFields.maxQuantityPerOption),
  sortOrder: Type.Integer(),
  translations: Translations,
  options: Type.Array(ModifierOptionView),
});

export const ProductView = Type.Object({
  id: Type.String(),
  externalId: Nullable(Type.String()),
  name: Type.String(),
  description: Nullable(Type.String()),
  priceMinor: Type.Integer(),
  salePriceMinor: Nullable(Type.Integer()),
  isSaleActive: Type.Boolean(),
  amount: Nullable(Type.Integer()),
  unit: Nullable(Type.String()),
  badgeLabel: Nullable(Type.String()),
  badgeColor: Nullable(Type.String()),
  categoryId: Nullable(Type.String()),
  categoryExternalId: Nullable(Type.String()),
  ingredients: Type.Array(Type.Object({ externalId: Nullable(Type.String()), name: Type.String() })),
  modifierGroups: Type.Array(ModifierGroupView),
  sortOrder: Type.Integer(),
  menuVisible: Type.Boolean(),
  imageUrl: Nullable(Type.String()),
  image: Nullable(MediaImage),
  translations: Translations,
  allergens: Type.Optional(Type.Array(Type.String(), { description: 'Declared beyond the composition, in reference order' })),
  effectiveAllergens: Type.Optional(
    Type.Array(Type.String(), { description: 'The declared allergens and those of the composition ingredients, in reference order' }),
  ),
  mayContain: Type.Optional(ReadCodes),
  dietaryLabels: Type.Optional(ReadCodes),
  spiceLevel: Type.Optional(Nullable(Type.Integer())),
  calories: Type.Optional(Nullable(Type.Integer())),
  nutrition: Type.Optional(Nullable(Nutrition)),
  updatedAt: Timestamp,
  availability: LiveAvailability,
});
export type ProductViewValue = Static<typeof ProductView>;

export const MenuDocument = Type.Object({
  version: StringEnum(['draft', 'published'] as const),
  publicationId: Nullable(Type.String()),
  publishedAt: Nullable(Timestamp),
  generatedAt: Timestamp,
  currency: Type.String(),
  categories: Type.Array(CategoryView),
  ingredients: Type.Array(IngredientView),
  products: Type.Array(ProductView),
});
export type MenuDocumentValue = Static<typeof MenuDocument>;

export const MenuQuery = Type.Object({ version: Type.Optional(StringEnum(['draft', 'published'] as const, { default: 'draft' })) });

export const PublishResponse = Type.Object({
  publicationId: Type.String(),
  publishedAt: Timestamp,
  counts: Type.Object({ categories: Type.Integer(), ingredients: Type.Integer(), products: Type.Integer() }),
});
export type PublishResult = Static<typeof PublishResponse>;

// An absent body or {}; the validator reads an absent body as {}.
export const PublishBody = Type.Object({}, { additionalProperties: false });

// ---- product patch and delete ---------------------------------------------------------------

export const ProductRefParams = Type.Object({ ref: Type.String({ minLength: 1, maxLength: 255 }) });

const { priceMinor: _price, name: _name, ...optionalProductFields } = productFields;
export const ProductPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    priceMinor: Type.Optional(Money),
    ...optionalProductFields,
    categoryRef: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  },
  {
    additionalProperties: false,
    'x-examples': {
      sale: { summary: 'Put a product on sale', value: { salePriceMinor: 5500, isSaleActive: true } },
      move: {
        summary: 'Move it to another category and clear its badge',
        value: { categoryRef: 'cat-coffee', badgeLabel: null, badgeColor: null },
      },
    },
  },
);
export type ProductPatchInput = Static<typeof ProductPatchBody>;

export const ProductDeleted = Type.Object({ id: Type.String(), externalId: Nullable(Type.String()), deleted: Type.Literal(true) });

// ---- cleanup --------------------------------------------------------------------------------

export const CleanupBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { type: StringEnum(['product', 'category', 'ingredient'] as const), ref: Type.String({ minLength: 1, maxLength: 255 }) },
        { additionalProperties: false },
      ),
      { maxItems: CLEANUP_ARRAY_CAP },
    ),
    force: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    'x-examples': {
      items: {
        summary: 'Hide a product and delete a category',
        value: {
          items: [
            { type: 'product', ref: 'prod-latte' },
            { type: 'category', ref: 'cat-seasonal' },
          ],
        },
      },
      everything: { summary: 'Clean up every item of the venue', value: { items: [], force: true } },
    },
  },
);
export type CleanupInput = Static<typeof CleanupBody>;

export const CleanupResponse = Type.Object({
  products: Type.Object({ hidden: Type.Integer() }),
  categories: Type.Object({ deleted: Type.Integer() }),
  ingredients: Type.Object({ deleted: Type.Integer() }),
  notFound: Type.Array(Type.String()),
  cleanedAt: Timestamp,
});
export type CleanupResult = Static<typeof CleanupResponse>;
