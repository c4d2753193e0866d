import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMoney, minorDigits } from '../../src/modules/guest-page/shared/money.js';
import { stepStates } from '../../src/modules/guest-page/shared/page-data.js';
import { Cart, unitPrice, type MenuProduct } from '../../web/guest/cart.js';

// The guest page's pure parts (docs/guest-page.md): money, the status steps, and the cart's sums,
// which must be the server's (decisions 2). The cart runs here without a browser: its storage
// falls back to memory.

describe('guest page: money', () => {
  it('formats minor units in the ISO 4217 digits of the currency, not Intl cash digits', () => {
    assert.equal(minorDigits('EUR'), 2);
    assert.equal(minorDigits('COP'), 2);
    assert.equal(minorDigits('CLP'), 0);
    // Intl separates with no-break spaces; compared here as plain ones.
    const money = (minor: number, currency: string, locale: string) => formatMoney(minor, currency, locale).replace(/[\u00a0\u202f]/g, ' ');
    assert.equal(money(2150000, 'COP', 'en'), 'COP 21,500.00');
    assert.equal(money(1250, 'CLP', 'en'), 'CLP 1,250');
    assert.equal(money(1050, 'EUR', 'es'), '10,50 €');
    assert.equal(money(1050, 'EUR', 'not a locale!'), '€10.50');
  });
});

describe('guest page: status steps', () => {
  it('shows delivering for deliveries, and for any order the venue moves there', () => {
    assert.deepEqual(stepStates('preparing', 'pickup').map((s) => s.step), ['new', 'confirmed', 'preparing', 'completed']);
    assert.deepEqual(stepStates('preparing', 'delivery').map((s) => s.step), ['new', 'confirmed', 'preparing', 'delivering', 'completed']);
    const pickupOut = stepStates('delivering', 'pickup');
    assert.equal(pickupOut.find((s) => s.state === 'current')?.step, 'delivering');
    assert.deepEqual(stepStates('cancelled', 'dine_in'), []);
  });
});

describe('guest page: the cart', () => {
  const burger: MenuProduct = {
    id: 'b',
    name: 'Burger',
    description: null,
    effectivePriceMinor: 2200,
    promoPriceMinor: 1800,
    modifierGroups: [{ id: 'g', name: 'Extras', type: 'add_ingredients', isRequired: false, options: [{ id: 'cheese', name: 'Cheese', action: 'add', priceAdjustment: 100 }] }],
  };
  const products = new Map([[burger.id, burger]]);

  it('keeps lines at the regular price and the promotion as the discount, as the server does', () => {
    assert.equal(unitPrice(burger, [{ optionId: 'cheese', quantity: 2 }]), 2400);
    const cart = new Cart(`test-${process.pid}`);
    cart.add({ productId: 'b', quantity: 2, modifiers: [{ optionId: 'cheese', quantity: 1 }] });
    // Free delivery and the minimum order compare with this subtotal, before the discount.
    assert.equal(cart.subtotal(products), 4600);
    assert.equal(cart.discount(products), 800);
    assert.equal(cart.count, 2);
  });

  it('gives one key while the same order is retried and a new one once it changed', () => {
    const cart = new Cart(`keys-${process.pid}`);
    cart.add({ productId: 'b', quantity: 1, modifiers: [] });
    const first = cart.attemptKey('{"a":1}');
    assert.equal(cart.attemptKey('{"a":1}'), first);
    assert.notEqual(cart.attemptKey('{"a":2}'), first);
    cart.add({ productId: 'b', quantity: 1, modifiers: [] });
    assert.equal(cart.lines[0].quantity, 2, 'the same line grows');
  });
});
