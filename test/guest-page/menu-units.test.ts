import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { When, type OrderingInfo } from '../../src/modules/guest-page/shared/availability.js';
import type { PageData } from '../../src/modules/guest-page/shared/page-data.js';
import { uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { Cart } from '../../web/guest/cart.js';
import { MenuFeed, REFRESH_AHEAD_MS, refreshDelay } from '../../web/guest/menu-feed.js';
import { MenuState } from '../../web/guest/menu-state.js';
import type { GuestMenu } from '../../web/guest/menu-types.js';
import { readReply, statusPageUrl } from '../../web/guest/order-reply.js';
import { ProductChoice } from '../../web/guest/product-choice.js';
import { ASAP, TimePick } from '../../web/guest/time-pick.js';
import { guestGroup, guestMenu, guestOption, guestProduct, OPEN } from '../helpers/guest-menu.js';

// The menu page's script in parts (docs/guest-page.md), without a browser: the product dialog's
// state, the page's state (cart problems, sums, what is offered, the order's body), the time
// picked, the server's answer to an order, and the menu JSON's reads. The Chromium walks
// (guest-page.browser.test.ts, modifier-rules.test.ts) draw them; these pin their logic.

const en = uiStrings('en');
const NOW = Date.parse('2030-03-04T12:00:00Z');
const soon = new Date(NOW + 3_600_000).toISOString();
const SOLD_OUT = { available: false, until: soon, reason: 'sold_out' } as const;

const burger = guestProduct({
  id: 'burger',
  name: 'Burger',
  effectivePriceMinor: 1000,
  promoPriceMinor: 800,
  modifierGroups: [
    guestGroup({
      id: 'size',
      name: 'Size',
      type: 'single_choice',
      isRequired: true,
      minSelections: 1,
      maxSelections: 1,
      options: [guestOption({ id: 'regular', isDefault: true }), guestOption({ id: 'double', priceAdjustment: 300 })],
    }),
    guestGroup({
      id: 'extras',
      name: 'Extras',
      maxSelections: 4,
      maxQuantityPerOption: 3,
      options: [guestOption({ id: 'cheese', name: 'Cheese', priceAdjustment: 100 }), guestOption({ id: 'bacon', priceAdjustment: 200 })],
    }),
    guestGroup({ id: 'sauces', name: 'Sauces', minSelections: 1, options: ['ketchup', 'mayo'] }),
  ],
});
const [size, extras, sauces] = burger.modifierGroups;

function pageData(fields: Partial<PageData> = {}): PageData {
  return {
    slug: 'test',
    mode: 'menu',
    table: null,
    locale: 'en',
    currency: 'EUR',
    timeZone: 'UTC',
    orderTypes: ['pickup', 'delivery'],
    ordering: OPEN,
    windows: [],
    payments: ['cash', 'terminal'],
    deliveryFeeMinor: 250,
    freeDeliveryFromMinor: null,
    minOrderMinor: 0,
    menuUrl: '/menu',
    orderUrl: '/orders',
    statusPageBase: '/m/test/orders/',
    strings: en,
    food: { allergens: {}, labels: {} },
    ...fields,
  };
}

let carts = 0;
function menuState(data = pageData(), menu: GuestMenu | null = guestMenu([burger])): MenuState {
  const state = new MenuState(data, new Cart(`units-${process.pid}-${++carts}`), new When(data.locale, data.timeZone));
  if (menu) state.applyMenu(menu);
  return state;
}

describe('the product dialog: ProductChoice', () => {
  it('starts on the defaults, and adds the line that meets the rules at its price', () => {
    const choice = new ProductChoice(burger, () => true);
    assert.deepEqual([...choice.quantities], [['regular', 1]]);
    assert.deepEqual(
      choice.needs(en).map((n) => n.need),
      ['Sauces: choose at least 1'],
    );
    choice.set('ketchup', 1);
    choice.set('cheese', 2);
    choice.quantity = 2;
    assert.deepEqual(choice.needs(en), []);
    // (1000 + 2 × 100, less the promotion's 200) × 2.
    assert.equal(choice.price(), 2000);
    assert.deepEqual(choice.line(), {
      productId: 'burger',
      quantity: 2,
      modifiers: [
        { optionId: 'regular', quantity: 1 },
        { optionId: 'cheese', quantity: 2 },
        { optionId: 'ketchup', quantity: 1 },
      ],
    });
  });

  it("stops an option at its cap and at its group's room, and takes it out at 0", () => {
    const choice = new ProductChoice(burger, () => true);
    assert.equal(choice.most(extras, 'cheese'), 3, 'its own cap');
    choice.set('bacon', 3);
    assert.equal(choice.room(extras), 1);
    assert.equal(choice.most(extras, 'cheese'), 1, 'the group takes 4 in all');
    choice.set('bacon', 0);
    assert.equal(choice.quantities.has('bacon'), false);
    assert.equal(choice.room(sauces), Infinity);
  });

  it('picks one option of a single choice, or none', () => {
    const choice = new ProductChoice(burger, () => true);
    choice.pick(size, 'double');
    assert.deepEqual([...choice.quantities], [['double', 1]]);
    assert.equal(choice.price(), 1100, 'the double costs 3.00 more, less the promotion');
    choice.pick(size, null);
    assert.deepEqual(choice.needs(en)[0].need, 'Size: choose 1');
  });

  it('leaves out an option sold out since it was chosen, and starts a required choice on one that can be', () => {
    const choice = new ProductChoice(burger, (id) => id !== 'regular');
    assert.deepEqual([...choice.quantities], [['double', 1]], 'the default is sold out: the first that is not');
    choice.quantities.set('regular', 1);
    assert.deepEqual(
      choice.chosen().map((m) => m.optionId),
      ['double'],
    );
  });
});

describe('the menu page: MenuState', () => {
  it('takes the menu: its products, its ordering, and the cart lines it still allows', () => {
    const state = menuState(pageData(), null);
    const line = (...optionIds: string[]) => ({
      productId: 'burger',
      quantity: 1,
      modifiers: optionIds.map((optionId) => ({ optionId, quantity: 1 })),
    });
    state.cart.add(line('regular', 'ketchup'));
    state.cart.add(line('ketchup'));
    state.cart.add({ productId: 'gone', quantity: 1, modifiers: [] });
    assert.equal(state.applyMenu(guestMenu([burger])), false, 'ordering as before');
    assert.deepEqual(state.cart.lines, [line('regular', 'ketchup')], 'a size is required; the product left the menu');
    assert.equal(state.applyMenu(guestMenu([burger], { ...OPEN, open: false, reason: 'paused' })), true, 'ordering changed');
    assert.equal(state.ordering.reason, 'paused');
  });

  it('says why a line cannot be ordered: its product, an option, or what the server refused', () => {
    const soldOutOption = guestProduct({
      ...burger,
      modifierGroups: burger.modifierGroups.map((g) =>
        g.id === 'sauces'
          ? { ...g, options: g.options.map((o) => (o.id === 'mayo' ? { ...o, name: 'Mayo', availability: SOLD_OUT } : o)) }
          : g,
      ),
    });
    const state = menuState(pageData(), guestMenu([soldOutOption]));
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'ketchup', quantity: 1 }] });
    assert.equal(state.lineProblem(state.cart.lines[0], NOW), null);
    assert.equal(state.hasProblems(), false);
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'mayo', quantity: 1 }] });
    assert.match(state.lineProblem(state.cart.lines[1], NOW) ?? '', /^Mayo: Sold out until/);

    state.refuse([{ productId: 'burger', optionId: null }], en.notAvailableThen);
    assert.equal(state.lineProblem(state.cart.lines[0], NOW), en.notAvailableThen);
    state.forgetRefusals();
    assert.equal(state.lineProblem(state.cart.lines[0], NOW), null, 'a new time: what was refused is asked again');

    const soldOut = menuState(pageData(), guestMenu([{ ...burger, availability: SOLD_OUT }]));
    soldOut.cart.add({ productId: 'burger', quantity: 1, modifiers: [] });
    assert.match(soldOut.lineProblem(soldOut.cart.lines[0], NOW) ?? '', /^Sold out until/);
  });

  it('forgets what the server refused of a product once its last line is removed', () => {
    const state = menuState();
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'ketchup', quantity: 1 }] });
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'mayo', quantity: 1 }] });
    state.refuse([{ productId: 'burger', optionId: 'mayo' }], en.notAvailableNow);
    assert.equal(state.lineProblem(state.cart.lines[1]), `mayo: ${en.notAvailableNow}`);
    state.removeLine(1);
    assert.equal(state.hasProblems(), false);
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'ketchup', quantity: 1 }] });
    state.removeLine(0);
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'mayo', quantity: 1 }] });
    assert.equal(state.hasProblems(), false, 'no line left of it: forgotten');
  });

  it('sums the cart for the order type chosen', () => {
    const state = menuState(pageData({ freeDeliveryFromMinor: 5000 }));
    state.cart.add({ productId: 'burger', quantity: 2, modifiers: [{ optionId: 'bacon', quantity: 1 }] });
    assert.deepEqual(state.sums(), { subtotalAmount: 2400, deliveryFee: 0, discountAmount: 400, totalAmount: 2000 });
    state.orderType = 'delivery';
    assert.deepEqual(state.sums(), { subtotalAmount: 2400, deliveryFee: 250, discountAmount: 400, totalAmount: 2250 });
  });

  it('offers "Add" while the page takes orders, and "Place order" for now while open or for a time picked', () => {
    assert.equal(menuState(pageData({ orderTypes: [] })).canAdd(), false, 'a link that takes no orders');
    const state = menuState();
    assert.equal(state.canAdd(), true);
    assert.equal(state.canPlace(), false, 'an empty cart');
    state.cart.add({ productId: 'burger', quantity: 1, modifiers: [{ optionId: 'ketchup', quantity: 1 }] });
    assert.equal(state.canPlace(), true);
    state.closeOrdering({ reason: 'paused', opensAt: soon });
    assert.deepEqual(
      { open: state.ordering.open, reason: state.ordering.reason, opensAt: state.ordering.opensAt },
      { open: false, reason: 'paused', opensAt: soon },
    );
    assert.equal(state.canAdd(), true, 'paused: the cart can still be filled');
    assert.equal(state.canPlace(), false, 'but not placed for now');
    state.time.offered = true;
    state.time.day = '1';
    state.time.slot = soon;
    assert.equal(state.canPlace(), true, 'for a time picked');
    state.closeOrdering({ reason: 'not_accepting' });
    assert.equal(state.canAdd(), false);
  });

  it('offers the days of scheduled orders, "as soon as possible" first while open', () => {
    const ordering: OrderingInfo = { ...OPEN, prepTimeMinutes: 0, scheduledOrders: { enabled: true, maxDaysAhead: 2 } };
    const windows: [number, number][] = [
      [NOW, NOW + 3_600_000],
      [NOW + 86_400_000, NOW + 86_400_000 + 1_800_000],
    ];
    const state = menuState(pageData({ ordering, windows }), guestMenu([burger], ordering));
    const days = state.scheduleDays(NOW);
    assert.equal(days.length, 2);
    assert.deepEqual({ day: state.time.day, offered: state.time.offered }, { day: ASAP, offered: true });
    assert.equal(state.time.scheduledFor, null, 'for now');
    state.closeOrdering();
    state.scheduleDays(NOW);
    assert.equal(state.time.day, String(days[0].day), 'closed: the first day');
  });

  it("makes the order's body from the cart, the checkout's fields and the time picked", () => {
    const state = menuState(pageData({ table: { id: 't1', name: 'Table 1' } }));
    state.cart.add({ productId: 'burger', quantity: 2, modifiers: [{ optionId: 'ketchup', quantity: 1 }] });
    const fields: Record<string, string> = { customerName: 'Ana', deliveryAddress: 'Calle Mayor 1', comment: 'No onions' };
    const field = (name: string) => fields[name];
    assert.deepEqual(JSON.parse(JSON.stringify(state.orderBody(field))), {
      type: 'pickup',
      paymentMethod: 'cash',
      items: [{ productId: 'burger', quantity: 2, modifiers: [{ optionId: 'ketchup', quantity: 1 }] }],
      customerName: 'Ana',
      comment: 'No onions',
      tableId: 't1',
    });
    state.orderType = 'delivery';
    state.time.offered = true;
    state.time.day = '1';
    state.time.slot = soon;
    const body = state.orderBody((name) => (name === 'paymentMethod' ? 'terminal' : field(name)));
    assert.equal(body.deliveryAddress, 'Calle Mayor 1', 'a delivery sends its address');
    assert.equal(body.paymentMethod, 'terminal');
    assert.equal(body.scheduledFor, soon);
  });
});

describe('the checkout: TimePick', () => {
  const days = [
    { day: 10, slots: [NOW, NOW + 900_000] },
    { day: 11, slots: [NOW + 86_400_000] },
  ];

  it('keeps a day still offered, else goes to "as soon as possible" while open, the first day when closed', () => {
    const pick = new TimePick();
    pick.settle(days, false);
    assert.equal(pick.day, '10');
    pick.chooseDay('11');
    pick.settle(days, true);
    assert.equal(pick.day, '11', 'still offered');
    pick.settle(days.slice(0, 1), true);
    assert.equal(pick.day, ASAP, 'gone, and open: for now');
    pick.settle([], true);
    assert.equal(pick.offered, false);
  });

  it("settles the slot on one of the picked day's, and says it only while days are offered", () => {
    const pick = new TimePick();
    pick.settle(days, true);
    assert.equal(pick.slotsOf(days), null, 'as soon as possible: no slots');
    pick.chooseDay('10');
    const slots = pick.slotsOf(days);
    assert.deepEqual(slots?.values, [new Date(NOW).toISOString(), new Date(NOW + 900_000).toISOString()]);
    assert.equal(pick.slot, slots?.values[0], 'the first to begin with');
    pick.chooseSlot(slots?.values[1] as string);
    pick.slotsOf(days);
    assert.equal(pick.scheduledFor, slots?.values[1]);
    pick.settle([], true);
    assert.equal(pick.scheduledFor, null, 'no days offered: for now');
  });
});

describe("the checkout: the server's answer", () => {
  it('reads each answer for what the page does next', () => {
    assert.deepEqual(readReply(201, '/guest/v1/venues/test/orders/tok123', null), { kind: 'placed', token: 'tok123' });
    assert.deepEqual(readReply(200, '/guest/v1/venues/test/orders/tok123', null), { kind: 'placed', token: 'tok123' }, 'a replay');
    const items = [{ productId: 'burger', optionId: 'mayo' }];
    assert.deepEqual(readReply(409, null, { code: 'ITEM_UNAVAILABLE', details: { items } }), { kind: 'unavailable', items });
    assert.deepEqual(readReply(409, null, { code: 'ORDERING_CLOSED', details: { reason: 'paused', opensAt: soon } }), {
      kind: 'closed',
      reason: 'paused',
      opensAt: soon,
    });
    assert.deepEqual(readReply(422, null, { message: 'Invalid', errors: ['customerName is required'] }), {
      kind: 'refused',
      messages: ['customerName is required'],
    });
    assert.deepEqual(readReply(429, null, { message: 'Too many requests', errors: [] }), {
      kind: 'refused',
      messages: ['Too many requests'],
    });
    assert.deepEqual(readReply(502, null, null), { kind: 'refused', messages: [] }, 'nothing readable');
  });

  it("leads to the order's status page in the page's language", () => {
    assert.equal(statusPageUrl({ statusPageBase: '/m/test/orders/', locale: 'pt-BR' }, 'a/b'), '/m/test/orders/a%2Fb?lang=pt-BR');
  });
});

describe('the menu JSON: MenuFeed', () => {
  it('reads again when the next mark ends or ordering opens or closes, within six hours', () => {
    const at = (ms: number) => new Date(NOW + ms).toISOString();
    const withMark = (until: string) => guestMenu([{ ...burger, availability: { available: false, until, reason: 'sold_out' } }]);
    assert.equal(refreshDelay(guestMenu([burger]), OPEN, NOW), null, 'nothing to wait for');
    assert.equal(refreshDelay(withMark(at(60_000)), OPEN, NOW), 61_000, 'just after the mark ends');
    assert.equal(refreshDelay(withMark(at(-60_000)), { ...OPEN, closesAt: at(120_000) }, NOW), 121_000, 'a past mark is no reason');
    assert.equal(refreshDelay(withMark(at(REFRESH_AHEAD_MS + 1)), OPEN, NOW), null, 'too far ahead');
    const closed = { ...OPEN, open: false, reason: 'closed' as const, opensAt: at(30_000), closesAt: at(10_000) };
    assert.equal(refreshDelay(guestMenu([burger]), closed, NOW), 31_000, 'closed: when it opens');
  });

  it('shares one read, tries again after a failure, and reads afresh when asked', async () => {
    const reads: boolean[] = [];
    let fail = true;
    const seen: GuestMenu[] = [];
    const feed = new MenuFeed(
      async (fresh) => {
        reads.push(fresh);
        if (fail) throw new Error('429');
        return guestMenu([burger]);
      },
      (menu) => {
        seen.push(menu);
        return menu.ordering;
      },
    );
    assert.equal(await feed.read(), false);
    fail = false;
    const [a, b] = await Promise.all([feed.read(), feed.read()]);
    assert.deepEqual([a, b], [true, true]);
    assert.deepEqual(reads, [false, false], 'one read after the failure, shared');
    assert.equal(await feed.read(), true);
    assert.equal(reads.length, 2, 'read once, kept');
    await feed.read(true);
    assert.deepEqual(reads, [false, false, true]);
    assert.equal(seen.length, 2);
  });
});
