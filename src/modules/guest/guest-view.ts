// The guest's view of a published snapshot: active categories, visible
// products, names in the requested locale (falling back to the venue default), effective prices.
import { effectivePrice } from '../../shared/pricing.js';
import { type OrderingView, optionAvailability, productAvailability, type AvailabilityState } from '../availability/index.js';
import type { MediaImageView } from '../media/index.js';
import { promoPrice, type LiveMerch } from '../merch/index.js';
import { type MenuDocumentValue, guestVisible, productWithDefaults } from '../menu/index.js';
import type { OpeningHoursValue, OrderConfigValue } from '../settings/index.js';
import type { GuestMenuView } from './guest.schemas.js';

type Translations = Record<string, Record<string, string>>;

export function translate(translations: Translations, field: string, locale: string, fallback: string, base: string): string {
  return translations[locale]?.[field] ?? translations[fallback]?.[field] ?? base;
}

export interface GuestVenueInfo {
  slug: string;
  name: string;
  currency: string;
  defaultLanguage: string;
  languages: string[];
  cardStyle: string;
  /** IANA zone the venue's times are in (opening hours, "sold out until 18:30"). */
  timezone: string;
  /** When guests may order; null: always open. */
  openingHours: OpeningHoursValue | null;
  orderConfig: OrderConfigValue;
  logo: MediaImageView | null;
  /** The guest page's accent: `#rrggbb`, AA against white; null for Carta's own. */
  accentColor: string | null;
}

/**
 * The guest view of a published snapshot with what is live of merchandising. `generatedAt` is the
 * newest of the snapshot, the settings and the merchandising it is shown with, so every instance
 * builds the same bytes (one ETag) for them.
 */
export interface LiveState {
  merch: LiveMerch;
  availability: AvailabilityState;
  ordering: OrderingView;
}

export function guestMenu(
  doc: MenuDocumentValue,
  venue: GuestVenueInfo,
  locale: string,
  settingsChangedAt: Date | null,
  live: LiveState,
): GuestMenuView {
  const { merch, availability } = live;
  const publishedAt = doc.publishedAt as string;
  const generatedAt = [publishedAt, settingsChangedAt?.toISOString() ?? '', merch.changedAt?.toISOString() ?? ''].sort().at(-1) as string;
  const fallback = venue.defaultLanguage;
  const visible = guestVisible(doc);
  const onMenu = new Set(visible.products.map((p) => p.id));
  const ingredientNames = new Map(doc.ingredients.filter((i) => i.externalId !== null).map((i) => [i.externalId as string, i]));
  const ingredientName = (externalId: string | null, name: string) => {
    const ingredient = externalId ? ingredientNames.get(externalId) : undefined;
    return ingredient ? translate(ingredient.translations, 'name', locale, fallback, name) : name;
  };
  return {
    venue: {
      slug: venue.slug,
      name: venue.name,
      currency: doc.currency,
      defaultLanguage: venue.defaultLanguage,
      languages: venue.languages,
      cardStyle: venue.cardStyle,
      timezone: venue.timezone,
      logoUrl: venue.logo ? venue.logo.imageUrl : null,
      logo: venue.logo,
    },
    locale,
    publicationId: doc.publicationId as string,
    publishedAt,
    generatedAt,
    orderConfig: venue.orderConfig,
    ordering: live.ordering,
    banners: merch.banners.map(({ row, image }) => ({
      id: row.id,
      title: translate(row.translations, 'title', locale, fallback, row.title),
      subtitle: row.subtitle === null ? null : translate(row.translations, 'subtitle', locale, fallback, row.subtitle),
      linkUrl: row.link_url,
      productId: row.product_id !== null && onMenu.has(row.product_id) ? row.product_id : null,
      imageUrl: image ? image.imageUrl : null,
      image,
    })),
    promotions: merch.promotions.map(({ row, productIds }) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      productIds: productIds.filter((id) => onMenu.has(id)),
    })),
    categories: visible.categories.map((c) => ({
      id: c.id,
      name: translate(c.translations, 'name', locale, fallback, c.name),
      sortOrder: c.sortOrder,
      schedule: c.schedule,
      cardStyle: c.cardStyle,
    })),
    products: visible.products.map((stored) => {
      // Snapshots published before food information, modifier rules or images carry none: the read defaults.
      const p = productWithDefaults(stored);
      const promo = promoPrice(p, merch);
      return {
        id: p.id,
        categoryId: p.categoryId,
        name: translate(p.translations, 'name', locale, fallback, p.name),
        description: p.description === null ? null : translate(p.translations, 'description', locale, fallback, p.description),
        priceMinor: p.priceMinor,
        salePriceMinor: p.salePriceMinor,
        isSaleActive: p.isSaleActive,
        effectivePriceMinor: effectivePrice(p),
        amount: p.amount,
        unit: p.unit,
        badgeLabel: p.badgeLabel === null ? null : translate(p.translations, 'badgeLabel', locale, fallback, p.badgeLabel),
        badgeColor: p.badgeColor,
        imageUrl: p.imageUrl,
        image: p.image ?? null,
        promoPriceMinor: promo ? promo.priceMinor : null,
        promotionId: promo ? promo.promotionId : null,
        sortOrder: p.sortOrder,
        ingredients: p.ingredients.map((i) => ({ name: ingredientName(i.externalId, i.name) })),
        modifierGroups: p.modifierGroups.map((g) => ({
          id: g.id,
          name: translate(g.translations, 'name', locale, fallback, g.name),
          type: g.type,
          isRequired: g.isRequired,
          minSelections: g.minSelections ?? 0,
          maxSelections: g.maxSelections ?? null,
          maxQuantityPerOption: g.maxQuantityPerOption ?? null,
          options: g.options.map((o) => ({
            id: o.id,
            name: ingredientName(o.ingredientExternalId, o.ingredientName),
            action: o.action,
            priceAdjustment: o.priceAdjustment,
            isDefault: o.isDefault ?? false,
            allergens: o.allergens ?? [],
            availability: optionAvailability(o, availability),
          })),
        })),
        effectiveAllergens: p.effectiveAllergens,
        mayContain: p.mayContain,
        dietaryLabels: p.dietaryLabels,
        spiceLevel: p.spiceLevel,
        calories: p.calories,
        nutrition: p.nutrition,
        availability: productAvailability(p, availability),
      };
    }),
  };
}
