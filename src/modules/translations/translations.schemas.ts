import { Type, type Static } from 'typebox';
import { TRANSLATIONS_SECTION_CAP } from '../../limits.js';
import { BannerTranslations, NameTranslations, ProductTranslations } from '../menu/index.js';

export type { TranslationsInput } from '../menu/index.js';

const Ref = Type.String({ minLength: 1, maxLength: 255, description: 'externalId or opaque id' });
const section = <T extends object>(item: T) => Type.Optional(Type.Array(item as never, { maxItems: TRANSLATIONS_SECTION_CAP }));

export const TranslationsBody = Type.Object(
  {
    products: section(Type.Object({ ref: Ref, translations: ProductTranslations }, { additionalProperties: false })),
    categories: section(Type.Object({ ref: Ref, translations: NameTranslations }, { additionalProperties: false })),
    ingredients: section(Type.Object({ ref: Ref, translations: NameTranslations }, { additionalProperties: false })),
    modifierGroups: section(
      Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), translations: NameTranslations }, { additionalProperties: false }),
    ),
    banners: section(
      Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), translations: BannerTranslations }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const TranslationsResponse = Type.Object({
  applied: Type.Integer({ description: 'Locale entries written' }),
  notFound: Type.Array(Type.String(), { description: '`<type>:<ref>` of entries that match nothing' }),
});
export type TranslationsResult = Static<typeof TranslationsResponse>;
