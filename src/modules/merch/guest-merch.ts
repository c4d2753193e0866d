// What guests see of merchandising, live (docs/merchandising.md): the banners and promotions whose
// schedule holds right now in the venue's timezone. Nothing here waits for a publish: a promotion
// that starts at 18:00 is on the menu, and in the prices, at 18:00.
import { createHash } from 'node:crypto';
import { effectivePrice } from '../../shared/pricing.js';
import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database } from '../../db/port.js';
import type { MediaImageView, MediaUrls } from '../media/index.js';
import { allBanners, type BannerRow } from './banners.repository.js';
import { allPromotions, itemsOf, type PromotionItemRow, type PromotionRow } from './promotions.repository.js';
import { isLive, windowOf, type Window } from '../../shared/schedule.js';

interface Loaded {
  banners: BannerRow[];
  promotions: PromotionRow[];
  items: PromotionItemRow[];
  /** A digest of everything loaded: the same rows give the same digest on every instance. */
  digest: string;
  /** The newest change among them (for the guest menu's generatedAt). */
  changedAt: Date | null;
  /** By timezone (a venue has one; a change of it reads again): schedules as instants, and the live view. */
  zones: Map<string, Zoned>;
}

interface Zoned {
  windows: Map<string, Window | null>;
  /** Every instant a schedule opens or closes, ascending. */
  boundaries: number[];
  /** The live view, valid while the clock stays within [from, until): no window opens or closes in it. */
  live?: { from: number; until: number; value: LiveMerch };
}

/** The lowest live promotional price of a product, and the promotion that gives it. */
export interface PromoPrice {
  priceMinor: number;
  promotionId: string;
}

export interface LiveBanner {
  row: BannerRow;
  image: MediaImageView | null;
}

export interface LiveMerch {
  /** What is live now, as a cache version: it moves when a row changes or a window opens or closes. */
  version: string;
  changedAt: Date | null;
  banners: LiveBanner[];
  promotions: { row: PromotionRow; productIds: string[] }[];
  prices: Map<string, PromoPrice>;
}

export class GuestMerch {
  private readonly loaded: EpochMemo<Loaded>;

  constructor(
    private readonly db: Database,
    private readonly urls: MediaUrls,
    private readonly clock: () => number,
  ) {
    this.loaded = new EpochMemo(db);
  }

  private async load(venueId: string): Promise<Loaded> {
    const banners = await allBanners(this.db, venueId);
    const promotions = await allPromotions(this.db, venueId);
    const items = await itemsOf(this.db, venueId, null);
    const stamps = [...banners, ...promotions, ...items].map((r) => r.updated_at.getTime());
    const digest = createHash('sha1')
      .update(JSON.stringify([banners, promotions, items]))
      .digest('base64url')
      .slice(0, 16);
    return { banners, promotions, items, digest, changedAt: stamps.length ? new Date(Math.max(...stamps)) : null, zones: new Map() };
  }

  private zoned(loaded: Loaded, timeZone: string): Zoned {
    let zoned = loaded.zones.get(timeZone);
    if (!zoned) {
      const rows = [...loaded.banners, ...loaded.promotions];
      const windows = new Map(
        rows.map((r) => [r.id, windowOf({ isActive: r.is_active, startsAt: r.starts_at, endsAt: r.ends_at }, timeZone)]),
      );
      const boundaries = [
        ...new Set([...windows.values()].flatMap((w) => (w ? [w.from, w.until] : [])).filter((t): t is number => t !== null)),
      ];
      zoned = { windows, boundaries: boundaries.sort((a, b) => a - b) };
      loaded.zones.set(timeZone, zoned);
    }
    return zoned;
  }

  /**
   * What is live now. The guest menu asks on every request: the answer is kept until the data
   * changes (a write moves the epoch) or the clock crosses a schedule boundary.
   */
  async live(venueId: string, timeZone: string): Promise<LiveMerch> {
    const loaded = await this.loaded.get(venueId, { venueId }, () => this.load(venueId));
    return this.liveIn(venueId, loaded, timeZone);
  }

  private liveIn(venueId: string, loaded: Loaded, timeZone: string): LiveMerch {
    const zoned = this.zoned(loaded, timeZone);
    const now = this.clock();
    if (zoned.live && zoned.live.from <= now && now < zoned.live.until) return zoned.live.value;
    const from = zoned.boundaries.filter((t) => t <= now).at(-1) ?? Number.NEGATIVE_INFINITY;
    const until = zoned.boundaries.find((t) => t > now) ?? Number.POSITIVE_INFINITY;
    const value = this.build(venueId, loaded, zoned.windows, now);
    zoned.live = { from, until, value };
    return value;
  }

  private build(venueId: string, loaded: Loaded, windows: Map<string, Window | null>, now: number): LiveMerch {
    const live = (id: string) => isLive(windows.get(id) ?? null, now);
    const banners = loaded.banners.filter((b) => live(b.id));
    const promotions = loaded.promotions.filter((p) => live(p.id));
    const livePromotions = new Set(promotions.map((p) => p.id));
    const prices = new Map<string, PromoPrice>();
    const productIds = new Map<string, string[]>(promotions.map((p) => [p.id, []]));
    for (const item of loaded.items) {
      if (!livePromotions.has(item.promotion_id)) continue;
      productIds.get(item.promotion_id)!.push(item.product_id);
      if (item.promo_price_minor === null) continue;
      const best = prices.get(item.product_id);
      // Two live promotions on one product: the lowest price wins (docs/decisions.md).
      if (!best || item.promo_price_minor < best.priceMinor)
        prices.set(item.product_id, { priceMinor: item.promo_price_minor, promotionId: item.promotion_id });
    }
    return {
      version: `${loaded.digest}:${[...banners, ...promotions].map((r) => r.id).join(',')}`,
      changedAt: loaded.changedAt,
      banners: banners.map((row) => ({ row, image: this.urls.view(venueId, row.image) })),
      promotions: promotions.map((row) => ({ row, productIds: productIds.get(row.id)! })),
      prices,
    };
  }
}

/** A live promotional price applies when it is below the product's own effective price. */
export function promoPrice(p: { id: string; priceMinor: number; salePriceMinor: number | null; isSaleActive: boolean }, merch: LiveMerch) {
  const promo = merch.prices.get(p.id);
  return promo && promo.priceMinor < effectivePrice(p) ? promo : null;
}
