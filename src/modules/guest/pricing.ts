// Server-side pricing of a guest order (decisions section 2). Pure: the snapshot, the settings
// and the request in; the priced lines or every validation error out.
import { optionAvailability, productAvailability, type AvailabilityState } from '../availability/item-availability.js';
import type { MenuDocumentValue } from '../menu/menu.schemas.js';
import { ruleBreaches } from '../menu/modifier-rules.js';
import type { NewOrder } from '../orders/guest-orders.js';
import type { OrderConfigValue } from '../settings/settings.schemas.js';
import type { GuestOrderInput } from './guest.schemas.js';
import { effectivePrice, guestVisible } from './guest-view.js';

export interface PricingContext {
  doc: MenuDocumentValue;
  orderConfig: OrderConfigValue;
  hasDelivery: boolean;
  /** A product's live promotional price below its effective price, or null (guest-view.ts promoPrice). */
  promoPrice: (product: MenuDocumentValue['products'][number]) => number | null;
  /** Availability at the moment the order is for (now, or its scheduledFor). */
  availability: AvailabilityState;
}

/** Something an order asked for that is unavailable then (decisions 13, ITEM_UNAVAILABLE's details). */
export interface UnavailableItem {
  productId: string;
  optionId: string | null;
  until: string | null;
  /** For the message: the product's name, and the option's. */
  label: string;
}

export type PricedOrder = Pick<NewOrder, 'items' | 'subtotalAmount' | 'deliveryFee' | 'discountAmount' | 'totalAmount'>;

const NOTHING_CHOSEN: ReadonlyMap<string, { name: string; quantity: number }> = new Map();

const TYPE_SWITCH = { delivery: 'deliveryEnabled', pickup: 'pickupEnabled', dine_in: 'dineInEnabled' } as const;

export function priceOrder(
  input: GuestOrderInput,
  ctx: PricingContext,
): { errors: string[]; order: PricedOrder | null; unavailable: UnavailableItem[] } {
  const errors: string[] = [];
  const unavailable: UnavailableItem[] = [];
  const { orderConfig } = ctx;
  if (!orderConfig.acceptingOrders) errors.push('the venue is not accepting orders right now');
  if (input.type === 'delivery' && !ctx.hasDelivery) errors.push("type delivery is not available on this venue's plan");
  else if (!orderConfig[TYPE_SWITCH[input.type]]) errors.push(`type ${input.type} is not enabled for this venue`);
  if (input.type === 'delivery' && !input.deliveryAddress?.trim()) errors.push('deliveryAddress is required for delivery orders');
  if (input.changeFromAmount !== undefined && input.paymentMethod !== 'cash') {
    errors.push('changeFromAmount is only allowed with paymentMethod cash');
  }

  // A guest can order what the guest menu shows.
  const products = new Map(guestVisible(ctx.doc).products.map((p) => [p.id, p]));

  const items: PricedOrder['items'] = [];
  let discountAmount = 0;
  input.items.forEach((line, i) => {
    const product = products.get(line.productId);
    if (!product) {
      errors.push(`items[${i}].productId is not on the menu`);
      return;
    }
    const options = new Map(product.modifierGroups.flatMap((g) => g.options.map((o) => [o.id, { group: g, option: o }] as const)));
    const available = productAvailability(product, ctx.availability);
    // An unavailable product is listed once, whatever its options (decisions 13).
    if (!available.available)
      unavailable.push({ productId: product.id, optionId: null, until: available.until, label: `'${product.name}'` });
    // Each group's chosen options with their summed quantities, for the modifier rules (decisions 15).
    const chosenPerGroup = new Map<string, Map<string, { name: string; quantity: number }>>();
    const modifiers: PricedOrder['items'][number]['modifiers'] = [];
    let unitPrice = effectivePrice(product);
    // A live promotion lowers the base price (never the modifiers); the line keeps the regular
    // price and the saving is the order's discount (decisions 2: total = subtotal + fee - discount).
    const promo = ctx.promoPrice(product);
    if (promo !== null) discountAmount += (unitPrice - promo) * line.quantity;
    (line.modifiers ?? []).forEach((m, j) => {
      const found = options.get(m.optionId);
      if (!found) {
        errors.push(`items[${i}].modifiers[${j}].optionId is not an option of product '${product.name}'`);
        return;
      }
      const option = optionAvailability(found.option, ctx.availability);
      if (available.available && !option.available) {
        unavailable.push({
          productId: product.id,
          optionId: found.option.id,
          until: option.until,
          label: `'${found.option.ingredientName}' of '${product.name}'`,
        });
      }
      const quantity = m.quantity ?? 1;
      let chosen = chosenPerGroup.get(found.group.id);
      if (!chosen) chosenPerGroup.set(found.group.id, (chosen = new Map()));
      const taken = chosen.get(found.option.id);
      if (taken) taken.quantity += quantity;
      else chosen.set(found.option.id, { name: found.option.ingredientName, quantity });
      unitPrice += found.option.priceAdjustment * quantity;
      modifiers.push({
        groupName: found.group.name,
        ingredientExternalId: found.option.ingredientExternalId,
        ingredientName: found.option.ingredientName,
        priceAdjustment: found.option.priceAdjustment,
        quantity,
      });
    });
    for (const group of product.modifierGroups) {
      for (const breach of ruleBreaches(group, chosenPerGroup.get(group.id) ?? NOTHING_CHOSEN)) {
        errors.push(`items[${i}].modifiers: ${product.name} / ${group.name}: ${breach}`);
      }
    }
    items.push({
      productId: product.id,
      productExternalId: product.externalId,
      productName: product.name,
      quantity: line.quantity,
      unitPrice,
      totalPrice: unitPrice * line.quantity,
      modifiers,
    });
  });

  const subtotalAmount = items.reduce((sum, it) => sum + it.totalPrice, 0);
  if (errors.length === 0 && subtotalAmount < orderConfig.minOrderMinor) {
    errors.push(`the subtotal ${subtotalAmount} is below the minimum order ${orderConfig.minOrderMinor}`);
  }
  if (errors.length > 0) return { errors, order: null, unavailable };

  const free = orderConfig.freeDeliveryFromMinor !== null && subtotalAmount >= orderConfig.freeDeliveryFromMinor;
  const deliveryFee = input.type === 'delivery' && !free ? orderConfig.deliveryFeeMinor : 0;
  return {
    errors,
    unavailable,
    order: { items, subtotalAmount, deliveryFee, discountAmount, totalAmount: subtotalAmount + deliveryFee - discountAmount },
  };
}
