// The guest page's HTML (docs/guest-page.md): the whole menu is server-rendered and readable
// without JavaScript; the script adds the product dialog, the cart and ordering on top. Every
// value from a venue goes through escapeHtml, and the script's data through jsonForHtml.
import { escapeHtml as e, jsonForHtml } from '../../http/html.js';
import { formatMoney } from '../../shared/money.js';
import type { MediaImageView } from '../media/index.js';
import type { GuestMenuView, GuestOrderView } from '../guest/index.js';
import { foodFacts, type FoodFacts, type FoodNames, type NutritionRow } from './shared/food.js';
import type { PageData, StatusPageData } from './shared/page-data.js';
import { FINAL_STATUSES, finalNote, stepStates } from './shared/page-data.js';
import { directionOf, fill, tableLabel, type UiStrings } from './shared/strings.js';

type Product = GuestMenuView['products'][number];

/** The card styles of the reference; anything else reads as the default. */
export const CARD_STYLES = ['minimalism', 'compact', 'premium'] as const;
export type CardStyle = (typeof CARD_STYLES)[number];

/** A category's own style wins over the venue's (null inherits it). */
export function cardStyleOf(own: string | null, venue: string): CardStyle {
  const known = (s: string | null): s is CardStyle => (CARD_STYLES as readonly string[]).includes(s as string);
  return known(own) ? own : known(venue) ? venue : 'minimalism';
}

/** The badge colours of the reference, each a class of the stylesheet (CSP: no inline style). */
export const BADGE_COLORS = ['RED', 'PURPLE', 'YELLOW', 'GREEN', 'BLUE', 'GREY'] as const;

function badgeClass(color: string | null): string {
  return color !== null && (BADGE_COLORS as readonly string[]).includes(color) ? ` badge-${color.toLowerCase()}` : '';
}

/**
 * The card photo per style: premium a full-width photo in its own shape, compact a small thumbnail,
 * minimalism none (text first). The sizes let the browser fetch no larger a variant than shown.
 */
const CARD_IMAGE_SIZES: Record<CardStyle, string | null> = {
  premium: '(min-width: 48rem) 29rem, 100vw',
  compact: '4rem',
  minimalism: null,
};

export interface PageAssets {
  script: string | null;
  styles: string[];
  icon: string;
}

export interface LanguageLink {
  code: string;
  label: string;
  href: string;
  current: boolean;
}

interface Shell {
  locale: string;
  title: string;
  /** The page's `<meta name="description">`, in its language: what a search result or a shared link shows under the title. */
  description: string;
  assets: PageAssets;
  body: string;
  /** The script's data block, when the page has one. */
  data?: unknown;
}

function shell({ locale, title, description, assets, body, data }: Shell): string {
  const styles = assets.styles.map((href) => `<link rel="stylesheet" href="${e(href)}">`).join('');
  const script = assets.script ? `<script type="module" src="${e(assets.script)}"></script>` : '';
  const dataBlock = data === undefined ? '' : `<script type="application/json" id="carta-data">${jsonForHtml(data)}</script>`;
  return `<!doctype html>
<html lang="${e(locale)}" dir="${directionOf(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${e(title)}</title>
<meta name="description" content="${e(description)}">
<link rel="icon" type="image/svg+xml" href="${e(assets.icon)}">
${styles}${script}
</head>
<body>
${body}
${dataBlock}
</body>
</html>
`;
}

/**
 * How an image loads: `lazy` (the default) waits until it nears the screen; `eager` is requested as
 * soon as the HTML is read, for what the first screen shows; `high` is eager and asks the browser
 * to fetch it first, for the likely largest contentful paint (one per page).
 */
type Loading = 'lazy' | 'eager' | 'high';

/** A `srcset` from the stored sizes; the browser picks by the card's width. */
function picture(image: MediaImageView | null, className: string, sizes: string, loading: Loading = 'lazy'): string {
  if (!image) return '';
  const srcset = image.variants.map((v) => `${e(v.url)} ${v.width}w`).join(', ');
  const smallest = image.variants.at(-1) ?? { url: image.imageUrl, width: image.width, height: image.height };
  const how = loading === 'lazy' ? 'loading="lazy"' : loading === 'high' ? 'loading="eager" fetchpriority="high"' : 'loading="eager"';
  return `<img class="${className}" src="${e(smallest.url)}" srcset="${srcset}" sizes="${e(sizes)}" width="${smallest.width}" height="${smallest.height}" alt="" ${how} decoding="async">`;
}

/**
 * The page's header: the venue's logo (its settings' logo, the stored square sizes, whole) beside
 * its name, and a line under the name (the table, or where an order is served). The logo is
 * decorative (alt ""): the name beside it says the same.
 */
function venueHeader(name: string, logo: MediaImageView | null, line: string | null, lineId = ''): string {
  return `<div class="venue">${picture(logo, 'logo', '3rem', 'eager')}<div><h1>${e(name)}</h1>${
    line ? `<p class="table-name"${lineId ? ` id="${lineId}"` : ''}>${e(line)}</p>` : ''
  }</div></div>`;
}

function priceHtml(p: Product, money: (minor: number) => string): string {
  const shown = p.promoPriceMinor ?? p.effectivePriceMinor;
  if (shown < p.priceMinor) {
    return `<p class="price"><del>${e(money(p.priceMinor))}</del> <strong>${e(money(shown))}</strong></p>`;
  }
  return `<p class="price"><strong>${e(money(shown))}</strong></p>`;
}

/** Nutrition per portion as a table (calories first, "of which" lines indented). */
function nutritionTable(rows: NutritionRow[], strings: UiStrings, captionClass = ''): string {
  if (rows.length === 0) return '';
  const body = rows
    .map((r) => `<tr${r.part ? ' class="part"' : ''}><th scope="row">${e(r.label)}</th><td>${e(r.value)}</td></tr>`)
    .join('');
  return `<table class="nutrition"><caption${captionClass ? ` class="${captionClass}"` : ''}>${e(strings.nutrition)}</caption><tbody>${body}</tbody></table>`;
}

/**
 * A dish's food information in words: dietary labels and spice as tags, allergens
 * and traces as lines, and nutrition per portion behind a disclosure, readable without the script.
 */
function foodHtml(facts: FoodFacts, strings: UiStrings): string {
  // Spaced, so the words read apart (the tags are flex items: the space does not show).
  const tags = [
    ...facts.labels.map((name) => `<span class="tag tag-diet">${e(name)}</span>`),
    facts.spice && facts.spice.level > 0 ? `<span class="tag tag-spice">${e(facts.spice.text)}</span>` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const line = (label: string, names: string[], className: string) =>
    names.length > 0 ? `<p class="meta ${className}"><span class="label">${e(label)}:</span> ${e(names.join(strings.comma))}</p>` : '';
  return (
    (tags ? `<p class="tags">${tags}</p>` : '') +
    line(strings.allergens, facts.allergens, 'allergens') +
    line(strings.mayContain, facts.mayContain, 'may-contain') +
    (facts.nutrition.length > 0
      ? `<details class="facts"><summary>${e(strings.nutrition)}</summary>${nutritionTable(facts.nutrition, strings, 'visually-hidden')}</details>`
      : '')
  );
}

/**
 * A product's card. An unavailable one is greyed and says why and until when ("Sold out until
 * 18:30"); its Add button stays hidden (the script shows the others). Its allergens and labels
 * are also codes in data attributes, for the guest's filter.
 */
function productCard(
  p: Product,
  style: CardStyle,
  strings: UiStrings,
  money: (minor: number) => string,
  promotions: Map<string, string>,
  unavailable: string | undefined,
  food: FoodNames,
  locale: string,
  loading: Loading,
): string {
  const badges = [
    p.badgeLabel ? `<span class="badge${badgeClass(p.badgeColor)}">${e(p.badgeLabel)}</span>` : '',
    p.promotionId && promotions.has(p.promotionId)
      ? `<span class="badge badge-offer">${e(promotions.get(p.promotionId) as string)}</span>`
      : '',
  ].join('');
  const amount = p.amount !== null ? `<p class="meta">${e(`${p.amount}${p.unit ? ` ${p.unit}` : ''}`)}</p>` : '';
  const ingredients =
    p.ingredients.length > 0
      ? `<p class="meta"><span class="label">${e(strings.ingredients)}:</span> ${e(p.ingredients.map((i) => i.name).join(strings.comma))}</p>`
      : '';
  const codes = (name: string, list: string[]) => (list.length > 0 ? ` data-${name}="${e(list.join(' '))}"` : '');
  return `<li class="card${unavailable ? ' sold-out' : ''}" id="p-${e(p.id)}"${codes('allergens', p.effectiveAllergens)}${codes('labels', p.dietaryLabels)}>
${CARD_IMAGE_SIZES[style] ? picture(p.image, 'card-image', CARD_IMAGE_SIZES[style], loading) : ''}<div class="card-body">
<h3 class="card-title">${e(p.name)}</h3>${badges ? `<p class="badges">${badges}</p>` : ''}
${p.description ? `<p class="desc">${e(p.description)}</p>` : ''}${amount}${ingredients}${foodHtml(foodFacts(p, strings, food, locale), strings)}${unavailable ? `<p class="availability">${e(unavailable)}</p>` : ''}
<div class="card-foot">${priceHtml(p, money)}<button type="button" class="add" data-product="${e(p.id)}" aria-label="${e(fill(strings.addNamed, { name: p.name }))}" hidden>${e(strings.add)}</button></div>
</div>
</li>`;
}

function banners(menu: GuestMenuView, strings: UiStrings, firstLoading: Loading): string {
  if (menu.banners.length === 0) return '';
  const items = menu.banners.map((b, i) => {
    const inner = `${picture(b.image, 'banner-image', '(min-width: 48rem) 40rem, 100vw', i === 0 ? firstLoading : 'lazy')}<span class="banner-text"><strong>${e(b.title)}</strong>${b.subtitle ? `<span>${e(b.subtitle)}</span>` : ''}</span>`;
    // A banner leads to a product of the menu, or out to an http(s) page; anything else is not a link.
    if (b.productId) return `<li><a class="banner" href="#p-${e(b.productId)}">${inner}</a></li>`;
    if (b.linkUrl && /^https?:\/\//i.test(b.linkUrl))
      return `<li><a class="banner" href="${e(b.linkUrl)}" rel="noopener noreferrer nofollow">${inner}</a></li>`;
    return `<li><div class="banner">${inner}</div></li>`;
  });
  // Swiped on a phone (CSS scroll snap, native touch scrolling, no script, no autoplay); focusable,
  // so the arrow keys scroll it too when a banner has no link to tab to. A mouse without a sideways
  // wheel has neither: previous and next buttons, shown by the script (web/guest/carousel.ts) over
  // the banners' edges, so they move nothing when they appear; none for a single banner.
  const steps =
    menu.banners.length > 1
      ? `<button type="button" class="carousel-step carousel-prev" aria-label="${e(strings.previousBanner)}" hidden>‹</button><button type="button" class="carousel-step carousel-next" aria-label="${e(strings.nextBanner)}" hidden>›</button>`
      : '';
  return `<section class="carousel" aria-label="${e(strings.offer)}"><div class="banners" tabindex="0"><ul>${items.join('')}</ul></div>${steps}</section>`;
}

interface Section {
  id: string;
  name: string;
  style: CardStyle;
  products: Product[];
}

/**
 * How the first screen's images load. A lazy image is requested only once layout has placed it, so
 * one that makes the largest contentful paint would start late: the first banner and the first two
 * card photos load at once. The likely largest of them is fetched first: a premium photo across the
 * card when the menu opens with one, else the first banner (compact thumbnails are small).
 */
function firstScreenImages(sections: Section[], bannerImage: boolean): { banner: Loading; cards: Map<string, Loading> } {
  const photos = sections
    .flatMap((s) => (CARD_IMAGE_SIZES[s.style] ? s.products.filter((p) => p.image).map((p) => ({ p, s })) : []))
    .slice(0, 2);
  const premiumFirst = photos.length > 0 && photos[0].s === sections[0] && photos[0].s.style === 'premium';
  const cards = new Map<string, Loading>(photos.map(({ p }, i) => [p.id, i === 0 && premiumFirst ? 'high' : 'eager']));
  return { banner: !bannerImage ? 'lazy' : premiumFirst ? 'eager' : 'high', cards };
}

export interface MenuPage {
  menu: GuestMenuView;
  strings: UiStrings;
  languages: LanguageLink[];
  table: { id: string; name: string } | null;
  /** Why ordering is closed on this page and what the guest can still do, or null when it is open. */
  notice: string | null;
  /** Why each unavailable product cannot be ordered, by product id. */
  labels: Map<string, string>;
  data: PageData;
  assets: PageAssets;
}

/** The menu page: header, language switcher, banners, category navigation, product cards. */
export function renderMenuPage(page: MenuPage): string {
  const { menu, strings } = page;
  const money = (minor: number) => formatMoney(minor, menu.venue.currency, menu.locale);
  const promotions = new Map(menu.promotions.map((p) => [p.id, p.name]));
  const categoryIds = new Set(menu.categories.map((c) => c.id));
  const byCategory = new Map<string | null, Product[]>();
  for (const p of menu.products) {
    const key = p.categoryId !== null && categoryIds.has(p.categoryId) ? p.categoryId : null;
    const list = byCategory.get(key);
    if (list) list.push(p);
    else byCategory.set(key, [p]);
  }
  const sections: Section[] = [
    ...menu.categories
      .filter((c) => byCategory.has(c.id))
      .map((c) => ({
        id: `c-${c.id}`,
        name: c.name,
        style: cardStyleOf(c.cardStyle, menu.venue.cardStyle),
        products: byCategory.get(c.id) as Product[],
      })),
    ...(byCategory.has(null)
      ? [
          {
            id: 'c-other',
            name: strings.other,
            style: cardStyleOf(null, menu.venue.cardStyle),
            products: byCategory.get(null) as Product[],
          },
        ]
      : []),
  ];
  const nav =
    sections.length > 1
      ? `<nav class="cats" aria-label="${e(strings.categories)}"><ul>${sections.map((s) => `<li><a href="#${e(s.id)}">${e(s.name)}</a></li>`).join('')}</ul></nav>`
      : '';
  const loading = firstScreenImages(sections, menu.banners.length > 0 && menu.banners[0].image !== null);
  const languages =
    page.languages.length > 1
      ? `<nav class="langs" aria-label="${e(strings.language)}"><ul>${page.languages
          .map(
            (l) =>
              `<li><a href="${e(l.href)}" hreflang="${e(l.code)}" lang="${e(l.code)}"${l.current ? ' aria-current="true"' : ''}>${e(l.label)}</a></li>`,
          )
          .join('')}</ul></nav>`
      : '';
  // The guest's allergen and diet filter, when a dish says anything. It needs the script, which
  // enables its button; the bar is there from the first paint, so the menu under it does not move
  // when the script runs (a layout shift, Lighthouse's CLS).
  const filter = menu.products.some((p) => p.effectiveAllergens.length > 0 || p.dietaryLabels.length > 0)
    ? `<div class="filter-bar" id="filter-bar"><button type="button" class="filter-open" id="open-filter" aria-haspopup="dialog" disabled>${e(strings.filter)}</button><p class="filter-count" id="filter-count" role="status"></p></div>`
    : '';
  const body = `<header class="top">
${venueHeader(menu.venue.name, menu.venue.logo, page.table ? tableLabel(page.table.name, strings) : null)}
${languages}
</header>
<p class="notice" id="ordering-notice" role="status"${page.notice ? '' : ' hidden'}>${page.notice ? e(page.notice) : ''}</p>
${banners(menu, strings, loading.banner)}
${nav}
${filter}
<main id="menu">
${sections
  .map(
    (s) => `<section class="category" id="${e(s.id)}" aria-labelledby="${e(s.id)}-h"><h2 id="${e(s.id)}-h">${e(s.name)}</h2>
<ul class="cards cards-${s.style}">${s.products.map((p) => productCard(p, s.style, strings, money, promotions, page.labels.get(p.id), page.data.food, menu.locale, loading.cards.get(p.id) ?? 'lazy')).join('\n')}</ul></section>`,
  )
  .join('\n')}
<p class="filter-empty" id="filter-empty" hidden>${e(strings.noneShown)}</p>
<p class="food-note">${e(strings.foodNote)}</p>
</main>
<div class="cart-bar" id="cart-bar" hidden></div>
<p class="visually-hidden" id="announce" aria-live="polite"></p>`;
  return shell({
    locale: menu.locale,
    title: page.table ? `${menu.venue.name} · ${tableLabel(page.table.name, strings)}` : menu.venue.name,
    description: fill(strings.menuDescription, { venue: menu.venue.name }),
    assets: page.assets,
    body,
    data: page.data,
  });
}

export interface StatusPage {
  venueName: string;
  logo: MediaImageView | null;
  order: GuestOrderView;
  /** Where the order is served, in words: its table, the venue's counter, or the guest's address. */
  where: string;
  /** When it was placed, in words ("12:03", or a date once another day). */
  placed: string;
  /** When a scheduled order is for, in words ("tomorrow 19:00"); null for an order for now. */
  scheduled: string | null;
  /** When an order for now should be ready: placed + the venue's prepTimeMinutes; null when scheduled. */
  ready: string | null;
  strings: UiStrings;
  data: StatusPageData;
  assets: PageAssets;
}

/** The steps list, shared in shape with the script's updates (web/guest/status.ts): done steps say so in words too. */
export function statusSteps(order: Pick<GuestOrderView, 'status' | 'type'>, strings: UiStrings): string {
  return stepStates(order.status, order.type)
    .map(
      ({ step, state }) =>
        `<li class="${state}"${state === 'current' ? ' aria-current="step"' : ''}>${e(strings[`status_${step}`])}${
          state === 'done' ? `<span class="visually-hidden"> ${e(strings.stepDone)}</span>` : ''
        }</li>`,
    )
    .join('');
}

/**
 * The order's status page: where and when, the steps, what to do once it is over, its lines and
 * total; the script follows the status.
 */
export function renderStatusPage(page: StatusPage): string {
  const { order, strings } = page;
  const money = (minor: number) => formatMoney(minor, order.currency, page.data.locale);
  // Names isolated (<bdi>): a Latin dish name keeps its direction on an Arabic page.
  const lines = order.items
    .map(
      (it) =>
        `<li><span class="qty">${it.quantity}×</span> <span class="line-name"><bdi>${e(it.productName)}</bdi>${
          it.modifiers.length > 0
            ? `<small>${it.modifiers.map((m) => `<bdi>${e(m.quantity > 1 ? `${m.ingredientName} ×${m.quantity}` : m.ingredientName)}</bdi>`).join(e(strings.comma))}</small>`
            : ''
        }</span> <span class="line-price">${e(money(it.totalPrice))}</span></li>`,
    )
    .join('');
  const final = FINAL_STATUSES.includes(order.status);
  const note = finalNote(order.status, strings);
  const times = [
    `<span id="status-placed">${e(fill(strings.placedAt, { time: page.placed }))}</span>`,
    page.ready ? `<span id="status-ready"${final ? ' hidden' : ''}>${e(fill(strings.readyAt, { time: page.ready }))}</span>` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const body = `<header class="top">${venueHeader(page.venueName, page.logo, page.where, 'status-where')}</header>
<main id="status" class="status" data-status="${e(order.status)}">
<h2>${e(fill(strings.order, { number: order.orderNumber }))}</h2>
<p class="status-now" id="status-now" role="status" aria-live="polite">${e(strings[`status_${order.status}`])}</p>
<p class="times">${times}</p>
${page.scheduled ? `<p class="scheduled" id="status-scheduled">${e(fill(strings.scheduledFor, { when: page.scheduled }))}</p>` : ''}
<ol class="steps" id="status-steps">${statusSteps(order, strings)}</ol>
<p class="final-note" id="status-final"${note ? '' : ' hidden'}>${note ? e(note) : ''}</p>
<p class="hint" id="status-hint"${final ? ' hidden' : ''}>${e(strings.statusLive)}</p>
<ul class="lines order-lines">${lines}</ul>
<dl class="totals">
<div><dt>${e(strings.subtotal)}</dt><dd>${e(money(order.subtotalAmount))}</dd></div>
${order.discountAmount > 0 ? `<div><dt>${e(strings.discount)}</dt><dd>${e(formatMoney(-order.discountAmount, order.currency, page.data.locale, true))}</dd></div>` : ''}
${order.deliveryFee > 0 ? `<div><dt>${e(strings.deliveryFee)}</dt><dd>${e(money(order.deliveryFee))}</dd></div>` : ''}
<div class="total"><dt>${e(strings.total)}</dt><dd>${e(money(order.totalAmount))}</dd></div>
</dl>
<p><a href="${e(page.data.menuPage)}">${e(strings.backToMenu)}</a></p>
</main>`;
  return shell({
    locale: page.data.locale,
    title: `${page.venueName} · ${fill(strings.order, { number: order.orderNumber })}`,
    description: fill(strings.statusDescription, { venue: page.venueName }),
    assets: page.assets,
    body,
    data: page.data,
  });
}

/** A friendly page for a link that leads nowhere (an unknown table, venue or order). */
export function renderMessagePage(locale: string, title: string, message: string, assets: PageAssets): string {
  const body = `<main class="message"><h1>${e(title)}</h1><p>${e(message)}</p></main>`;
  return shell({ locale, title, description: message, assets: { ...assets, script: null }, body });
}
