// The guest menu JSON behind the page: the modifier groups, option ids and live availability. A
// failed read (a blip, a per-IP 429 on shared Wi-Fi) is tried again at the next ask; a read is made
// again when the next availability mark ends or ordering opens or closes, so no reload is needed.
// No DOM: how the menu is fetched comes in, so the unit tests drive it.
import type { OrderingInfo } from '../../src/modules/guest-page/shared/availability.js';
import type { GuestMenu } from './menu-types.js';

/** The menu is read again when something changes (a mark ends, ordering opens) within this. */
export const REFRESH_AHEAD_MS = 6 * 3_600_000;

/** Read again this long after the change, so the server's clock has passed it too. */
const REFRESH_AFTER_MS = 1000;

/**
 * How long to wait before reading the menu again: until the next time something it says changes
 * (ordering opens or closes, a product's or an option's mark ends), just after; null when nothing
 * changes within REFRESH_AHEAD_MS.
 */
export function refreshDelay(menu: GuestMenu, ordering: OrderingInfo, now: number): number | null {
  const times = [ordering.open ? ordering.closesAt : ordering.opensAt];
  for (const p of menu.products) {
    times.push(p.availability?.until ?? null);
    for (const g of p.modifierGroups) for (const o of g.options) times.push(o.availability?.until ?? null);
  }
  let next = Infinity;
  for (const time of times) {
    const at = time === null ? NaN : Date.parse(time);
    if (at > now && at < next) next = at;
  }
  return next - now <= REFRESH_AHEAD_MS ? next - now + REFRESH_AFTER_MS : null;
}

export class MenuFeed {
  private pending: Promise<boolean> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** Reads the menu; `fresh` skips the HTTP cache. */
    private readonly fetchMenu: (fresh: boolean) => Promise<GuestMenu>,
    /** Takes a menu read and gives the ordering it leaves, for the next read's time. */
    private readonly onMenu: (menu: GuestMenu) => OrderingInfo,
  ) {}

  /** The menu, read once and shared by every caller until a read fails or `fresh` asks again; false when it could not be read. */
  read(fresh = false): Promise<boolean> {
    if (fresh) this.pending = null;
    this.pending ??= this.fetchMenu(fresh)
      .then((menu) => {
        const ordering = this.onMenu(menu);
        this.plan(menu, ordering);
        return true;
      })
      .catch(() => {
        this.pending = null;
        return false;
      });
    return this.pending;
  }

  private plan(menu: GuestMenu, ordering: OrderingInfo): void {
    clearTimeout(this.timer);
    const delay = refreshDelay(menu, ordering, Date.now());
    if (delay !== null) this.timer = setTimeout(() => void this.read(true), delay);
  }
}
