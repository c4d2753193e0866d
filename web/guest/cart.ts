// The cart: lines of product + options, kept in local storage per venue so a reload (or a trip
// to another language) keeps it; priced from the guest menu with the server's own arithmetic and
// rules (src/shared/pricing.ts, src/shared/modifier-rules.ts), so its sums are the order's.
import { meetsRules } from '../../src/shared/modifier-rules.js';
import { MAX_LINE_QUANTITY, orderSums, unitPrice, unitSaving, type DeliveryTerms, type OrderSums } from '../../src/shared/pricing.js';
import type { MenuOption, MenuProduct } from './menu-types.js';
import { load, randomKey, save } from './storage.js';

export interface CartModifier {
  optionId: string;
  quantity: number;
}

export interface CartLine {
  productId: string;
  quantity: number;
  modifiers: CartModifier[];
}

interface Stored {
  lines: CartLine[];
  /** The Idempotency-Key of the order being placed, with the body it was sent with. */
  attempt?: { key: string; body: string };
}

/** What a guest pays for a product before options: the live promotional price when there is one. */
export function basePrice(p: MenuProduct): number {
  return p.promoPriceMinor ?? p.effectivePriceMinor;
}

export function optionsOf(p: MenuProduct): Map<string, MenuOption> {
  return new Map(p.modifierGroups.flatMap((g) => g.options.map((o) => [o.id, o] as const)));
}

/** A line's unit price as the server computes it: effectivePriceMinor plus the options (a promotion is the order's discount). */
export function linePrice(p: MenuProduct, modifiers: readonly CartModifier[]): number {
  const options = optionsOf(p);
  return unitPrice(
    p.effectivePriceMinor,
    modifiers.flatMap((m) => {
      const option = options.get(m.optionId);
      return option ? [{ priceAdjustment: option.priceAdjustment, quantity: m.quantity }] : [];
    }),
  );
}

/** What one unit of the line costs the guest: its price less a live promotion's saving. */
export function linePayable(p: MenuProduct, modifiers: readonly CartModifier[]): number {
  return linePrice(p, modifiers) - unitSaving(p.effectivePriceMinor, p.promoPriceMinor);
}

const sameModifiers = (a: CartModifier[], b: CartModifier[]) =>
  a.length === b.length && a.every((m, i) => m.optionId === b[i].optionId && m.quantity === b[i].quantity);

export class Cart {
  private stored: Stored;
  private readonly key: string;

  constructor(slug: string) {
    this.key = `carta.cart.${slug}`;
    const found = load<Stored>(this.key);
    this.stored = found && Array.isArray(found.lines) ? found : { lines: [] };
  }

  get lines(): readonly CartLine[] {
    return this.stored.lines;
  }

  get count(): number {
    return this.stored.lines.reduce((n, l) => n + l.quantity, 0);
  }

  /**
   * Drops lines whose product or options left the menu, or whose options no longer meet their groups'
   * rules (a publish since the cart was filled). Lines of products or options sold out since stay:
   * the checkout names them, to be removed.
   */
  reconcile(products: ReadonlyMap<string, MenuProduct>): void {
    const kept = this.stored.lines.filter((l) => {
      const p = products.get(l.productId);
      if (!p) return false;
      const options = optionsOf(p);
      return l.modifiers.every((m) => options.has(m.optionId)) && meetsRules(p.modifierGroups, l.modifiers);
    });
    if (kept.length !== this.stored.lines.length) this.write({ lines: kept });
  }

  add(line: CartLine): void {
    const same = this.stored.lines.find((l) => l.productId === line.productId && sameModifiers(l.modifiers, line.modifiers));
    const lines = same
      ? this.stored.lines.map((l) => (l === same ? { ...l, quantity: Math.min(MAX_LINE_QUANTITY, l.quantity + line.quantity) } : l))
      : [...this.stored.lines, line];
    this.write({ lines });
  }

  setQuantity(index: number, quantity: number): void {
    const lines =
      quantity <= 0
        ? this.stored.lines.filter((_, i) => i !== index)
        : this.stored.lines.map((l, i) => (i === index ? { ...l, quantity: Math.min(MAX_LINE_QUANTITY, quantity) } : l));
    this.write({ lines });
  }

  /**
   * The order's sums as the server will make them: the lines of products on the menu at their
   * regular prices, live promotions as the discount, the delivery fee of `type`.
   */
  sums(products: ReadonlyMap<string, MenuProduct>, type: string, terms: DeliveryTerms): OrderSums {
    const lines = this.stored.lines.flatMap((l) => {
      const p = products.get(l.productId);
      return p
        ? [{ unitPrice: linePrice(p, l.modifiers), unitSaving: unitSaving(p.effectivePriceMinor, p.promoPriceMinor), quantity: l.quantity }]
        : [];
    });
    return orderSums(lines, type, terms);
  }

  /**
   * The Idempotency-Key for sending `body`: the same while the same order is retried (a double tap,
   * a reload after a lost answer), a new one once the order changed.
   */
  attemptKey(body: string): string {
    if (this.stored.attempt?.body !== body) this.write({ ...this.stored, attempt: { key: randomKey(), body } });
    return (this.stored.attempt as { key: string }).key;
  }

  clear(): void {
    this.write({ lines: [] });
  }

  private write(next: Stored): void {
    // A changed cart is a new order: its key goes with the old body.
    this.stored = next;
    save(this.key, next.lines.length === 0 && !next.attempt ? null : next);
  }
}
