import type { Database } from '../../db/port.js';
import type { Actor } from '../audit/index.js';
import { type AvailabilityService, orderingAt } from '../availability/index.js';
import { sharedHours } from '../../shared/opening-hours.js';
import { wallClock, zonedToInstant } from '../../shared/schedule.js';
import type { OrdersService } from '../orders/index.js';
import type { SettingsView, SettingsService } from '../settings/index.js';
import type { ConsoleSession } from './sessions.service.js';
import { serviceItems } from './board.repository.js';
import type { BoardView, BoardOrderingView, OrderingPatchInput, ServiceView } from './console.schemas.js';

/**
 * What the board reads and the service controls change (docs/console.md). Reads are the venue's
 * own rows; every change goes through the service /v1 uses (settings, availability), so its rules,
 * audit and webhooks are the same.
 */
export class BoardService {
  constructor(
    private readonly db: Database,
    private readonly orders: Pick<OrdersService, 'orderClock' | 'boardOrders'>,
    private readonly settings: Pick<SettingsService, 'get' | 'update'>,
    private readonly availability: Pick<AvailabilityService, 'list'>,
    private readonly clock: () => number,
  ) {}

  /** The board as it opens: the orders it shows and the cursor its stream goes on from. */
  async board(session: ConsoleSession): Promise<BoardView> {
    const { settings } = await this.settings.get(session.venueId);
    const now = this.clock();
    // Read before the orders: an order written between the two is read again by the stream (the board keeps the latest).
    const cursor = await this.orders.orderClock(session.venueId);
    const orders = await this.orders.boardOrders(session.venueId, new Date(startOfDay(now, settings.timezone)));
    return {
      member: { id: session.memberId, name: session.memberName, role: session.role },
      venue: {
        id: session.venueId,
        name: settings.name,
        currency: settings.currency,
        timezone: settings.timezone,
        prepTimeMinutes: settings.orderConfig.prepTimeMinutes,
      },
      cursor: cursor?.toISOString() ?? null,
      orders,
      ordering: this.ordering(settings, now),
    };
  }

  /** The service controls: ordering now, and what can be marked sold out, with the marks that hold. */
  async service(venueId: string): Promise<ServiceView> {
    const [{ settings }, marks, items] = [
      await this.settings.get(venueId),
      await this.availability.list(venueId),
      await serviceItems(this.db, venueId),
    ];
    const until = new Map<string, string | null>();
    for (const mark of [...marks.products, ...marks.ingredients]) until.set(mark.id, mark.until);
    const item = (r: (typeof items)[number]) => ({
      id: r.id,
      ref: r.external_id ?? r.id,
      name: r.name,
      available: !until.has(r.id),
      until: until.get(r.id) ?? null,
    });
    return {
      ordering: this.ordering(settings, this.clock()),
      products: items.filter((r) => r.kind === 'product').map((r) => ({ ...item(r), categoryName: r.category_name })),
      ingredients: items.filter((r) => r.kind === 'ingredient').map(item),
    };
  }

  /** Pauses ordering for `minutes` from now (0 resumes), as PATCH /v1/settings would. */
  async pause(actor: Actor, minutes: number): Promise<{ ordering: BoardOrderingView }> {
    const pausedUntil = minutes === 0 ? null : new Date(this.clock() + minutes * 60_000).toISOString();
    const { settings } = await this.settings.update(actor, { orderConfig: { pausedUntil } }, undefined);
    return { ordering: this.ordering(settings, this.clock()) };
  }

  /** A manager's ordering settings: accepting orders, preparation time. */
  async setOrdering(actor: Actor, patch: OrderingPatchInput): Promise<{ ordering: BoardOrderingView }> {
    const { settings } = await this.settings.update(actor, { orderConfig: patch }, undefined);
    return { ordering: this.ordering(settings, this.clock()) };
  }

  private ordering(settings: SettingsView, now: number): BoardOrderingView {
    const config = settings.orderConfig;
    const { view } = orderingAt(config, sharedHours(settings.openingHours, settings.timezone), now);
    const paused = config.pausedUntil !== null && Date.parse(config.pausedUntil) > now;
    return {
      open: view.open,
      reason: view.reason,
      opensAt: view.opensAt,
      closesAt: view.closesAt,
      pausedUntil: paused ? config.pausedUntil : null,
      acceptingOrders: config.acceptingOrders,
      prepTimeMinutes: config.prepTimeMinutes,
    };
  }
}

/** Midnight of `now`'s date in the venue's timezone (a DST day is 23 or 25 hours long). */
function startOfDay(now: number, timeZone: string): number {
  const w = wallClock(now, timeZone);
  return zonedToInstant(Date.UTC(w.year, w.month - 1, w.day), timeZone);
}
