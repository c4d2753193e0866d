import { Type } from 'typebox';

/**
 * The longest text of each translatable field, in characters. The fields' own schemas (menu.schemas.ts,
 * merch/banners.schemas.ts) take their maxLength from here too, so a translation is never longer than
 * the field it translates.
 */
export const TEXT_MAX = { name: 200, description: 1000, badgeLabel: 16, title: 120, subtitle: 240 } as const;
type TranslatableField = keyof typeof TEXT_MAX;

// A map keyed by locale; each value maps the entity's translatable fields to text.
// Locale support is checked against the venue's settings (a per-item error in sync), so the
// schema only fixes the shape and which fields each entity allows.
export function TranslationsMap<const F extends readonly TranslatableField[]>(fields: F) {
  return Type.Record(
    Type.String({ maxLength: 16 }),
    Type.Object(
      Object.fromEntries(fields.map((f) => [f, Type.Optional(Type.String({ maxLength: TEXT_MAX[f] }))])) as {
        [K in F[number]]: ReturnType<typeof Type.Optional<ReturnType<typeof Type.String>>>;
      },
      { additionalProperties: false },
    ),
    { maxProperties: 20 },
  );
}

export const NameTranslations = TranslationsMap(['name'] as const);
export const BannerTranslations = TranslationsMap(['title', 'subtitle'] as const);
export const ProductTranslations = TranslationsMap(['name', 'description', 'badgeLabel'] as const);

/** Stored form: locale -> field -> text (empty strings are never stored). */
export type StoredTranslations = Record<string, Record<string, string>>;

/** PUT /v1/translations's body as the services read it (translations/translations.schemas.ts validates it). */
type Entry = { ref: string; translations: Record<string, Record<string, string | undefined>> };
type IdEntry = { id: string; translations: Record<string, Record<string, string | undefined>> };
export interface TranslationsInput {
  products?: Entry[];
  categories?: Entry[];
  ingredients?: Entry[];
  modifierGroups?: IdEntry[];
  banners?: IdEntry[];
}
