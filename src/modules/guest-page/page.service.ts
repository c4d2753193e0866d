// The guest page (docs/guest-page.md): which menu, language and ordering a link gets,
// and the rendered bytes, cached by what they are built from like the guest menu JSON.
import { LRUCache } from 'lru-cache';
import { Representation } from '../docs/index.js';
import { guestOrderPath, guestVenuePath, type GuestService, type GuestVenueInfo, type GuestOrderView } from '../guest/index.js';
import type { TablesService } from '../merch/index.js';
import { LANGUAGES } from '../../shared/catalog.js';
import type { Hours } from '../../shared/opening-hours.js';
import { sharedHours } from '../../shared/opening-hours.js';
import { accentStylesheetUrl, type GuestAssets } from './page.assets.js';
import type { PageAssets } from './page.render.js';
import { renderMenuPage, renderStatusPage, type LanguageLink } from './page.render.js';
import { foodNames } from './shared/food-names.js';
import { availabilityLabel, nextDayStart, orderingNotice, When, type OpenWindow } from './shared/availability.js';
import type { GuestOrderType, GuestPayment, PageData, PageMode } from './shared/page-data.js';
import { fill, tableLabel, uiStrings, type UiStrings } from './shared/strings.js';
import { DAY_MS } from '../../limits.js';

/** What the request says about language: `?lang=` first, then Accept-Language. */
export interface LanguageHints {
  lang?: string;
  acceptLanguage?: string;
}

/** Payment the page offers: settled at the venue (no online payment provider is wired in). */
const PAYMENTS: GuestPayment[] = ['cash', 'terminal'];

/** Rendered pages kept, by size: a 500-product menu page is ~0.4 MB before compression. */
const CACHE_BYTES = 64 * 1024 * 1024;

/** Open windows listed in a page: bounded whatever the hours (14 days of 3 shifts is 42). */
const MAX_WINDOWS = 200;

/**
 * The open windows of `hours` between `from` and `to` (Hours, in the venue's zone),
 * each [start, end) in epoch milliseconds, clipped to `to`.
 */
export function openWindows(hours: Hours, from: number, to: number): OpenWindow[] {
  const out: OpenWindow[] = [];
  let t = from;
  while (t < to && out.length < MAX_WINDOWS) {
    const opens = hours.opensAt(t, to - t);
    if (opens === null || opens >= to) break;
    const closes = hours.closesAfter(opens, to - opens) ?? to;
    out.push([opens, Math.min(closes, to)]);
    if (closes <= opens) break;
    t = closes;
  }
  return out;
}

/** Accept-Language as tags by preference (q=0 dropped), e.g. `ar-EG,ar;q=0.9,en;q=0.5`. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q.slice(2)), index };
    })
    .filter((t) => t.tag !== '' && t.tag !== '*' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((t) => t.tag);
}

/** The venue language for the request: `?lang=`, else the best Accept-Language match, else the default. */
export function chooseLanguage(hints: LanguageHints, languages: string[], fallback: string): string {
  const byTag = new Map(languages.map((l) => [l.toLowerCase(), l]));
  if (hints.lang && byTag.has(hints.lang.toLowerCase())) return byTag.get(hints.lang.toLowerCase()) as string;
  for (const tag of acceptedLanguages(hints.acceptLanguage)) {
    const exact = byTag.get(tag);
    if (exact) return exact;
    const primary = tag.split('-')[0];
    const match = languages.find((l) => l.toLowerCase().split(/[-_]/)[0] === primary);
    if (match) return match;
  }
  return fallback;
}

/** A language's own name for itself ("Español", "العربية"), for the switcher. */
function languageLabel(code: string): string {
  try {
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
    return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
  } catch {
    return code;
  }
}

function orderTypesFor(mode: PageMode, info: GuestVenueInfo): GuestOrderType[] {
  const c = info.orderConfig;
  if (mode === 'table') return c.dineInEnabled ? ['dine_in'] : [];
  return [...(c.pickupEnabled ? (['pickup'] as const) : []), ...(c.deliveryEnabled ? (['delivery'] as const) : [])];
}

/** The page's assets, with the venue's accent stylesheet after the page's own when it has one. */
function themedAssets(assets: GuestAssets, info: GuestVenueInfo): PageAssets {
  const { script, styles, icon } = assets;
  return { script, icon, styles: info.accentColor ? [...styles, accentStylesheetUrl(info.accentColor)] : styles };
}

export const menuPagePath = (slug: string) => `/m/${encodeURIComponent(slug)}`;

/** Where an order is served, in words: its table as named, the venue's counter, or the guest's address. */
function whereServed(order: Pick<GuestOrderView, 'type' | 'tableName'>, venueName: string, strings: UiStrings): string {
  if (order.type === 'pickup') return fill(strings.wherePickup, { venue: venueName });
  if (order.type === 'delivery') return strings.whereDelivery;
  return order.tableName ? tableLabel(order.tableName, strings) : strings.type_dine_in;
}

export interface RenderedPage {
  representation: Representation;
  locale: string;
}

export class GuestPageService {
  /**
   * Pages by venue, language and link, while their version holds and until `validUntil`: the
   * venue's next midnight (a page says "tomorrow 12:00"), and a day at most (its open windows
   * reach a day past maxDaysAhead).
   */
  private readonly pages = new LRUCache<string, { version: string; validUntil: number; page: RenderedPage }>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (entry) => entry.page.representation.body.length + 1,
  });

  constructor(
    private readonly guest: GuestService,
    private readonly tables: TablesService,
    private readonly assets: GuestAssets,
    /** The clock availability and ordering are judged by (tests move it). */
    private readonly clock: () => number = Date.now,
  ) {}

  /** GET /t/:token: the table's venue menu, ordering dine-in at that table. */
  async tablePage(token: string, hints: LanguageHints): Promise<RenderedPage> {
    const { venue, table } = await this.tables.forGuest(token);
    return this.menuPage(venue.slug, hints, { id: table.id, name: table.name }, `/t/${encodeURIComponent(token)}`);
  }

  /** GET /m/:slug (and, with a table, /t/:token): the menu page, cached per language and table. */
  async menuPage(
    slug: string,
    hints: LanguageHints,
    table: { id: string; name: string } | null = null,
    self = menuPagePath(slug),
  ): Promise<RenderedPage> {
    const read = await this.guest.menuRead(slug, (languages, fallback) => chooseLanguage(hints, languages, fallback));
    const mode: PageMode = table ? 'table' : 'menu';
    // The page's own URL is in its language links: a table's regenerated token is another page.
    const key = `${read.venueId}|${read.locale}|${self}|${table ? `${table.id}|${table.name}` : ''}`;
    const now = this.clock();
    const hit = this.pages.get(key);
    if (hit && hit.version === read.version && now < hit.validUntil) return hit.page;

    const menu = await read.build();
    const strings = uiStrings(read.locale);
    const when = new When(read.locale, read.info.timezone);
    const orderTypes = orderTypesFor(mode, read.info);
    const c = read.info.orderConfig;
    const takesOrders = c.acceptingOrders && orderTypes.length > 0;
    const ordering = menu.ordering;
    const notice = orderingNotice(ordering, orderTypes.length > 0, when, now, strings);
    // What a scheduled order can be for: the windows up to a day past maxDaysAhead, so a page kept
    // for a day still covers them (the script offers the quarter hours from its own clock).
    const windows =
      takesOrders && ordering.scheduledOrders.enabled
        ? openWindows(
            sharedHours(read.info.openingHours, read.info.timezone),
            now,
            now + (ordering.scheduledOrders.maxDaysAhead + 1) * DAY_MS,
          )
        : [];
    const data: PageData = {
      slug,
      mode,
      table,
      locale: read.locale,
      currency: menu.venue.currency,
      timeZone: read.info.timezone,
      orderTypes: takesOrders ? orderTypes : [],
      ordering,
      windows,
      payments: PAYMENTS,
      deliveryFeeMinor: c.deliveryFeeMinor,
      freeDeliveryFromMinor: c.freeDeliveryFromMinor,
      minOrderMinor: c.minOrderMinor,
      menuUrl: `${guestVenuePath(slug)}/menu?locale=${encodeURIComponent(read.locale)}`,
      orderUrl: `${guestVenuePath(slug)}/orders`,
      statusPageBase: `${menuPagePath(slug)}/orders/`,
      strings,
      food: foodNames(read.locale),
    };
    const languages: LanguageLink[] = read.info.languages.map((code) => ({
      code,
      label: languageLabel(code),
      href: `${self}?lang=${encodeURIComponent(code)}`,
      current: code === read.locale,
    }));
    const labels = new Map<string, string>();
    for (const p of menu.products) {
      const label = availabilityLabel(p.availability, when, now, strings);
      if (label !== null) labels.set(p.id, label);
    }
    const html = renderMenuPage({ menu, strings, languages, table, notice, labels, data, assets: themedAssets(this.assets, read.info) });
    const page = { representation: new Representation('text/html; charset=utf-8', Buffer.from(html)), locale: read.locale };
    this.pages.set(key, { version: read.version, validUntil: Math.min(now + DAY_MS, nextDayStart(when, now)), page });
    return page;
  }

  /** GET /m/:slug/orders/:token: the order's status page (not cached: it is small and changes). */
  async statusPage(slug: string, token: string, hints: LanguageHints): Promise<RenderedPage> {
    const { venueId, info } = await this.guest.venueFacts(slug);
    const found = await this.guest.order(slug, token);
    const order = await found.view();
    const locale = chooseLanguage(hints, info.languages, info.defaultLanguage);
    const strings = uiStrings(locale);
    // A dine-in guest goes back to their table's page (ordering at that table), while it is active.
    const back = (found.tableId && (await this.tables.guestPath(venueId, found.tableId))) || menuPagePath(slug);
    // Times in the venue's timezone: when it was placed, and when it is for (a scheduled order) or
    // should be ready (placed + the venue's preparation time as it is now: an estimate).
    const when = new When(locale, info.timezone);
    const now = this.clock();
    const placedAt = Date.parse(order.createdAt);
    const scheduled = order.scheduledFor === null ? null : when.at(Date.parse(order.scheduledFor), now, true);
    const ready = order.scheduledFor === null ? when.at(placedAt + info.orderConfig.prepTimeMinutes * 60_000, now) : null;
    const html = renderStatusPage({
      venueName: info.name,
      logo: info.logo,
      order,
      where: whereServed(order, info.name, strings),
      placed: when.at(placedAt, now),
      scheduled,
      ready,
      strings,
      assets: themedAssets(this.assets, info),
      data: {
        slug,
        locale,
        currency: order.currency,
        orderUrl: guestOrderPath(slug, token),
        menuPage: `${back}?lang=${encodeURIComponent(locale)}`,
        strings,
      },
    });
    return { representation: new Representation('text/html; charset=utf-8', Buffer.from(html)), locale };
  }

  /**
   * The language a message page speaks: the request's, among the reference's languages (the page
   * has words for each), by their tags: `pt-BR` and `zh-CN`, as a menu page says them.
   */
  static messageLocale(hints: LanguageHints): string {
    return chooseLanguage(hints, [...LANGUAGES], 'en');
  }
}
