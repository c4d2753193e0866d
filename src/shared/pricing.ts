// The arithmetic of an order's price: a line's unit price, a live promotion's saving,
// the delivery fee and the order's sums. Pure, free of Node and of the DOM: the server prices a
// guest order with it (src/modules/guest/pricing.ts) and the guest page's cart shows the same
// amounts before the order is sent, so the two cannot disagree.

/** How many of one product an order line takes at most (the order body's limit; an option's is MAX_OPTION_QUANTITY). */
export const MAX_LINE_QUANTITY = 99;

/** The sale price applies only while isSaleActive and set. */
export function effectivePrice(p: { priceMinor: number; salePriceMinor: number | null; isSaleActive: boolean }): number {
  return p.isSaleActive && p.salePriceMinor !== null ? p.salePriceMinor : p.priceMinor;
}

/** A chosen option's price adjustment and how often the line takes it. */
export interface PricedChoice {
  priceAdjustment: number;
  quantity: number;
}

/**
 * A line's unit price: the product's effective price plus each chosen option's adjustment times its
 * quantity. A live promotion is not in it: the line keeps the regular price, and the saving is the
 * order's discount (unitSaving).
 */
export function unitPrice(effectivePriceMinor: number, choices: readonly PricedChoice[]): number {
  return choices.reduce((sum, c) => sum + c.priceAdjustment * c.quantity, effectivePriceMinor);
}

/** What a live promotion takes off one unit: the effective price less the promotional one; 0 without one. */
export function unitSaving(effectivePriceMinor: number, promoPriceMinor: number | null): number {
  return promoPriceMinor === null ? 0 : effectivePriceMinor - promoPriceMinor;
}

/** A line as the order's sums count it. */
export interface LineAmounts {
  unitPrice: number;
  unitSaving: number;
  quantity: number;
}

/** The venue's delivery terms (its order settings). */
export interface DeliveryTerms {
  deliveryFeeMinor: number;
  /** A subtotal from which delivery is free; null: never free. */
  freeDeliveryFromMinor: number | null;
}

/** The delivery fee: a delivery's, unless its subtotal reaches free delivery; nothing for the other order types. */
export function deliveryFee(type: string, subtotal: number, terms: DeliveryTerms): number {
  if (type !== 'delivery') return 0;
  return terms.freeDeliveryFromMinor !== null && subtotal >= terms.freeDeliveryFromMinor ? 0 : terms.deliveryFeeMinor;
}

export interface OrderSums {
  /** The lines at their regular prices: what the minimum order and free delivery compare with. */
  subtotalAmount: number;
  deliveryFee: number;
  /** What live promotions take off. */
  discountAmount: number;
  /** subtotal + delivery fee - discount. */
  totalAmount: number;
}

export function orderSums(lines: readonly LineAmounts[], type: string, terms: DeliveryTerms): OrderSums {
  let subtotalAmount = 0;
  let discountAmount = 0;
  for (const line of lines) {
    subtotalAmount += line.unitPrice * line.quantity;
    discountAmount += line.unitSaving * line.quantity;
  }
  const fee = deliveryFee(type, subtotalAmount, terms);
  return { subtotalAmount, deliveryFee: fee, discountAmount, totalAmount: subtotalAmount + fee - discountAmount };
}
