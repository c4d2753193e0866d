import { Type } from 'typebox';

/** The longest text each translatable field takes: the same as the field itself. */
const FIELD_MAX: Record<string, number> = { description: 1000, title: 120, subtitle: 240 };

// A map keyed by locale; each value maps the entity's translatable fields to text.
// Locale support is checked against the venue's settings (a per-item error in sync), so the
// schema only fixes the shape and which fields each entity allows.
export function TranslationsMap<const F extends readonly string[]>(fields: F) {
  return Type.Record(
    Type.String({ maxLength: 16 }),
    Type.Object(
      Object.fromEntries(fields.map((f) => [f, Type.Optional(Type.String({ maxLength: FIELD_MAX[f] ?? 200 }))])) as {
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
