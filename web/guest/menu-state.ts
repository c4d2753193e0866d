// What the menu page knows while the guest orders: the guest menu's products and whether ordering
// is open, the cart, the order type and the time picked, the lines the server refused; and what
// follows from them: the sums, each cart line's problem, whether "Add" and "Place order" are
// offered, the order's body. No DOM: the views (card-availability.ts, product-dialog.ts,
// cart-dialog.ts) draw it, and the unit tests drive it.
import {
  availabilityLabel,
  slotsByDay,
  slotTimes,
  type ItemAvailability,
  type OrderingInfo,
  type When,
} from '../../src/modules/guest-page/shared/availability.js';
import type { GuestOrderType, PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { fill } from '../../src/modules/guest-page/shared/strings.js';
import type { GuestOrderInput } from '../../src/modules/orders/order-body.schemas.js';
import type { OrderSums } from '../../src/shared/pricing.js';
import { optionsOf, type Cart, type CartLine } from './cart.js';
import type { GuestMenu, MenuProduct } from './menu-types.js';
import { TimePick, type SlotDay } from './time-pick.js';

/** A field of the checkout form by the name the server knows it by: its text, trimmed; undefined when empty. */
export type FormValue = (name: string) => string | undefined;

export class MenuState {
  /** The guest menu's products by id; empty until the menu JSON is in. */
  products: ReadonlyMap<string, MenuProduct> = new Map();
  ordering: OrderingInfo;
  orderType: GuestOrderType;
  readonly time = new TimePick();
  /** An order is being sent: a second tap does nothing meanwhile. */
  busy = false;
  /** Lines the server refused (409 ITEM_UNAVAILABLE), by `productId|optionId`, with why. */
  private readonly refused = new Map<string, string>();

  constructor(
    readonly data: PageData,
    readonly cart: Cart,
    readonly when: When,
  ) {
    this.ordering = data.ordering;
    this.orderType = data.orderTypes[0] ?? 'dine_in';
  }

  /** Whether this page takes orders at all: now, or for later. */
  canAdd(): boolean {
    return this.data.orderTypes.length > 0 && this.ordering.reason !== 'not_accepting';
  }

  /** Takes a read of the guest menu: its products and ordering; cart lines it no longer allows go. True when ordering changed. */
  applyMenu(menu: GuestMenu): boolean {
    this.products = new Map(menu.products.map((p) => [p.id, p]));
    const before = JSON.stringify(this.ordering);
    this.ordering = menu.ordering;
    this.cart.reconcile(this.products);
    return JSON.stringify(this.ordering) !== before;
  }

  /** Why an item cannot be ordered at `now`, in words ("Sold out until 18:30"); null when it can. */
  unavailable(availability: ItemAvailability | undefined, now = Date.now()): string | null {
    return availabilityLabel(availability, this.when, now, this.data.strings);
  }

  /**
   * Why a line cannot be ordered: its product or an option is unavailable now (the menu JSON), or
   * the server refused it (409 ITEM_UNAVAILABLE); null when it can.
   */
  lineProblem(line: CartLine, now = Date.now()): string | null {
    const product = this.products.get(line.productId);
    if (!product) return null;
    const own = this.unavailable(product.availability, now) ?? this.refused.get(`${line.productId}|`) ?? null;
    if (own !== null) return own;
    const options = optionsOf(product);
    for (const m of line.modifiers) {
      const o = options.get(m.optionId);
      const status = o ? (this.unavailable(o.availability, now) ?? this.refused.get(`${line.productId}|${m.optionId}`) ?? null) : null;
      if (o && status !== null) return fill(this.data.strings.nameStatus, { name: o.name, status });
    }
    return null;
  }

  hasProblems(): boolean {
    return this.cart.lines.some((line) => this.lineProblem(line) !== null);
  }

  /** The server refused these items for the time picked: their lines say `why` until removed or the time changes. */
  refuse(items: readonly { productId: string; optionId: string | null }[], why: string): void {
    for (const item of items) this.refused.set(`${item.productId}|${item.optionId ?? ''}`, why);
  }

  /** The time picked changed: what the server refused was for the time before. */
  forgetRefusals(): void {
    this.refused.clear();
  }

  /** Takes a line out of the cart, and what the server said of its product once no line has it. */
  removeLine(index: number): void {
    this.cart.setQuantity(index, 0);
    for (const key of [...this.refused.keys()]) {
      if (!this.cart.lines.some((l) => key.startsWith(`${l.productId}|`))) this.refused.delete(key);
    }
  }

  /** The order's sums as the server will make them, for the order type chosen. */
  sums(): OrderSums {
    return this.cart.sums(this.products, this.orderType, this.data);
  }

  /** With scheduled orders, the days and quarter hours inside the opening hours the checkout offers; the pick settles on them. */
  scheduleDays(now = Date.now()): SlotDay[] {
    const days = this.ordering.scheduledOrders.enabled ? slotsByDay(slotTimes(this.data.windows, now, this.ordering), this.when) : [];
    this.time.settle(days, this.ordering.open);
    return days;
  }

  /** Placing is offered for now while ordering is open, and for a picked time while scheduling is on. */
  canPlace(): boolean {
    return this.canAdd() && this.cart.count > 0 && !this.hasProblems() && (this.time.scheduledFor !== null || this.ordering.open);
  }

  /** Ordering closed since the page was read (409 ORDERING_CLOSED): why, and when it opens again. */
  closeOrdering(details: { reason?: OrderingInfo['reason']; opensAt?: string | null } = {}): void {
    this.ordering = { ...this.ordering, open: false, reason: details.reason ?? 'closed', opensAt: details.opensAt ?? null, closesAt: null };
  }

  /** The order as the server takes it, from the checkout's fields (an empty field is left out). */
  orderBody(field: FormValue): GuestOrderInput {
    const delivery = this.orderType === 'delivery';
    return {
      type: this.orderType,
      paymentMethod: (field('paymentMethod') ?? this.data.payments[0]) as GuestOrderInput['paymentMethod'],
      items: this.cart.lines.map((l) => ({ productId: l.productId, quantity: l.quantity, modifiers: l.modifiers })),
      customerName: field('customerName'),
      customerPhone: field('customerPhone'),
      customerEmail: field('customerEmail'),
      deliveryAddress: delivery ? field('deliveryAddress') : undefined,
      deliveryNotes: delivery ? field('deliveryNotes') : undefined,
      comment: field('comment'),
      scheduledFor: this.time.scheduledFor ?? undefined,
      tableId: this.data.table?.id,
    };
  }
}
