// The product dialog's state: each option's quantity (the venue's defaults to begin with), how many
// of the dish, what the modifier rules still ask and what "Add" costs. No DOM: the dialog
// (product-dialog.ts) draws it and keeps it, the unit tests drive it.
import type { UiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { defaultQuantities, optionCap, roomIn } from '../../src/shared/modifier-rules.js';
import { linePayable, type CartLine, type CartModifier } from './cart.js';
import type { MenuGroup, MenuProduct } from './menu-types.js';
import { groupNeed } from './rule-text.js';

export class ProductChoice {
  /** Each chosen option's quantity, by option id. */
  readonly quantities: Map<string, number>;
  /** How many of the dish. */
  quantity = 1;

  constructor(
    readonly product: MenuProduct,
    /** Whether an option can be chosen now (not sold out). */
    readonly usable: (optionId: string) => boolean,
  ) {
    this.quantities = defaultQuantities(product.modifierGroups, usable);
  }

  /** Sets an option's quantity; 0 takes it out. */
  set(optionId: string, quantity: number): void {
    if (quantity > 0) this.quantities.set(optionId, quantity);
    else this.quantities.delete(optionId);
  }

  /** A single choice: this option alone, or none. */
  pick(group: MenuGroup, optionId: string | null): void {
    for (const o of group.options) this.quantities.delete(o.id);
    if (optionId !== null) this.quantities.set(optionId, 1);
  }

  /** How many more choices the group takes now (Infinity without a limit). */
  room(group: MenuGroup): number {
    return roomIn(group, this.quantities);
  }

  /** The most of one option the guest can have now: its cap, and no more than its group has room for. */
  most(group: MenuGroup, optionId: string): number {
    return Math.min(optionCap(group), (this.quantities.get(optionId) ?? 0) + this.room(group));
  }

  /** The options chosen, in the dialog's order; one sold out since it was chosen is left out. */
  chosen(): CartModifier[] {
    return this.product.modifierGroups.flatMap((g) =>
      g.options
        .filter((o) => this.usable(o.id) && (this.quantities.get(o.id) ?? 0) > 0)
        .map((o) => ({ optionId: o.id, quantity: this.quantities.get(o.id) as number })),
    );
  }

  /** What the group still needs, in words; null when its rule is met. */
  need(group: MenuGroup, t: UiStrings): string | null {
    return groupNeed(group, this.quantities, t);
  }

  /** Each group whose rule is not met yet, with what it needs, in the dialog's order. */
  needs(t: UiStrings): { group: MenuGroup; need: string }[] {
    return this.product.modifierGroups
      .map((group) => ({ group, need: this.need(group, t) }))
      .filter((n): n is { group: MenuGroup; need: string } => n.need !== null);
  }

  /** What "Add" costs: the line at its price with the options, less a live promotion, times the quantity. */
  price(): number {
    return linePayable(this.product, this.chosen()) * this.quantity;
  }

  /** The cart line "Add" makes. */
  line(): CartLine {
    return { productId: this.product.id, quantity: this.quantity, modifiers: this.chosen() };
  }
}
