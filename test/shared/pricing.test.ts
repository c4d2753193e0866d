import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliveryFee, effectivePrice, orderSums, unitPrice, unitSaving } from '../../src/shared/pricing.js';

// An order's arithmetic, one definition: the server prices a guest order with it and
// the guest page's cart shows the same sums. Through the routes: test/guest/guest-orders.test.ts.

describe('pricing', () => {
  it('takes the sale price only while the sale is on and set', () => {
    assert.equal(effectivePrice({ priceMinor: 1000, salePriceMinor: 800, isSaleActive: true }), 800);
    assert.equal(effectivePrice({ priceMinor: 1000, salePriceMinor: 800, isSaleActive: false }), 1000);
    assert.equal(effectivePrice({ priceMinor: 1000, salePriceMinor: null, isSaleActive: true }), 1000);
  });

  it('prices a unit with each option times its quantity, a negative adjustment too', () => {
    assert.equal(unitPrice(1000, []), 1000);
    assert.equal(
      unitPrice(1000, [
        { priceAdjustment: 150, quantity: 2 },
        { priceAdjustment: -100, quantity: 1 },
      ]),
      1200,
    );
  });

  it('saves the difference to a live promotional price, nothing without one', () => {
    assert.equal(unitSaving(1000, 750), 250);
    assert.equal(unitSaving(1000, null), 0);
  });

  it('charges the delivery fee on deliveries below free delivery only', () => {
    const terms = { deliveryFeeMinor: 300, freeDeliveryFromMinor: 2000 };
    assert.equal(deliveryFee('delivery', 1999, terms), 300);
    assert.equal(deliveryFee('delivery', 2000, terms), 0, 'free from the threshold on');
    assert.equal(deliveryFee('pickup', 500, terms), 0);
    assert.equal(deliveryFee('delivery', 1_000_000, { deliveryFeeMinor: 300, freeDeliveryFromMinor: null }), 300, 'never free');
  });

  it('totals subtotal + delivery fee - discount, free delivery judged on the subtotal before the discount', () => {
    const lines = [
      { unitPrice: 1200, unitSaving: 200, quantity: 2 },
      { unitPrice: 500, unitSaving: 0, quantity: 1 },
    ];
    assert.deepEqual(orderSums(lines, 'delivery', { deliveryFeeMinor: 300, freeDeliveryFromMinor: 2900 }), {
      subtotalAmount: 2900,
      deliveryFee: 0,
      discountAmount: 400,
      totalAmount: 2500,
    });
    assert.deepEqual(orderSums(lines, 'delivery', { deliveryFeeMinor: 300, freeDeliveryFromMinor: 3000 }), {
      subtotalAmount: 2900,
      deliveryFee: 300,
      discountAmount: 400,
      totalAmount: 2800,
    });
    assert.deepEqual(orderSums([], 'dine_in', { deliveryFeeMinor: 300, freeDeliveryFromMinor: null }), {
      subtotalAmount: 0,
      deliveryFee: 0,
      discountAmount: 0,
      totalAmount: 0,
    });
  });
});
