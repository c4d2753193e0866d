import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hours } from '../../src/shared/opening-hours.js';
import { openWindows } from '../../src/modules/guest-page/page.service.js';
import {
  availabilityLabel,
  nextDayStart,
  orderingNotice,
  slotsByDay,
  slotTimes,
  When,
  type OrderingInfo,
} from '../../src/modules/guest-page/shared/availability.js';
import { cleanFilter, filteredOut, foodFacts, NO_FILTER } from '../../src/modules/guest-page/shared/food.js';
import { FOOD_NAMES, foodNames } from '../../src/modules/guest-page/shared/food-names.js';
import { formatMoney, minorDigits } from '../../src/shared/money.js';
import { ALLERGEN_CODES, ALLERGENS, DIETARY_LABEL_CODES, DIETARY_LABELS, LANGUAGES } from '../../src/shared/catalog.js';
import { finalNote, stepStates } from '../../src/modules/guest-page/shared/page-data.js';
import { fill, UI_LANGUAGES, uiStrings, untranslated } from '../../src/modules/guest-page/shared/strings.js';
import { Cart, linePayable, linePrice } from '../../web/guest/cart.js';
import type { MenuGroup } from '../../web/guest/menu-types.js';
import { groupNeed, ruleText, takesStepper } from '../../web/guest/rule-text.js';
import { guestGroup, guestOption, guestProduct } from '../helpers/guest-menu.js';

// The guest page's pure parts (docs/guest-page.md): money, the status steps, the rules in words, and
// the cart's sums, which are the server's (src/shared/pricing.ts). The cart runs here
// without a browser: its storage falls back to memory.

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
    assert.deepEqual(
      stepStates('preparing', 'pickup').map((s) => s.step),
      ['new', 'confirmed', 'preparing', 'completed'],
    );
    assert.deepEqual(
      stepStates('preparing', 'delivery').map((s) => s.step),
      ['new', 'confirmed', 'preparing', 'delivering', 'completed'],
    );
    const pickupOut = stepStates('delivering', 'pickup');
    assert.equal(pickupOut.find((s) => s.state === 'current')?.step, 'delivering');
    assert.deepEqual(stepStates('cancelled', 'dine_in'), []);
  });

  it('marks the steps before the current one done, and every step of a completed order', () => {
    assert.deepEqual(
      stepStates('confirmed', 'dine_in').map((s) => s.state),
      ['done', 'current', 'todo', 'todo'],
    );
    assert.deepEqual(
      stepStates('completed', 'dine_in').map((s) => s.state),
      ['done', 'done', 'done', 'done'],
      'finished: nothing current, nothing to come',
    );
    assert.deepEqual(
      stepStates('completed', 'delivery').map((s) => s.state),
      ['done', 'done', 'done', 'done', 'done'],
    );
  });

  it('tells a cancelled guest to ask the staff, and says a completed order is done', () => {
    const en = uiStrings('en');
    assert.equal(finalNote('cancelled', en), en.cancelledHelp);
    assert.match(en.cancelledHelp, /staff/);
    assert.equal(finalNote('completed', en), en.completedHelp);
    assert.equal(finalNote('preparing', en), null);
  });
});

describe('guest page: the cart', () => {
  const burger = guestProduct({
    id: 'b',
    name: 'Burger',
    effectivePriceMinor: 2200,
    promoPriceMinor: 1800,
    modifierGroups: [guestGroup({ options: [guestOption({ id: 'cheese', name: 'Cheese', priceAdjustment: 100 })] })],
  });
  const products = new Map([[burger.id, burger]]);
  const terms = { deliveryFeeMinor: 300, freeDeliveryFromMinor: 5000 };

  it('keeps lines at the regular price and the promotion as the discount, as the server does', () => {
    assert.equal(linePrice(burger, [{ optionId: 'cheese', quantity: 2 }]), 2400);
    assert.equal(linePayable(burger, [{ optionId: 'cheese', quantity: 2 }]), 2000, 'what the guest pays: the promotion off');
    assert.equal(linePrice(burger, [{ optionId: 'gone', quantity: 1 }]), 2200, 'an option no longer on the menu costs nothing');
    const cart = new Cart(`test-${process.pid}`);
    cart.add({ productId: 'b', quantity: 2, modifiers: [{ optionId: 'cheese', quantity: 1 }] });
    // Free delivery and the minimum order compare with this subtotal, before the discount.
    assert.deepEqual(cart.sums(products, 'pickup', terms), {
      subtotalAmount: 4600,
      deliveryFee: 0,
      discountAmount: 800,
      totalAmount: 3800,
    });
    assert.deepEqual(cart.sums(products, 'delivery', terms), {
      subtotalAmount: 4600,
      deliveryFee: 300,
      discountAmount: 800,
      totalAmount: 4100,
    });
    assert.equal(cart.count, 2);
    cart.add({ productId: 'b', quantity: 1, modifiers: [{ optionId: 'cheese', quantity: 1 }] });
    assert.equal(cart.sums(products, 'delivery', terms).deliveryFee, 0, 'free from 50.00 of subtotal, the discount not taken off');
    assert.equal(cart.sums(new Map(), 'pickup', terms).subtotalAmount, 0, 'lines of products not on the menu count nothing');
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

  it('holds a line to 99, as the server does, and takes it out at 0', () => {
    const cart = new Cart(`max-${process.pid}`);
    cart.add({ productId: 'b', quantity: 98, modifiers: [] });
    cart.add({ productId: 'b', quantity: 5, modifiers: [] });
    assert.equal(cart.lines[0].quantity, 99);
    cart.setQuantity(0, 150);
    assert.equal(cart.lines[0].quantity, 99);
    cart.setQuantity(0, 0);
    assert.equal(cart.count, 0);
  });

  it("drops a cart line that no longer meets its groups' rules after a publish, or whose option left the menu", () => {
    const product = (rules: Partial<MenuGroup>) =>
      guestProduct({ id: 'p', modifierGroups: [guestGroup({ ...rules, options: ['o0', 'o1'] })] });
    const cart = new Cart(`rules-${process.pid}`);
    cart.add({ productId: 'p', quantity: 1, modifiers: [{ optionId: 'o0', quantity: 3 }] });
    cart.reconcile(new Map([['p', product({ maxQuantityPerOption: 3 })]]));
    assert.equal(cart.lines.length, 1, 'three of one, as allowed');
    cart.reconcile(new Map([['p', product({ maxQuantityPerOption: 2 })]]));
    assert.equal(cart.lines.length, 0, 'three where two are allowed: dropped');
    cart.add({ productId: 'p', quantity: 1, modifiers: [{ optionId: 'o0', quantity: 1 }] });
    cart.reconcile(new Map([['p', product({ minSelections: 2 })]]));
    assert.equal(cart.lines.length, 0, 'one where two are needed: dropped');
    cart.add({ productId: 'p', quantity: 1, modifiers: [{ optionId: 'o9', quantity: 1 }] });
    cart.reconcile(new Map([['p', product({})]]));
    assert.equal(cart.lines.length, 0, 'an option no longer on the menu: dropped');
  });
});

// Modifier rules in the product dialog's words; the rules themselves are
// src/shared/modifier-rules.ts's, tested in test/shared/modifier-rules.test.ts.
describe('guest page: modifier rules in words', () => {
  const en = uiStrings('en');
  const group = (rules: Partial<MenuGroup>, options = 4) =>
    guestGroup({ name: 'Sauces', ...rules, options: Array.from({ length: options }, (_, i) => `o${i}`) });

  it('says each rule in words', () => {
    const says = (rules: Partial<MenuGroup>, options?: number) => ruleText(group(rules, options), en);
    assert.equal(says({ type: 'single_choice', isRequired: true }), 'Choose 1');
    assert.equal(says({ type: 'single_choice', isRequired: false }), 'Optional', 'an optional single choice offers "None"');
    assert.equal(says({ minSelections: 2, maxSelections: 3 }), 'Choose 2–3');
    assert.equal(says({ minSelections: 2, maxSelections: 2 }), 'Choose 2');
    assert.equal(says({ minSelections: 2 }), 'Choose at least 2');
    assert.equal(says({ maxSelections: 4 }), 'Up to 4');
    assert.equal(says({ type: 'remove_ingredients' }), 'Optional');
    // No more than the options can give: two taken once each.
    assert.equal(says({ maxSelections: 10, maxQuantityPerOption: 1 }, 2), 'Up to 2');
    assert.equal(says({ minSelections: 2, maxSelections: 10, maxQuantityPerOption: 1 }, 2), 'Choose 2');
    assert.equal(ruleText(group({ minSelections: 2, maxSelections: 3 }), uiStrings('es')), 'Elige de 2 a 3');
  });

  it('gives a stepper to an extra taken more than once', () => {
    assert.equal(takesStepper(group({ maxQuantityPerOption: 3 })), true);
    assert.equal(takesStepper(group({})), true, 'up to 99');
    assert.equal(takesStepper(group({ maxQuantityPerOption: 1 })), false, 'once: a checkbox');
    assert.equal(takesStepper(group({ maxSelections: 1 })), false, 'one in all: a checkbox');
    assert.equal(takesStepper(group({ type: 'remove_ingredients' })), false);
    assert.equal(takesStepper(group({ type: 'single_choice', isRequired: true })), false);
  });

  it('says what a group still needs, naming it, counting the quantities', () => {
    const sauces = group({ minSelections: 2, maxSelections: 3 });
    assert.equal(groupNeed(sauces, new Map(), en), 'Sauces: choose at least 2');
    assert.equal(groupNeed(sauces, new Map([['o0', 1]]), en), 'Sauces: choose at least 2');
    assert.equal(
      groupNeed(
        sauces,
        new Map([
          ['o0', 1],
          ['o1', 1],
        ]),
        en,
      ),
      null,
    );
    assert.equal(
      groupNeed(group({ minSelections: 2, maxQuantityPerOption: 3 }), new Map([['o0', 2]]), en),
      null,
      'one option twice is two',
    );
    assert.equal(groupNeed(group({ name: 'Size', type: 'single_choice', isRequired: true }), new Map(), en), 'Size: choose 1');
    assert.equal(groupNeed(group({}), new Map(), en), null);
  });
});

describe('guest page: words', () => {
  it('has every word of the page in every language of the reference, with the same placeholders', () => {
    const en = uiStrings('en');
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const locale of LANGUAGES) assert.ok(UI_LANGUAGES.includes(locale.split('-')[0]), `the page has its own words in ${locale}`);
    for (const language of UI_LANGUAGES.filter((l) => l !== 'en')) {
      assert.deepEqual(untranslated(language), [], `${language} has every word`);
      const words = uiStrings(language);
      for (const key of Object.keys(en) as (keyof typeof en)[]) {
        assert.deepEqual(placeholders(words[key]), placeholders(en[key]), `${language}.${key} keeps the placeholders`);
      }
    }
  });

  it('writes Arabic with Arabic punctuation: its comma between list items, no Latin comma, semicolon or question mark', () => {
    const ar = uiStrings('ar');
    assert.equal(ar.comma, '، ');
    for (const [key, text] of Object.entries(ar)) assert.doesNotMatch(text, /[,;?]/, `ar.${key}: ${text}`);
    assert.equal(uiStrings('zh-CN').comma, '、');
    assert.equal(uiStrings('pt-BR').placeOrder, 'Fazer pedido', 'pt-BR by its language subtag');
  });
});

// Times in words and the slots of scheduled orders, in the venue's zone.
describe('guest page: availability and ordering hours in words', () => {
  const HOUR = 3_600_000;
  const en = uiStrings('en');
  const madrid = new When('en', 'Europe/Madrid');
  /** A Wednesday, 12:00 in Madrid. */
  const WED_NOON = Date.parse('2030-01-09T11:00:00Z');
  const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

  it('says a time today, tomorrow, within the week and further, in the zone and the language', () => {
    assert.equal(plain(madrid.at(WED_NOON + 6 * HOUR, WED_NOON)), '6:00 PM');
    assert.equal(plain(madrid.at(WED_NOON + 6 * HOUR, WED_NOON, true)), 'today 6:00 PM');
    // 00:30 on Thursday in Madrid is still Wednesday in UTC: the zone decides the day.
    assert.equal(plain(madrid.at(Date.parse('2030-01-09T23:30:00Z'), WED_NOON)), 'tomorrow 12:30 AM');
    assert.equal(plain(madrid.at(WED_NOON + 3 * 24 * HOUR, WED_NOON)), 'Saturday 12:00 PM');
    assert.equal(plain(madrid.at(WED_NOON + 10 * 24 * HOUR, WED_NOON)), 'Jan 19, 12:00 PM');
    const german = new When('de', 'Europe/Madrid');
    assert.equal(german.at(WED_NOON + 25 * HOUR, WED_NOON), 'morgen 13:00');
    assert.equal(new When('es', 'Europe/Madrid').dayLabel(WED_NOON, WED_NOON), 'Hoy');
    assert.equal(madrid.dayLabel(WED_NOON + 2 * 24 * HOUR, WED_NOON), 'Friday, January 11');
    // A zone Intl does not know: the guest's own, rather than an error.
    assert.equal(new When('en', 'Not/AZone').timeZone, undefined);
  });

  it("finds the next start of the venue's day, 23 and 25 hour days too", () => {
    assert.equal(nextDayStart(madrid, WED_NOON), Date.parse('2030-01-09T23:00:00Z'));
    // 2030-03-31 is 23 hours long in Madrid (clocks go forward at 02:00), 2030-10-27 is 25.
    assert.equal(nextDayStart(madrid, Date.parse('2030-03-31T10:00:00Z')), Date.parse('2030-03-31T22:00:00Z'));
    assert.equal(nextDayStart(madrid, Date.parse('2030-10-27T10:00:00Z')), Date.parse('2030-10-27T23:00:00Z'));
  });

  it('says why an item cannot be ordered and until when', () => {
    const until = new Date(WED_NOON + 6.5 * HOUR).toISOString();
    const label = (availability: Parameters<typeof availabilityLabel>[0]) => availabilityLabel(availability, madrid, WED_NOON, en);
    assert.equal(label({ available: true, until: null, reason: null }), null);
    assert.equal(label(undefined), null, 'an item without availability reads as available');
    assert.equal(label({ available: false, until: null, reason: 'sold_out' }), 'Sold out');
    assert.equal(plain(label({ available: false, until, reason: 'sold_out' }) as string), 'Sold out until 6:30 PM');
    assert.equal(plain(label({ available: false, until, reason: 'ingredient_sold_out' }) as string), 'Sold out until 6:30 PM');
    assert.equal(plain(label({ available: false, until, reason: 'category_schedule' }) as string), 'Available from 6:30 PM');
    assert.equal(label({ available: false, until: null, reason: 'category_schedule' }), en.notAvailableNow);
  });

  it('says why ordering is closed, and what the guest can still do', () => {
    const base: OrderingInfo = {
      open: true,
      reason: null,
      opensAt: null,
      closesAt: null,
      prepTimeMinutes: 15,
      scheduledOrders: { enabled: false, maxDaysAhead: 2 },
    };
    const notice = (o: Partial<OrderingInfo>, link = true) => {
      const text = orderingNotice({ ...base, ...o }, link, madrid, WED_NOON, en);
      return text === null ? null : plain(text);
    };
    assert.equal(notice({}), null);
    assert.equal(notice({}, false), en.closedLink);
    assert.equal(notice({ open: false, reason: 'not_accepting' }), en.closedNow);
    assert.equal(notice({ open: false, reason: 'not_accepting' }, false), en.closedNow, 'not accepting comes first');
    const resumes = new Date(WED_NOON + 0.5 * HOUR).toISOString();
    assert.equal(
      notice({ open: false, reason: 'paused', opensAt: resumes }),
      'Ordering is paused until 12:30 PM. You can still browse the menu.',
    );
    assert.equal(notice({ open: false, reason: 'paused', opensAt: null }), `${en.pausedNow} ${en.browseMenu}`);
    const tomorrow = new Date(WED_NOON + 24 * HOUR).toISOString();
    assert.equal(
      notice({ open: false, reason: 'closed', opensAt: tomorrow, scheduledOrders: { enabled: true, maxDaysAhead: 2 } }),
      'Ordering is closed until tomorrow 12:00 PM. You can order ahead for a later time.',
    );
    assert.equal(notice({ open: false, reason: 'closed', opensAt: null }), `${en.closedHours} ${en.browseMenu}`);
    assert.equal(fill(uiStrings('fr').pausedUntil, { when: 'x' }), "Les commandes sont en pause jusqu'à x.");
  });

  it('offers the quarter hours from now + prep time to maxDaysAhead days, inside the open windows', () => {
    const ordering = { prepTimeMinutes: 15, scheduledOrders: { enabled: true, maxDaysAhead: 1 } };
    const now = Date.parse('2030-01-09T11:07:00Z');
    const windows: [number, number][] = [
      [Date.parse('2030-01-09T11:00:00Z'), Date.parse('2030-01-09T12:00:00Z')],
      [Date.parse('2030-01-10T10:50:00Z'), Date.parse('2030-01-10T12:00:00Z')],
    ];
    const slots = slotTimes(windows, now, ordering).map((t) => new Date(t).toISOString().slice(0, 16));
    // 11:07 + 15 min + a minute to send: 11:30 is the first; a window's end is not a slot;
    // tomorrow's window starts at 10:50, so 11:00; a day ahead ends at 11:07.
    assert.deepEqual(slots, ['2030-01-09T11:30', '2030-01-09T11:45', '2030-01-10T11:00']);
    assert.deepEqual(slotTimes(windows, now, { ...ordering, prepTimeMinutes: 60 }), [Date.parse('2030-01-10T11:00:00Z')]);
    const byDay = slotsByDay(slotTimes(windows, now, ordering), madrid);
    assert.deepEqual(
      byDay.map((d) => d.slots.length),
      [2, 1],
    );
    assert.equal(byDay[1].day - byDay[0].day, 1);
  });

  it("lists the open windows of the venue's hours between two instants", () => {
    const week = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
    const hours = Hours.of(
      { weekly: week.map((day) => ({ day, isOpen: true, openTime: '12:00', closeTime: '22:00' })), exceptions: [] },
      'Europe/Madrid',
    );
    const from = Date.parse('2030-01-09T15:00:00Z');
    const windows = openWindows(hours, from, from + 36 * HOUR);
    assert.deepEqual(
      windows.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()]),
      [
        ['2030-01-09T15:00:00.000Z', '2030-01-09T21:00:00.000Z'],
        ['2030-01-10T11:00:00.000Z', '2030-01-10T21:00:00.000Z'],
      ],
    );
    // Always open (no hours): one window; never open: none.
    assert.deepEqual(openWindows(Hours.of(null, 'UTC'), from, from + HOUR), [[from, from + HOUR]]);
    assert.deepEqual(openWindows(Hours.of({ weekly: [], exceptions: [] }, 'UTC'), from, from + HOUR), []);
  });
});

// Food information: the names of every allergen and dietary label in every language
// of the reference, the facts in words, and the guest's filter.
describe('guest page: food information', () => {
  it('names every allergen and dietary label in every language of the reference', () => {
    assert.deepEqual(Object.keys(FOOD_NAMES).sort(), [...LANGUAGES].sort(), 'a table per reference language');
    for (const language of LANGUAGES) {
      const table = FOOD_NAMES[language];
      assert.deepEqual(Object.keys(table.allergens).sort(), [...ALLERGEN_CODES].sort(), `${language}: the 14 allergens, no other`);
      assert.deepEqual(Object.keys(table.labels).sort(), [...DIETARY_LABEL_CODES].sort(), `${language}: the dietary labels, no other`);
      for (const [code, name] of [...Object.entries(table.allergens), ...Object.entries(table.labels)]) {
        assert.equal(typeof name, 'string', `${language}.${code}`);
        assert.ok(name.trim() !== '' && name.trim() === name, `${language}.${code} is a name: "${name}"`);
      }
      const allergenNames = Object.values(table.allergens);
      assert.equal(new Set(allergenNames).size, allergenNames.length, `${language}: no two allergens share a name`);
      const labelNames = Object.values(table.labels);
      assert.equal(new Set(labelNames).size, labelNames.length, `${language}: no two labels share a name`);
    }
    // English is the reference's own; the EU languages use Annex II's terms.
    assert.deepEqual(FOOD_NAMES.en.allergens, Object.fromEntries(ALLERGENS.map((a) => [a.code, a.name])));
    assert.deepEqual(FOOD_NAMES.en.labels, Object.fromEntries(DIETARY_LABELS.map((l) => [l.code, l.name])));
    assert.equal(FOOD_NAMES.de.allergens.gluten, 'Glutenhaltiges Getreide');
    assert.equal(FOOD_NAMES.fr.allergens.gluten, 'Céréales contenant du gluten');
    assert.equal(FOOD_NAMES.es.allergens.nuts, 'Frutos de cáscara');
    assert.equal(FOOD_NAMES.it.allergens.sulphites, 'Anidride solforosa e solfiti');
  });

  it("picks the names of the page's language: exact, by language subtag, else English", () => {
    assert.equal(foodNames('pt-BR'), FOOD_NAMES['pt-BR']);
    assert.equal(foodNames('pt'), FOOD_NAMES['pt-BR']);
    assert.equal(foodNames('zh_cn'), FOOD_NAMES['zh-CN']);
    assert.equal(foodNames('de-AT'), FOOD_NAMES.de);
    assert.equal(foodNames('ko'), FOOD_NAMES.en);
  });

  it('says the facts in words, with only the nutrients given, numbers the way of the locale', () => {
    const burger = {
      effectiveAllergens: ['gluten', 'mustard'],
      mayContain: ['sesame', 'glutten'],
      dietaryLabels: ['halal'],
      spiceLevel: 2,
      calories: 1250,
      nutrition: { salt: 2.1, fat: 32.5, sugars: 0.3 },
    };
    const de = foodFacts(burger, uiStrings('de'), foodNames('de'), 'de');
    assert.deepEqual(de.allergens, ['Glutenhaltiges Getreide', 'Senf']);
    assert.deepEqual(de.mayContain, ['Sesamsamen', 'glutten'], 'a code without a name shows as itself');
    assert.deepEqual(de.labels, ['Halal']);
    assert.deepEqual(de.spice, { level: 2, text: 'Scharf: 2 von 3' });
    assert.deepEqual(
      de.nutrition.map((r) => [r.label, r.value, r.part]),
      [
        ['Kalorien', '1.250 kcal', false],
        ['Fett', '32,5 g', false],
        ['davon Zucker', '0,3 g', true],
        ['Salz', '2,1 g', false],
      ],
    );
    const en = uiStrings('en');
    assert.deepEqual(foodFacts({ ...burger, spiceLevel: 0 }, en, foodNames('en'), 'en').spice, { level: 0, text: 'Not spicy' });
    // Unset, or an older page's product without the fields: nothing to say.
    for (const p of [
      { effectiveAllergens: [], mayContain: [], dietaryLabels: [], spiceLevel: null, calories: null, nutrition: null },
      {},
    ]) {
      assert.deepEqual(foodFacts(p, en, foodNames('en'), 'en'), { allergens: [], labels: [], mayContain: [], spice: null, nutrition: [] });
    }
    assert.equal(foodFacts({ calories: 0 }, en, foodNames('en'), 'not a locale!').nutrition[0].value, '0 kcal');
  });

  it('hides the dishes that contain a chosen allergen, and keeps vegetarian (vegan too) or vegan ones', () => {
    const f = (hide: string[], diet: 'all' | 'vegetarian' | 'vegan' = 'all') => ({ hide, diet });
    assert.equal(filteredOut(['gluten', 'milk'], [], NO_FILTER), false);
    assert.equal(filteredOut(['gluten', 'milk'], [], f(['milk'])), true);
    assert.equal(filteredOut(['gluten'], [], f(['milk', 'eggs'])), false);
    assert.equal(filteredOut([], ['vegan'], f([], 'vegetarian')), false, 'vegan is vegetarian');
    assert.equal(filteredOut([], ['vegetarian'], f([], 'vegan')), true);
    assert.equal(filteredOut([], ['gluten_free'], f([], 'vegetarian')), true);
    assert.equal(filteredOut(['milk'], ['vegetarian'], f(['milk'], 'vegetarian')), true);
    // What session storage gives back is checked: known codes in the reference's order, a known diet.
    assert.deepEqual(cleanFilter({ hide: ['milk', 'nope', 3, 'gluten'], diet: 'vegan' }, ALLERGEN_CODES), f(['gluten', 'milk'], 'vegan'));
    assert.deepEqual(cleanFilter({ hide: 'milk', diet: 'carnivore' }, ALLERGEN_CODES), NO_FILTER);
    assert.deepEqual(cleanFilter(null, ALLERGEN_CODES), NO_FILTER);
  });
});
