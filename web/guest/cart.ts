// The cart: lines of product + options, kept in local storage per venue so a reload (or a trip
// to another language) keeps it; priced from the guest menu as the server will price it.
import type { ItemAvailability, OrderingInfo } from '../../src/modules/guest-page/shared/availability.js';
import type { FoodInfo } from '../../src/modules/guest-page/shared/food.js';
import { meetsRules } from './rules.js';
import { load, randomKey, save } from './storage.js';

export interface MenuOption {
  id: string;
  name: string;
  action: string;
  priceAdjustment: number;
  /** Preselected when the dish is opened (decisions 15). */
  isDefault: boolean;
  /** Live availability (decisions 13); absent reads as available. */
  availability?: ItemAvailability;
  /** Allergen codes of its ingredient (decisions 14). */
  allergens?: string[];
}

export interface MenuGroup {
  id: string;
  name: string;
  type: string;
  isRequired: boolean;
  /** The fewest choices, counted as the sum of the chosen quantities (decisions 15). */
  minSelections: number;
  /** The most choices; null: no limit. */
  maxSelections: number | null;
  /** How often one option may be taken; null: up to 99. */
  maxQuantityPerOption: number | null;
  options: MenuOption[];
}

/** A product of the guest menu JSON, with its food information (decisions 14). */
export interface MenuProduct extends FoodInfo {
  id: string;
  name: string;
  description: string | null;
  effectivePriceMinor: number;
  promoPriceMinor: number | null;
  modifierGroups: MenuGroup[];
  /** The stored photo (largest variant first); null without one. */
  image?: { variants: { url: string; width: number; height: number }[] } | null;
  /** Live availability (decisions 13); absent reads as available. */
  availability?: ItemAvailability;
}

export interface GuestMenu {
  products: MenuProduct[];
  ordering?: OrderingInfo;
}

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

/** A live promotion's saving per unit: the server keeps lines at the regular price and sums these as the discount. */
export function unitSaving(p: MenuProduct): number {
  return p.promoPriceMinor === null ? 0 : p.effectivePriceMinor - p.promoPriceMinor;
}

export function optionsOf(p: MenuProduct): Map<string, MenuOption> {
  return new Map(p.modifierGroups.flatMap((g) => g.options.map((o) => [o.id, o] as const)));
}

/**
 * A line's unit price as the server computes it (decisions 2): effectivePriceMinor plus the options.
 * A promotion is not in it: it is the order's discount (unitSaving).
 */
export function unitPrice(p: MenuProduct, modifiers: CartModifier[]): number {
  const options = optionsOf(p);
  return modifiers.reduce((sum, m) => sum + (options.get(m.optionId)?.priceAdjustment ?? 0) * m.quantity, p.effectivePriceMinor);
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
  reconcile(products: Map<string, MenuProduct>): void {
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
      ? this.stored.lines.map((l) => (l === same ? { ...l, quantity: Math.min(99, l.quantity + line.quantity) } : l))
      : [...this.stored.lines, line];
    this.write({ lines });
  }

  setQuantity(index: number, quantity: number): void {
    const lines =
      quantity <= 0
        ? this.stored.lines.filter((_, i) => i !== index)
        : this.stored.lines.map((l, i) => (i === index ? { ...l, quantity: Math.min(99, quantity) } : l));
    this.write({ lines });
  }

  /** The sum of the lines at their regular prices: what the minimum order and free delivery compare with. */
  subtotal(products: Map<string, MenuProduct>): number {
    return this.sum(products, (p, l) => unitPrice(p, l.modifiers) * l.quantity);
  }

  /** What live promotions take off. */
  discount(products: Map<string, MenuProduct>): number {
    return this.sum(products, (p, l) => unitSaving(p) * l.quantity);
  }

  private sum(products: Map<string, MenuProduct>, of: (p: MenuProduct, l: CartLine) => number): number {
    return this.stored.lines.reduce((sum, l) => {
      const p = products.get(l.productId);
      return p ? sum + of(p, l) : sum;
    }, 0);
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
