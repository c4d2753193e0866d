import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { When } from '../../src/modules/guest-page/shared/availability.js';
import { fill, uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { call, startApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumSkip } from '../helpers/chromium.js';
import { FOOD_MENU, markAvailability, NOON_TO_TEN, patchSettings, setUpGuestPage, type GuestPageFixture } from '../helpers/guest-page.js';
import { expectStatus, patchStatus } from '../helpers/orders.js';

// The guest page in a real browser (docs/guest-page.md): a guest scans a table's link,
// switches language, orders a burger with its required bun (preselected), trips the server
// validation once, places the order with a double click and watches the status page follow
// the kitchen. The same order again with the keyboard alone, and axe-core on every screen.
// Availability: sold-out dishes and options, a cart line sold out since, ordering paused, and an order
// scheduled for a time picked from the slots, with the app's clock and the browser's set together.
// Food information: allergens and dietary labels in words on each dish (English and Spanish), the dialog's
// traces, spice, calories and nutrition, and the allergen and diet filter, kept for the visit.

const PHONE = { width: 390, height: 844 };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshots of each step, for a human to look at (not committed). */
const SHOTS = path.join(ROOT, 'test-results/guest-page');

const en = uiStrings('en');
const es = uiStrings('es');

/** Burger 1000 + Brioche bun 150 (test/helpers/orders.ts ORDER_MENU). */
const BURGER_BRIOCHE = 1150;
/** Burger 1000 + Brioche bun 150 + one Cheese 100. */
const BURGER_BRIOCHE_CHEESE = 1250;

interface Visit {
  page: Page;
  context: BrowserContext;
  /** Script errors and console errors the page should not have. */
  problems: string[];
  /** Requests to anywhere but the test server (aborted). */
  foreign: string[];
  /** POSTs to the guest order API, with their Idempotency-Key. */
  posts: { url: string; key: string | undefined }[];
}

// Its seven walks took 111 s alone and 135 s beside the other guest page files on a loaded machine: 3 minutes.
describe('the guest page in Chromium', { skip: chromiumSkip, timeout: 180_000 }, () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** The app's clock: the real one unless a test sets an instant (open() sets the browser's to it). */
  let clockAt: number | null = null;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startApp({}, undefined, { clock: () => clockAt ?? Date.now() });
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    assert.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  /**
   * A fresh phone-sized context (empty localStorage) that can reach the test server only; its
   * Date.now() is the app's clock when a test set one (timers keep running).
   */
  async function open(url: string): Promise<Visit> {
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, hasTouch: false, locale: 'en-US' });
    contexts.push(context);
    await context.route(
      (u) => u.origin !== origin,
      (route) => route.abort(),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    if (clockAt !== null) await page.clock.setFixedTime(clockAt);
    const visit: Visit = { page, context, problems: [], foreign: [], posts: [] };
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) visit.foreign.push(request.url());
      if (request.method() === 'POST' && /\/guest\/v1\/venues\/[^/]+\/orders$/.test(new URL(request.url()).pathname)) {
        visit.posts.push({ url: request.url(), key: request.headers()['idempotency-key'] });
      }
    });
    page.on('pageerror', (error) => visit.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A refused order is a 400 or a 409 the page handles; the browser logs the status of any failed fetch.
      if (message.type() === 'error' && !/status of (400|409)/.test(message.text()))
        visit.problems.push(`console error: ${message.text()}`);
    });
    const response = await page.goto(url);
    assert.equal(response?.status(), 200, url);
    return visit;
  }

  /** The table's link, on the listening server (the fixture's qrUrl names PUBLIC_BASE_URL). */
  const tableUrl = (fx: GuestPageFixture) => `${origin}/t/${fx.table.token}`;

  async function shot(page: Page, name: string): Promise<void> {
    const file = path.join(SHOTS, name);
    await page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 5_000, `a screenshot with content at ${file}`);
  }

  /** axe-core in the page: the serious and critical violations, readable. */
  async function seriousViolations(page: Page): Promise<string[]> {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
    return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.impact + ' ' + v.id + ': ' + v.help + ' -> ' + v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160) + ' [' + n.failureSummary + ']').join(' | ')))`);
  }

  /**
   * Presses Tab (Shift+Tab when `backwards`) until the focused element matches `selector`; the
   * predicate runs in the page on document.activeElement. Fails after `max` presses.
   */
  async function tabTo(page: Page, selector: string, max = 80, backwards = false): Promise<void> {
    for (let i = 0; i <= max; i += 1) {
      if (await focused(page, selector)) return;
      await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    }
    const at = await page.evaluate<string>(`document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : 'nothing'`);
    assert.fail(`${selector} not reached with ${max} Tab presses; focus is on ${at}`);
  }

  // In-page expressions are strings: this project's TypeScript has no DOM library (like test/docs/docs-page.test.ts).
  /** Whether the focused element matches `selector`. */
  const focused = (page: Page, selector: string) =>
    page.evaluate<boolean>(`!!document.activeElement && document.activeElement.matches(${JSON.stringify(selector)})`);
  /** Whether focus is inside the element with this id. */
  const focusInside = (page: Page, id: string) =>
    page.evaluate<boolean>(`!!document.getElementById(${JSON.stringify(id)})?.contains(document.activeElement)`);
  /** The text of the label around the focused element. */
  const focusedLabel = (page: Page) => page.evaluate<string>(`document.activeElement?.closest('label')?.textContent ?? ''`);

  function burgerOf(fx: GuestPageFixture): { id: string; bunGroupId: string } {
    const burger = fx.ids.guestMenu.products.find((p: any) => p.id === fx.ids.productIds.burger);
    const bun = burger.modifierGroups.find((g: any) => g.name === 'Bun');
    return { id: burger.id, bunGroupId: bun.id };
  }

  async function venueOrders(fx: GuestPageFixture): Promise<any[]> {
    const res = await call(t.app, 'GET', '/v1/orders', { key: fx.v.key });
    expectStatus(res, 200);
    return res.body.items;
  }

  const statusPage = (fx: GuestPageFixture) => new RegExp(`^${origin}/m/${fx.v.slug}/orders/[^/?]+\\?lang=`);

  it('takes a table order from scan to confirmed: languages, both validations, a double click that makes one order', async () => {
    const fx = await setUpGuestPage(t.app);
    const burger = burgerOf(fx);
    const { page, problems, foreign, posts } = await open(tableUrl(fx));
    const html = page.locator('html');

    // Scanned: the menu in English at table 5, the script's Add buttons shown.
    assert.equal(await html.getAttribute('lang'), 'en');
    assert.equal(await html.getAttribute('dir'), 'ltr');
    assert.ok(await page.getByText('Table 5', { exact: true }).isVisible(), '"Table 5" on screen');
    await page.getByRole('button', { name: 'Add Burger' }).waitFor({ state: 'visible' });
    await shot(page, '01-menu.png');

    // Español, then العربية (right to left), then back to Spanish to order.
    await page.locator('nav.langs a[hreflang="es"]').click();
    await page.waitForURL(/[?&]lang=es\b/);
    assert.equal(await html.getAttribute('lang'), 'es');
    assert.equal(await html.getAttribute('dir'), 'ltr');
    assert.ok(await page.locator('h3.card-title', { hasText: 'Hamburguesa' }).isVisible(), '"Hamburguesa" on screen');
    assert.ok(await page.getByText('Mesa 5', { exact: true }).isVisible(), '"Mesa 5" on screen');
    await shot(page, '02-spanish.png');

    await page.locator('nav.langs a[hreflang="ar"]').click();
    await page.waitForURL(/[?&]lang=ar\b/);
    assert.equal(await html.getAttribute('lang'), 'ar');
    assert.equal(await html.getAttribute('dir'), 'rtl');
    assert.ok(await page.locator('h3.card-title', { hasText: 'برغر' }).isVisible(), '"برغر" on screen');
    await shot(page, '03-arabic.png');

    await page.locator('nav.langs a[hreflang="es"]').click();
    await page.waitForURL(/[?&]lang=es\b/);
    assert.equal(await html.getAttribute('dir'), 'ltr');

    // The Burger: its required bun (no default) starts on the first one, White; "Add" is ready at once
    // (the rule that waits for a choice is modifier-rules.test.ts's). The guest takes Brioche instead.
    await page.getByRole('button', { name: 'Añadir Hamburguesa' }).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.equal(await dialog.locator('#pd-title').innerText(), 'Hamburguesa');
    assert.equal(await dialog.getByLabel(/White bun/).isChecked(), true, 'the first bun is chosen to begin with');
    assert.equal(await dialog.locator('#pd-add').getAttribute('aria-disabled'), null);
    assert.equal(await dialog.locator(`#err-g-${burger.bunGroupId}`).isVisible(), false);
    await shot(page, '04-dialog-required.png');

    await dialog.getByLabel(/Brioche bun/).check();
    assert.equal(await dialog.locator('#pd-add').getAttribute('aria-disabled'), null);
    assert.equal(await dialog.locator('#pd-reasons').innerText(), '');
    assert.match(await dialog.locator('#pd-add').innerText(), /11,50/, 'the button shows 1000 + 150');
    await dialog.locator('#pd-add').click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#announce').innerText(), fill(es.added, { name: 'Hamburguesa' }));

    // The cart survives a change of language (local storage, docs/guest-page.md).
    const openCart = page.locator('#open-cart');
    await openCart.waitFor({ state: 'visible' });
    assert.match(await openCart.innerText(), /\(1\)/);
    await page.locator('nav.langs a[hreflang="en"]').click();
    await page.waitForURL(/[?&]lang=en\b/);
    await openCart.waitFor({ state: 'visible' });
    assert.equal(await openCart.innerText(), fill(en.viewOrder, { count: 1, price: '€11.50' }));
    await page.locator('nav.langs a[hreflang="es"]').click();
    await page.waitForURL(/[?&]lang=es\b/);

    // The cart: one line; an email the server refuses comes back next to its field.
    await openCart.waitFor({ state: 'visible' });
    assert.match(await openCart.innerText(), /\(1\)/);
    await openCart.click();
    const cartDialog = page.locator('dialog#cart-dialog');
    await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
    assert.match(await cartDialog.locator('#cart-lines').innerText(), /Hamburguesa/);
    assert.match(await cartDialog.locator('#cart-lines').innerText(), /Brioche bun/);
    assert.equal(await cartDialog.locator('input[name="paymentMethod"]').count(), 2);
    await cartDialog.locator('#f-customerName').fill('Ada');
    await cartDialog.locator('#f-customerEmail').fill('not-an-email');
    await shot(page, '05-cart.png');

    const refused = page.waitForResponse(
      (r) => r.request().method() === 'POST' && r.url().endsWith(`/guest/v1/venues/${fx.v.slug}/orders`),
    );
    await cartDialog.locator('#place-order').click();
    assert.equal((await refused).status(), 400, 'the server refuses the email');
    const emailError = cartDialog.locator('#err-customerEmail');
    await emailError.waitFor({ state: 'visible' });
    assert.match(await emailError.innerText(), /\S/, 'the server message is shown');
    assert.equal(await cartDialog.locator('#f-customerEmail').getAttribute('aria-invalid'), 'true');
    assert.equal(await cartDialog.locator('#form-error').innerText(), es.fixErrors);
    assert.equal(await cartDialog.locator('#err-customerName').isVisible(), false, 'only the email is marked');
    assert.deepEqual(await venueOrders(fx), [], 'no order yet');
    await shot(page, '06-server-error.png');

    // Fixed, then a double click on "Hacer el pedido": one order, and the status page. The request
    // is held for a moment so the button can be seen busy while it runs.
    await cartDialog.locator('#f-customerEmail').fill('ada@example.com');
    const postsBefore = posts.length;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`${origin}/guest/v1/venues/${fx.v.slug}/orders`, async (route) => {
      await held;
      await route.continue();
    });
    const place = cartDialog.locator('#place-order');
    const arrived = page.waitForURL(statusPage(fx), { timeout: 10_000 });
    await place.dblclick();
    assert.equal(await place.isDisabled(), true, 'disabled while the order is sent');
    assert.equal(await place.innerText(), es.placing);
    assert.equal(await place.getAttribute('aria-busy'), 'true');
    release();
    await arrived;
    const sent = posts.slice(postsBefore);
    assert.ok(sent.length >= 1, 'the order was sent');
    assert.equal(new Set(sent.map((p) => p.key)).size, 1, `one Idempotency-Key for the double click: ${JSON.stringify(sent)}`);
    assert.ok(sent[0].key, 'with an Idempotency-Key');

    const orders = await venueOrders(fx);
    assert.equal(orders.length, 1, `exactly one order: ${JSON.stringify(orders.map((o) => o.id))}`);
    const [order] = orders;
    assert.equal(order.tableId, fx.table.id);
    assert.equal(order.tableName, '5');
    assert.equal(order.type, 'dine_in');
    assert.equal(order.totalAmount, BURGER_BRIOCHE);
    assert.equal(order.customerName, 'Ada');
    assert.equal(order.customerEmail, 'ada@example.com');
    assert.equal(order.status, 'new');
    assert.deepEqual(
      order.items.map((i: any) => [i.productName, i.quantity, i.modifiers.map((m: any) => m.ingredientName)]),
      [['Burger', 1, ['Brioche bun']]],
    );

    const url = new URL(page.url());
    assert.equal(url.searchParams.get('lang'), 'es');
    assert.equal(await html.getAttribute('lang'), 'es');
    const main = page.locator('main#status');
    assert.equal(await main.getAttribute('data-status'), 'new');
    assert.equal(await page.locator('#status-now').innerText(), es.status_new);
    assert.match(await main.innerText(), new RegExp(`Pedido ${order.orderNumber}`));
    assert.equal(await page.locator('ol#status-steps li[aria-current="step"]').innerText(), es.status_new);
    await shot(page, '07-status-new.png');

    // The venue confirms through the API; the page follows by itself (it polls every 1.5 s).
    expectStatus(await patchStatus(t.app, fx.v.key, order.id, 'confirmed'), 200);
    await page.locator('main#status[data-status="confirmed"]').waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await page.locator('#status-now').innerText(), es.status_confirmed);
    assert.equal(await page.locator('ol#status-steps li[aria-current="step"]').innerText(), es.status_confirmed);
    assert.equal(await page.locator('ol#status-steps li.done').count(), 1);
    await shot(page, '08-status-confirmed.png');

    assert.equal((await venueOrders(fx)).length, 1, 'still one order');
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });

  it('takes the whole order with the keyboard alone', async () => {
    const fx = await setUpGuestPage(t.app);
    const burger = burgerOf(fx);
    const { page, problems, foreign } = await open(tableUrl(fx));
    await page.locator(`button.add[data-product="${burger.id}"]`).waitFor({ state: 'visible' });

    // The Burger's Add button, from the top of the page.
    await tabTo(page, `button.add[data-product="${burger.id}"]`);
    assert.equal(await page.evaluate<string | null>(`document.activeElement.getAttribute('aria-label')`), `${en.add} Burger`);
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.ok(await focusInside(page, 'product-dialog'), 'focus moves into the dialog');
    // Escape closes it and gives focus back to the button; Enter opens it again.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await focused(page, `button.add[data-product="${burger.id}"]`), 'focus back on Add Burger');
    await page.keyboard.press('Enter');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.ok(await focusInside(page, 'product-dialog'), 'focus moves into the dialog again');

    // Bun: into the radio group, an arrow picks Brioche; Extras: one Cheese (its + button); Remove: Onion.
    await tabTo(page, '#product-dialog input[type="radio"]', 20);
    await page.keyboard.press('ArrowDown');
    assert.equal(await dialog.getByLabel(/Brioche bun/).isChecked(), true, 'ArrowDown chose Brioche');
    await tabTo(page, '#product-dialog button.more', 20);
    assert.equal(
      await page.evaluate<string | null>(`document.activeElement.getAttribute('aria-label')`),
      fill(en.increaseNamed, { name: 'Cheese' }),
    );
    await page.keyboard.press('Enter');
    await tabTo(page, '#product-dialog input[type="checkbox"]', 20);
    assert.match(await focusedLabel(page), /Onion/);
    await page.keyboard.press('Space');
    assert.equal(await dialog.getByLabel('Onion').isChecked(), true, 'Space ticked Onion');
    await tabTo(page, '#pd-add', 20);
    assert.match(await dialog.locator('#pd-add').innerText(), /12\.50/, 'the button shows 1000 + 150 + 100');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });

    // The cart bar, the name, and "Place order".
    await page.locator('#open-cart').waitFor({ state: 'visible' });
    await tabTo(page, '#open-cart');
    await page.keyboard.press('Enter');
    const cartDialog = page.locator('dialog#cart-dialog');
    await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
    assert.ok(await focusInside(page, 'cart-dialog'), 'focus moves into the cart');
    await tabTo(page, '#f-customerName', 30);
    await page.keyboard.type('Kim');
    await tabTo(page, '#place-order', 30);
    await Promise.all([page.waitForURL(statusPage(fx), { timeout: 10_000 }), page.keyboard.press('Enter')]);
    await page.locator('main#status[data-status="new"]').waitFor({ state: 'attached' });

    const orders = await venueOrders(fx);
    assert.equal(orders.length, 1);
    const [order] = orders;
    assert.equal(order.customerName, 'Kim');
    assert.equal(order.tableId, fx.table.id);
    assert.equal(order.totalAmount, BURGER_BRIOCHE_CHEESE);
    assert.deepEqual(order.items[0].modifiers.map((m: any) => [m.groupName, m.ingredientName, m.quantity]).sort(), [
      ['Bun', 'Brioche bun', 1],
      ['Extras', 'Cheese', 1],
      ['Remove', 'Onion', 1],
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });

  it('has no serious or critical axe-core violation on the menu, the product dialog, the cart and the status page', async () => {
    const fx = await setUpGuestPage(t.app);
    const burger = burgerOf(fx);
    const { page, problems, foreign } = await open(tableUrl(fx));
    const found: Record<string, string[]> = {};

    await page.locator(`button.add[data-product="${burger.id}"]`).waitFor({ state: 'visible' });
    found.menu = await seriousViolations(page);

    await page.locator(`button.add[data-product="${burger.id}"]`).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    // Its required bun comes chosen (a dialog with an error is axe-checked in modifier-rules.test.ts).
    found['product dialog'] = await seriousViolations(page);
    await dialog.locator('#pd-add').click();
    await dialog.waitFor({ state: 'hidden' });

    await page.locator('#open-cart').click();
    const cartDialog = page.locator('dialog#cart-dialog');
    await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
    found.cart = await seriousViolations(page);
    await cartDialog.locator('#f-customerEmail').fill('not-an-email');
    await cartDialog.locator('#place-order').click();
    await cartDialog.locator('#err-customerEmail').waitFor({ state: 'visible' });
    found['cart (with a server error)'] = await seriousViolations(page);

    await cartDialog.locator('#f-customerEmail').fill('');
    await Promise.all([page.waitForURL(statusPage(fx), { timeout: 10_000 }), cartDialog.locator('#place-order').click()]);
    await page.locator('main#status').waitFor();
    found['status page'] = await seriousViolations(page);

    for (const [where, violations] of Object.entries(found)) {
      if (violations.length > 0) console.log(`axe on ${where}:\n  ${violations.join('\n  ')}`);
    }
    assert.deepEqual(found, { menu: [], 'product dialog': [], cart: [], 'cart (with a server error)': [], 'status page': [] });
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });
  /** A Wednesday, 12:00 in Madrid (UTC+1 in January): the clock of the availability tests. */
  const WED_NOON = Date.parse('2030-01-09T11:00:00Z');
  const HOUR = 3_600_000;
  const madrid = new When('en', 'Europe/Madrid');
  const productIdOf = (fx: GuestPageFixture, externalId: string) => fx.ids.productIds[externalId];

  /** Opens a product's dialog from its card, and adds it (after `choose`, when it has choices). */
  async function addProduct(
    page: Page,
    name: string,
    choose: (dialog: ReturnType<Page['locator']>) => Promise<void> = async () => {},
  ): Promise<void> {
    await page.getByRole('button', { name: `Add ${name}`, exact: true }).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    await choose(dialog);
    await dialog.locator('#pd-add').click();
    await dialog.waitFor({ state: 'hidden' });
  }

  it('greys a sold-out dish and option, and flags a cart line sold out since at checkout, to be removed', async () => {
    clockAt = WED_NOON;
    try {
      const fx = await setUpGuestPage(t.app);
      await patchSettings(t.app, fx.v, { timezone: 'Europe/Madrid' });
      await markAvailability(t.app, fx.v, { ingredients: [{ ref: 'bacon', available: false }] });
      const { page, problems, foreign } = await open(tableUrl(fx));
      const burger = productIdOf(fx, 'burger');
      const fries = productIdOf(fx, 'fries');
      const soda = productIdOf(fx, 'soda');
      await page.locator(`button.add[data-product="${burger}"]`).waitFor({ state: 'visible' });

      // Bacon has run out: its extra is greyed, says so and takes no quantity.
      await addProduct(page, 'Burger', async (dialog) => {
        const bacon = dialog.locator('.choice', { hasText: 'Bacon' });
        assert.match((await bacon.getAttribute('class')) ?? '', /\bunavailable\b/);
        assert.match(await bacon.innerText(), new RegExp(en.soldOut));
        assert.equal(
          await dialog.getByRole('button', { name: fill(en.increaseNamed, { name: 'Bacon' }) }).isDisabled(),
          true,
          'Bacon cannot be chosen',
        );
        assert.equal(await dialog.getByRole('button', { name: fill(en.increaseNamed, { name: 'Cheese' }) }).isDisabled(), false);
        await dialog.getByLabel(/White bun/).check();
      });
      await addProduct(page, 'Fries');
      await addProduct(page, 'Soda');
      assert.match(await page.locator('#open-cart').innerText(), /\(3\)/);

      // The soda sells out until 17:30: after a reload its card is greyed, says until when, and has no Add.
      const back = WED_NOON + 5.5 * HOUR;
      const sodaLabel = fill(en.soldOutUntil, { when: madrid.time(back) });
      await markAvailability(t.app, fx.v, { products: [{ ref: 'soda', available: false, until: new Date(back).toISOString() }] });
      await page.reload();
      const sodaCard = page.locator(`#p-${soda}`);
      await page.locator('#open-cart').waitFor({ state: 'visible' });
      assert.match((await sodaCard.getAttribute('class')) ?? '', /\bsold-out\b/);
      assert.equal(await sodaCard.locator('.availability').innerText(), sodaLabel);
      assert.equal(await sodaCard.locator('button.add').isVisible(), false, 'no way to add it');
      assert.equal(await page.locator('button.add:visible').count(), 2, 'Burger and Fries can be added');
      const menuViolations = await seriousViolations(page);
      await shot(page, '09-sold-out.png');

      // At checkout the soda line says so, with a button to remove it; the order cannot be placed with it.
      assert.match(await page.locator('#open-cart').innerText(), /\(3\)/, 'the cart kept its lines');
      await page.locator('#open-cart').click();
      const cartDialog = page.locator('dialog#cart-dialog');
      await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
      const sodaLine = cartDialog.locator(`li.line-unavailable[data-product="${soda}"]`);
      assert.match(await sodaLine.innerText(), new RegExp(sodaLabel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.equal(await cartDialog.locator('li.line-unavailable').count(), 1);
      assert.equal(await cartDialog.locator('#cart-problem').innerText(), en.unavailableInCart);
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), true);
      await cartDialog.locator('#f-customerName').fill('Ada');
      const cartViolations = await seriousViolations(page);
      await shot(page, '10-cart-unavailable.png');
      await cartDialog.getByRole('button', { name: fill(en.removeNamed, { name: 'Soda' }) }).click();
      await sodaLine.waitFor({ state: 'detached' });
      assert.equal(await page.locator('#announce').innerText(), fill(en.removed, { name: 'Soda' }));
      assert.equal(await cartDialog.locator('#cart-problem').count(), 0);
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), false);

      // The fries sell out while the guest is at checkout: the server refuses (409), the line says so.
      await markAvailability(t.app, fx.v, { products: [{ ref: 'fries', available: false }] });
      const refused = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith(`/guest/v1/venues/${fx.v.slug}/orders`),
      );
      await cartDialog.locator('#place-order').click();
      assert.equal((await refused).status(), 409);
      const friesLine = cartDialog.locator(`li.line-unavailable[data-product="${fries}"]`);
      await friesLine.waitFor({ state: 'visible' });
      assert.match(await friesLine.innerText(), new RegExp(en.soldOut));
      assert.equal(await cartDialog.locator('#form-error').innerText(), en.unavailableInCart);
      assert.ok(await focused(page, '#form-error'), 'focus on the message');
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), true);
      assert.match((await page.locator(`#p-${fries}`).getAttribute('class')) ?? '', /\bsold-out\b/, 'its card is greyed too');
      const refusedViolations = await seriousViolations(page);
      await shot(page, '11-cart-refused.png');
      assert.deepEqual(await venueOrders(fx), [], 'nothing was ordered');

      await cartDialog.getByRole('button', { name: fill(en.removeNamed, { name: 'Fries' }) }).click();
      await friesLine.waitFor({ state: 'detached' });
      assert.equal(await cartDialog.locator('#form-error').isVisible(), false, 'the message goes with the last such line');
      await Promise.all([page.waitForURL(statusPage(fx), { timeout: 10_000 }), cartDialog.locator('#place-order').click()]);
      await page.locator('main#status[data-status="new"]').waitFor({ state: 'attached' });
      const orders = await venueOrders(fx);
      assert.equal(orders.length, 1);
      assert.deepEqual(
        orders[0].items.map((i: any) => [i.productName, i.quantity]),
        [['Burger', 1]],
      );
      assert.equal(orders[0].scheduledFor, null);

      assert.deepEqual({ menu: menuViolations, cart: cartViolations, refused: refusedViolations }, { menu: [], cart: [], refused: [] });
      assert.deepEqual(problems, []);
      assert.deepEqual(foreign, []);
    } finally {
      clockAt = null;
    }
  });

  it('says ordering is paused and offers no order for now, then takes one for a time picked from the slots', async () => {
    // Thursday 13:00 in Madrid; open 12:00-22:00 every day.
    const now = Date.parse('2030-01-10T12:00:00Z');
    const resumes = now + 0.5 * HOUR;
    const paused = fill(en.pausedUntil, { when: madrid.time(resumes) });
    clockAt = now;
    try {
      const fx = await setUpGuestPage(t.app);
      await patchSettings(t.app, fx.v, {
        timezone: 'Europe/Madrid',
        openingHours: NOON_TO_TEN,
        orderConfig: { pausedUntil: new Date(resumes).toISOString(), scheduledOrders: { enabled: false } },
      });
      const { page, problems, foreign } = await open(`${origin}/m/${fx.v.slug}`);
      const notice = page.locator('#ordering-notice');
      assert.equal(await notice.innerText(), `${paused} ${en.browseMenu}`);
      await page.locator('button.add').first().waitFor({ state: 'visible' });

      // Paused, no scheduled orders: the cart can be filled, but "Place order" is not offered for now.
      await addProduct(page, 'Fries');
      await page.locator('#open-cart').click();
      const cartDialog = page.locator('dialog#cart-dialog');
      await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
      assert.equal(await cartDialog.locator('#checkout-closed').innerText(), paused);
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), true);
      assert.equal(await cartDialog.locator('#f-when').count(), 0, 'no time to pick');
      const pausedViolations = await seriousViolations(page);
      await cartDialog.locator('#when-box').scrollIntoViewIfNeeded();
      await shot(page, '12-paused.png');

      // Open again, with scheduled orders: "As soon as possible" first.
      await patchSettings(t.app, fx.v, { orderConfig: { pausedUntil: null, scheduledOrders: { enabled: true, maxDaysAhead: 2 } } });
      await page.reload();
      await page.locator('#open-cart').waitFor({ state: 'visible' });
      assert.equal(await notice.isVisible(), false);
      await page.locator('#open-cart').click();
      await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
      const day = cartDialog.locator('#f-when');
      assert.equal(await day.inputValue(), 'asap');
      assert.deepEqual(await day.locator('option').allInnerTexts(), [en.asap, 'Today', 'Tomorrow', 'Saturday, January 12']);
      assert.equal(await cartDialog.locator('#field-scheduledFor').isVisible(), false);
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), false);

      // Paused meanwhile: the order for now is refused (409) and the page says why; a time can be picked.
      await patchSettings(t.app, fx.v, { orderConfig: { pausedUntil: new Date(resumes).toISOString() } });
      await cartDialog.locator('#f-customerName').fill('Ada');
      await cartDialog.locator('#f-customerPhone').fill('+34600123456');
      const refused = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith(`/guest/v1/venues/${fx.v.slug}/orders`),
      );
      await cartDialog.locator('#place-order').click();
      assert.equal((await refused).status(), 409);
      await cartDialog.locator('#form-error').waitFor({ state: 'visible' });
      assert.equal(await cartDialog.locator('#form-error').innerText(), paused);
      assert.equal(await notice.innerText(), `${paused} ${en.orderAhead}`);
      assert.deepEqual(
        await day.locator('option').allInnerTexts(),
        ['Today', 'Tomorrow', 'Saturday, January 12'],
        'no "as soon as possible" while paused',
      );
      assert.equal(await cartDialog.locator('#checkout-closed').innerText(), paused);

      // Tomorrow at 19:00 in Madrid: the quarter hours of the opening hours.
      await day.selectOption({ label: 'Tomorrow' });
      const times = cartDialog.locator('#f-scheduledFor');
      await times.waitFor({ state: 'visible' });
      const offered = await times.locator('option').evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value));
      assert.equal(offered.length, 40, '12:00 to 21:45');
      assert.equal(offered[0], '2030-01-11T11:00:00.000Z');
      assert.equal(offered.at(-1), '2030-01-11T20:45:00.000Z');
      const slot = '2030-01-11T18:00:00.000Z';
      await times.selectOption(slot);
      assert.equal(await times.locator('option:checked').innerText(), madrid.time(Date.parse(slot)));
      assert.equal(await cartDialog.locator('#place-order').isDisabled(), false);
      const scheduleViolations = await seriousViolations(page);
      await cartDialog.locator('#when-box').scrollIntoViewIfNeeded();
      await shot(page, '13-scheduled-pick.png');

      await Promise.all([page.waitForURL(statusPage(fx), { timeout: 10_000 }), cartDialog.locator('#place-order').click()]);
      await page.locator('main#status[data-status="new"]').waitFor({ state: 'attached' });
      const scheduled = fill(en.scheduledFor, { when: madrid.at(Date.parse(slot), now, true) });
      assert.match(scheduled, /^Scheduled for tomorrow 7:00\sPM$/);
      assert.equal(await page.locator('#status-scheduled').innerText(), scheduled);
      const statusViolations = await seriousViolations(page);
      await shot(page, '14-status-scheduled.png');
      const orders = await venueOrders(fx);
      assert.equal(orders.length, 1);
      assert.equal(orders[0].scheduledFor, slot);
      assert.equal(orders[0].type, 'pickup');

      assert.deepEqual(
        { paused: pausedViolations, schedule: scheduleViolations, status: statusViolations },
        { paused: [], schedule: [], status: [] },
      );
      assert.deepEqual(problems, []);
      assert.deepEqual(foreign, []);
    } finally {
      clockAt = null;
    }
  });
  // --- Food information -------------------------------------------------------------------
  const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** The rows of the dialog's nutrition table, as [name, value] with plain spaces. */
  const nutritionRows = (page: Page) =>
    page.evaluate<string[][]>(`Array.from(document.querySelectorAll('#pd-nutrition tr'))
    .map((tr) => [tr.querySelector('th').textContent, tr.querySelector('td').textContent.replace(/[\u00a0\u202f]/g, ' ')])`);

  it("says each dish's allergens and labels in words, in English and Spanish, and its traces, spice, calories and nutrition in the dialog", async () => {
    const fx = await setUpGuestPage(t.app, FOOD_MENU);
    const burger = productIdOf(fx, 'burger');
    const fries = productIdOf(fx, 'fries');
    const { page, problems, foreign } = await open(tableUrl(fx));
    await page.locator(`button.add[data-product="${burger}"]`).waitFor({ state: 'visible' });

    // The cards, in words (server-rendered): allergens, traces, labels, spice.
    const burgerCard = page.locator(`#p-${burger}`);
    const friesCard = page.locator(`#p-${fries}`);
    assert.equal(await burgerCard.locator('.allergens').innerText(), 'Allergens: Cereals containing gluten, Mustard');
    assert.equal(await burgerCard.locator('.may-contain').innerText(), 'May contain: Sesame seeds');
    assert.deepEqual(await burgerCard.locator('.tag').allInnerTexts(), ['Spicy: 2 of 3']);
    assert.deepEqual(await friesCard.locator('.tag').allInnerTexts(), ['Vegetarian', 'Vegan', 'Gluten-free']);
    assert.equal(await friesCard.locator('.allergens').count(), 0, 'no allergen line where there is none');
    assert.equal(await page.locator('.food-note').innerText(), en.foodNote);
    // Nutrition per portion on the card, behind a disclosure that opens with the keyboard too.
    const facts = burgerCard.locator('details.facts');
    assert.equal(await facts.locator('table').isVisible(), false);
    await facts.locator('summary').focus();
    await page.keyboard.press('Enter');
    await facts.locator('table').waitFor({ state: 'visible' });
    assert.match(await facts.locator('table').innerText(), /of which saturates\s+12 g/);
    const menuViolations = await seriousViolations(page);
    await shot(page, '15-food-menu.png');

    // The Burger's dialog: traces, spice, and the nutrients given (no fibre), with calories first.
    await page.getByRole('button', { name: 'Add Burger' }).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.equal(await dialog.locator('#pd-allergens').innerText(), 'Allergens: Cereals containing gluten, Mustard');
    assert.equal(await dialog.locator('#pd-may-contain').innerText(), 'May contain: Sesame seeds');
    assert.equal(await dialog.locator('#pd-spice').innerText(), 'Spicy: 2 of 3');
    assert.equal(await dialog.locator('#pd-nutrition caption').innerText(), en.nutrition);
    assert.deepEqual(await nutritionRows(page), [
      ['Calories', '1,250 kcal'],
      ['Fat', '32.5 g'],
      ['of which saturates', '12 g'],
      ['Carbohydrate', '48 g'],
      ['of which sugars', '6.5 g'],
      ['Protein', '35 g'],
      ['Salt', '2.1 g'],
    ]);
    // An option says what it brings.
    assert.match(
      await dialog.locator('.choice', { hasText: 'Brioche bun' }).innerText(),
      /Allergens: Cereals containing gluten, Eggs, Milk/,
    );
    assert.match(await dialog.locator('.choice', { hasText: 'Cheese' }).innerText(), /Allergens: Milk/);
    const dialogViolations = await seriousViolations(page);
    await shot(page, '16-food-dialog.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // In Spanish: the names of the regulation in Spanish, numbers the Spanish way.
    await page.locator('nav.langs a[hreflang="es"]').click();
    await page.waitForURL(/[?&]lang=es\b/);
    await page.locator(`button.add[data-product="${burger}"]`).waitFor({ state: 'visible' });
    assert.equal(await burgerCard.locator('.allergens').innerText(), 'Alérgenos: Cereales que contengan gluten, Mostaza');
    assert.equal(await burgerCard.locator('.may-contain').innerText(), 'Puede contener: Granos de sésamo');
    assert.deepEqual(await friesCard.locator('.tag').allInnerTexts(), ['Vegetariano', 'Vegano', 'Sin gluten']);
    assert.equal(await page.locator('.food-note').innerText(), es.foodNote);
    await page.getByRole('button', { name: 'Añadir Hamburguesa' }).click();
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.equal(await dialog.locator('#pd-spice').innerText(), 'Picante: 2 de 3');
    assert.equal(await dialog.locator('#pd-may-contain').innerText(), 'Puede contener: Granos de sésamo');
    assert.equal(await dialog.locator('#pd-nutrition caption').innerText(), es.nutrition);
    assert.deepEqual((await nutritionRows(page)).slice(0, 3), [
      ['Calorías', '1250 kcal'],
      ['Grasas', '32,5 g'],
      ['de las cuales saturadas', '12 g'],
    ]);
    await shot(page, '17-food-spanish.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Añadir Fries' }).click();
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.equal(await dialog.locator('#pd-spice').innerText(), 'No picante');
    assert.match(await dialog.locator('#pd-may-contain').innerText(), new RegExp(esc('Puede contener: Cereales que contengan gluten')));
    assert.deepEqual(await nutritionRows(page), [['Calorías', '380 kcal']], 'only what is given');
    const spanishViolations = await seriousViolations(page);

    assert.deepEqual({ menu: menuViolations, dialog: dialogViolations, spanish: spanishViolations }, { menu: [], dialog: [], spanish: [] });
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });

  it('hides the dishes with a chosen allergen and keeps vegan ones only, with the keyboard alone, for the visit', async () => {
    const fx = await setUpGuestPage(t.app, FOOD_MENU);
    const card = (externalId: string) => page.locator(`#p-${productIdOf(fx, externalId)}`);
    const shown = async () => {
      const out: string[] = [];
      for (const name of ['burger', 'fries', 'soda', 'salad']) if (await card(name).isVisible()) out.push(name);
      return out;
    };
    const { page, problems, foreign } = await open(tableUrl(fx));
    const opener = page.locator('#open-filter');
    await opener.waitFor({ state: 'visible' });
    assert.equal(await opener.innerText(), en.filter);
    assert.deepEqual(await shown(), ['burger', 'fries', 'soda', 'salad']);
    assert.equal(await page.locator('#filter-count').innerText(), '', 'no count while nothing is filtered');

    // Keyboard only: to the button, Enter; Milk with Space; Vegan with the arrows.
    await tabTo(page, '#open-filter');
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#filter-dialog');
    await dialog.locator('#filter-done').waitFor({ state: 'visible' });
    assert.ok(await focusInside(page, 'filter-dialog'), 'focus moves into the filter');
    assert.equal(await dialog.locator('input[type="checkbox"]').count(), 14, 'the 14 allergens');
    assert.equal(await dialog.getByLabel('Cereals containing gluten').count(), 1);
    await tabTo(page, '#fa-milk', 30);
    await page.keyboard.press('Space');
    assert.equal(await dialog.getByLabel('Milk', { exact: true }).isChecked(), true);
    assert.equal(await dialog.locator('#filter-dialog-count').innerText(), fill(en.hiddenCount, { count: 1 }));
    assert.deepEqual(await shown(), ['burger', 'fries', 'soda'], 'the salad has cheese, so milk');
    await tabTo(page, '#fd-all', 30);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await dialog.getByLabel('Vegan', { exact: true }).isChecked(), true, 'two arrows down: vegan');
    assert.equal(await dialog.locator('#filter-dialog-count').innerText(), fill(en.hiddenCount, { count: 2 }));
    const filterViolations = await seriousViolations(page);
    await shot(page, '18-filter.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await focused(page, '#open-filter'), 'focus back on the button');
    assert.deepEqual(await shown(), ['fries', 'soda'], 'vegan only: the fries and the soda');
    assert.equal(await page.locator('#filter-count').innerText(), fill(en.hiddenCount, { count: 2 }));
    const filteredViolations = await seriousViolations(page);
    await shot(page, '19-filtered.png');

    // A reload in the same visit keeps it; the dialog shows what is chosen.
    await page.reload();
    await opener.waitFor({ state: 'visible' });
    assert.equal(await page.locator('#filter-count').innerText(), fill(en.hiddenCount, { count: 2 }));
    assert.deepEqual(await shown(), ['fries', 'soda']);
    await opener.click();
    await dialog.locator('#filter-done').waitFor({ state: 'visible' });
    assert.equal(await dialog.getByLabel('Milk', { exact: true }).isChecked(), true);
    assert.equal(await dialog.getByLabel('Vegan', { exact: true }).isChecked(), true);

    // Vegetarian keeps the soda (labelled vegan only) and the fries; milk still hides the salad.
    await dialog.getByLabel('Vegetarian', { exact: true }).check();
    assert.deepEqual(await shown(), ['fries', 'soda']);
    await dialog.getByLabel('Milk', { exact: true }).uncheck();
    assert.deepEqual(await shown(), ['fries', 'soda', 'salad']);
    // Gluten hides the burger, not the fries that may only hold traces.
    await dialog.getByLabel('All dishes').check();
    await dialog.getByLabel('Cereals containing gluten').check();
    assert.deepEqual(await shown(), ['fries', 'soda', 'salad']);
    await dialog.locator('#filter-clear').click();
    assert.deepEqual(await shown(), ['burger', 'fries', 'soda', 'salad']);
    assert.equal(await dialog.getByLabel('Cereals containing gluten').isChecked(), false);
    // Vegan and no sulphites: the soda's category is left empty, and goes with its link.
    await dialog.getByLabel('Vegan', { exact: true }).check();
    await dialog.getByLabel('Sulphur dioxide and sulphites').check();
    await dialog.locator('#filter-done').click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(await shown(), ['fries']);
    assert.equal(await page.locator('#filter-count').innerText(), fill(en.hiddenCount, { count: 3 }));
    assert.equal(await page.locator('section#c-other').isVisible(), false);
    assert.equal(await page.locator('nav.cats a[href="#c-other"]').isVisible(), false);
    assert.equal(await page.locator('nav.cats a[href^="#c-"]:visible').count(), 1, 'the mains only');
    assert.equal(await page.locator('#filter-empty').isVisible(), false, 'the fries are left');

    // Another visit (a new tab) starts unfiltered.
    const other = await open(tableUrl(fx));
    await other.page.locator('#open-filter').waitFor({ state: 'visible' });
    assert.equal(await other.page.locator('li.card:visible').count(), 4);
    assert.equal(await other.page.locator('#filter-count').innerText(), '');

    assert.deepEqual({ filter: filterViolations, filtered: filteredViolations }, { filter: [], filtered: [] });
    assert.deepEqual([...problems, ...other.problems], []);
    assert.deepEqual([...foreign, ...other.foreign], []);
  });
});
