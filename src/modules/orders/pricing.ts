// Server-side pricing of a guest order. Pure: the snapshot, the settings
// and the request in; the priced lines or every validation error out. The arithmetic and the
// modifier rules are the shared layer's (src/shared/pricing.ts, src/shared/modifier-rules.ts),
// which the guest page's cart runs too.
import { lineBreaches, type ChosenOption } from '../../shared/modifier-rules.js';
import { effectivePrice, orderSums, unitPrice, unitSaving, type LineAmounts, type PricedChoice } from '../../shared/pricing.js';
import { optionAvailability, productAvailability, type AvailabilityState } from '../availability/index.js';
import { type MenuDocumentValue, guestVisible } from '../menu/index.js';
import type { NewOrder } from './guest-orders.js';
import type { OrderConfigValue } from '../settings/index.js';
import type { GuestOrderInput } from './order-body.schemas.js';

export interface PricingContext {
  doc: MenuDocumentValue;
  orderConfig: OrderConfigValue;
  hasDelivery: boolean;
  /** A product's live promotional price below its effective price, or null (guest-view.ts promoPrice). */
  promoPrice: (product: MenuDocumentValue['products'][number]) => number | null;
  /** Availability at the moment the order is for (now, or its scheduledFor). */
  availability: AvailabilityState;
}

/** Something an order asked for that is unavailable then (ITEM_UNAVAILABLE's details). */
export interface UnavailableItem {
  productId: string;
  optionId: string | null;
  until: string | null;
  /** For the message: the product's name, and the option's. */
  label: string;
}

export type PricedOrder = Pick<NewOrder, 'items' | 'subtotalAmount' | 'deliveryFee' | 'discountAmount' | 'totalAmount'>;

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
  const amounts: LineAmounts[] = [];
  input.items.forEach((line, i) => {
    const product = products.get(line.productId);
    if (!product) {
      errors.push(`items[${i}].productId is not on the menu`);
      return;
    }
    const options = new Map(product.modifierGroups.flatMap((g) => g.options.map((o) => [o.id, { group: g, option: o }] as const)));
    const available = productAvailability(product, ctx.availability);
    // An unavailable product is listed once, whatever its options.
    if (!available.available)
      unavailable.push({ productId: product.id, optionId: null, until: available.until, label: `'${product.name}'` });
    const chosen: (ChosenOption & PricedChoice)[] = [];
    const modifiers: PricedOrder['items'][number]['modifiers'] = [];
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
      chosen.push({ optionId: m.optionId, quantity, priceAdjustment: found.option.priceAdjustment });
      modifiers.push({
        groupName: found.group.name,
        ingredientExternalId: found.option.ingredientExternalId,
        ingredientName: found.option.ingredientName,
        priceAdjustment: found.option.priceAdjustment,
        quantity,
      });
    });
    // Each group's chosen quantities against its rules.
    for (const { group, breach } of lineBreaches(product.modifierGroups, chosen, (o) => o.ingredientName)) {
      errors.push(`items[${i}].modifiers: ${product.name} / ${group.name}: ${breach}`);
    }
    // A live promotion lowers the base price (never the modifiers); the line keeps the regular
    // price and the saving is the order's discount (total = subtotal + fee - discount).
    const effective = effectivePrice(product);
    const price = unitPrice(effective, chosen);
    amounts.push({ unitPrice: price, unitSaving: unitSaving(effective, ctx.promoPrice(product)), quantity: line.quantity });
    items.push({
      productId: product.id,
      productExternalId: product.externalId,
      productName: product.name,
      quantity: line.quantity,
      unitPrice: price,
      totalPrice: price * line.quantity,
      modifiers,
    });
  });

  const sums = orderSums(amounts, input.type, orderConfig);
  if (errors.length === 0 && sums.subtotalAmount < orderConfig.minOrderMinor) {
    errors.push(`the subtotal ${sums.subtotalAmount} is below the minimum order ${orderConfig.minOrderMinor}`);
  }
  if (errors.length > 0) return { errors, order: null, unavailable };
  return { errors, unavailable, order: { items, ...sums } };
}
