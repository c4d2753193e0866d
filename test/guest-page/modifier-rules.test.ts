import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { fill, uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { call, startApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumSkip } from '../helpers/chromium.js';
import { setUpGuestPage, type GuestPageFixture } from '../helpers/guest-page.js';
import { expectStatus } from '../helpers/orders.js';

// Modifier rules on the guest page, in Chromium: each group says its rule
// in words, a default is chosen to begin with, "Add" says why it waits until every rule is met, +
// stops at an option's and a group's limit, the price follows the quantities, and a keyboard-only
// order reaches the server with each option's quantity. axe-core on the dialog and the cart.

const PHONE = { width: 390, height: 844 };
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshots, for a human to look at (not committed). */
const SHOTS = path.join(ROOT, 'test-results/guest-page');

const en = uiStrings('en');
const es = uiStrings('es');

/**
 * A burger whose groups show every control: a required size with a default (radios), two or three
 * sauces taken once each (checkboxes), extras up to 4 in all and 3 of one (steppers), and an
 * optional removal (checkboxes).
 */
const RULES_MENU = {
  categories: [{ externalId: 'mains', name: 'Mains', sortOrder: 1 }],
  ingredients: ['regular', 'double', 'ketchup', 'mayo', 'bbq', 'aioli', 'cheese', 'bacon', 'onion'].map((id) => ({
    externalId: id,
    name: id === 'bbq' ? 'BBQ' : id.charAt(0).toUpperCase() + id.slice(1),
  })),
  products: [
    {
      externalId: 'burger',
      name: 'Burger',
      priceMinor: 1000,
      categoryExternalId: 'mains',
      sortOrder: 1,
      ingredientExternalIds: ['onion'],
      modifierGroups: [
        {
          name: 'Size',
          type: 'single_choice',
          isRequired: true,
          options: [
            { ingredientExternalId: 'regular', isDefault: true },
            { ingredientExternalId: 'double', priceAdjustment: 300 },
          ],
        },
        {
          name: 'Sauces',
          type: 'add_ingredients',
          minSelections: 2,
          maxSelections: 3,
          maxQuantityPerOption: 1,
          options: [
            { ingredientExternalId: 'ketchup' },
            { ingredientExternalId: 'mayo' },
            { ingredientExternalId: 'bbq', priceAdjustment: 50 },
            { ingredientExternalId: 'aioli', priceAdjustment: 50 },
          ],
        },
        {
          name: 'Extras',
          type: 'add_ingredients',
          maxSelections: 4,
          maxQuantityPerOption: 3,
          options: [
            { ingredientExternalId: 'cheese', priceAdjustment: 100 },
            { ingredientExternalId: 'bacon', priceAdjustment: 200 },
          ],
        },
        { name: 'Remove', type: 'remove_ingredients', options: [{ ingredientExternalId: 'onion' }] },
      ],
    },
  ],
};

interface Visit {
  page: Page;
  /** Script errors and console errors the page should not have. */
  problems: string[];
  /** Requests to anywhere but the test server (aborted). */
  foreign: string[];
  /** The bodies POSTed to the guest order API. */
  orders: any[];
}

describe('modifier rules on the guest page', { skip: chromiumSkip, timeout: 180_000 }, () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  /** A fresh phone-sized context (empty localStorage) that can reach the test server only. */
  async function open(url: string): Promise<Visit> {
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, hasTouch: false, locale: 'en-US' });
    contexts.push(context);
    await context.route(
      (u) => u.origin !== origin,
      (route) => route.abort(),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const visit: Visit = { page, problems: [], foreign: [], orders: [] };
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) visit.foreign.push(request.url());
      if (request.method() === 'POST' && /\/guest\/v1\/venues\/[^/]+\/orders$/.test(new URL(request.url()).pathname))
        visit.orders.push(request.postDataJSON());
    });
    page.on('pageerror', (error) => visit.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') visit.problems.push(`console error: ${message.text()}`);
    });
    const response = await page.goto(url);
    assert.equal(response?.status(), 200, url);
    return visit;
  }

  const tableUrl = (fx: GuestPageFixture) => `${origin}/t/${fx.table.token}`;

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SHOTS, name) });
  }

  /** axe-core in the page: the serious and critical violations, readable. */
  async function seriousViolations(page: Page): Promise<string[]> {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
    return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.impact + ' ' + v.id + ': ' + v.help + ' -> ' + v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160) + ' [' + n.failureSummary + ']').join(' | ')))`);
  }

  // In-page expressions are strings: this project's TypeScript has no DOM library.
  const focused = (page: Page, selector: string) =>
    page.evaluate<boolean>(`!!document.activeElement && document.activeElement.matches(${JSON.stringify(selector)})`);

  /** Presses Tab until the focused element matches `selector`; fails after `max` presses. */
  async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
    for (let i = 0; i <= max; i += 1) {
      if (await focused(page, selector)) return;
      await page.keyboard.press('Tab');
    }
    const at = await page.evaluate<string>(`document.activeElement ? document.activeElement.outerHTML.slice(0, 200) : 'nothing'`);
    assert.fail(`${selector} not reached with ${max} Tab presses; focus is on ${at}`);
  }

  /** The option ids of the burger, by group name and ingredient. */
  const optionsOf = (fx: GuestPageFixture) => fx.ids.options.burger;
  const groupIdOf = (fx: GuestPageFixture, name: string): string =>
    fx.ids.guestMenu.products.find((p: any) => p.id === fx.ids.productIds.burger).modifierGroups.find((g: any) => g.name === name).id;

  const more = (dialog: Locator, name: string) => dialog.getByRole('button', { name: fill(en.increaseNamed, { name }), exact: true });
  const less = (dialog: Locator, name: string) => dialog.getByRole('button', { name: fill(en.decreaseNamed, { name }), exact: true });
  /** The count a stepper shows, by the option's name. */
  const count = async (dialog: Locator, name: string) =>
    Number(await dialog.locator('.choice-qty', { hasText: name }).locator('output').innerText());
  const legend = (dialog: Locator, group: string) => dialog.locator('fieldset.group legend', { hasText: group }).innerText();
  const addLabel = (price: string) => fill(en.addToOrder, { price });

  it('says each rule, preselects the default, waits for the sauces with the reason shown, stops + at the limits and prices the quantities', async () => {
    const fx = await setUpGuestPage(t.app, RULES_MENU);
    const { page, problems, foreign } = await open(tableUrl(fx));
    await page.getByRole('button', { name: 'Add Burger' }).click();
    const dialog = page.locator('dialog#product-dialog');
    const add = dialog.locator('#pd-add');
    await add.waitFor({ state: 'visible' });

    // The rules in words, and the controls each asks for: radios, checkboxes, steppers, no number input.
    assert.equal(await legend(dialog, 'Size'), 'Size · Choose 1');
    assert.equal(await legend(dialog, 'Sauces'), 'Sauces · Choose 2–3');
    assert.equal(await legend(dialog, 'Extras'), 'Extras · Up to 4');
    assert.equal(await legend(dialog, 'Remove'), 'Remove · Optional');
    assert.equal(await dialog.locator('input[type="radio"]').count(), 2, 'a required size: no "None"');
    assert.equal(await dialog.locator('input[type="checkbox"]').count(), 5, 'four sauces and one removal');
    assert.equal(await dialog.locator('.choice-qty .stepper').count(), 2, 'a stepper per extra');
    assert.equal(await dialog.locator('input[type="number"], input[inputmode]').count(), 0, 'nothing that opens the keypad');

    // The default size is chosen; "Add" waits for two sauces and says so.
    assert.equal(await dialog.getByLabel('Regular', { exact: true }).isChecked(), true);
    assert.equal(await dialog.getByLabel(/^Double/).isChecked(), false);
    const saucesNeed = fill(en.needAtLeast, { name: 'Sauces', n: 2 });
    assert.equal(saucesNeed, 'Sauces: choose at least 2');
    assert.equal(await add.isDisabled(), true, 'aria-disabled');
    assert.equal(await dialog.locator('#pd-reasons').innerText(), saucesNeed);
    assert.equal(await add.getAttribute('aria-describedby'), 'pd-reasons');
    assert.equal(await add.innerText(), addLabel('€10.00'));

    await dialog.getByLabel('Ketchup').check();
    assert.equal(await dialog.locator('#pd-reasons').innerText(), saucesNeed, 'one sauce is not enough');
    await dialog.getByLabel(/^BBQ/).check();
    assert.equal(await dialog.locator('#pd-reasons').innerText(), '');
    assert.equal(await add.isDisabled(), false, 'two sauces: it can be added');
    assert.equal(await add.innerText(), addLabel('€10.50'));

    // A third sauce fills the group: the fourth cannot be ticked until one is unticked.
    await dialog.getByLabel('Mayo').check();
    assert.equal(await dialog.getByLabel(/^Aioli/).isDisabled(), true);
    await dialog.getByLabel('Mayo').uncheck();
    assert.equal(await dialog.getByLabel(/^Aioli/).isDisabled(), false);

    // Extras: three cheeses at most (the option's limit), four extras in all (the group's).
    assert.equal(await less(dialog, 'Cheese').isDisabled(), true, 'nothing to take away');
    for (let i = 0; i < 3; i += 1) await more(dialog, 'Cheese').click();
    assert.equal(await count(dialog, 'Cheese'), 3);
    assert.equal(await more(dialog, 'Cheese').isDisabled(), true, 'three of one at most');
    assert.equal(await more(dialog, 'Bacon').isDisabled(), false);
    await more(dialog, 'Bacon').click();
    assert.equal(await more(dialog, 'Bacon').isDisabled(), true, 'four in all: the group is full');
    assert.equal(await add.innerText(), addLabel('€15.50'), '1000 + BBQ 50 + 3 × cheese 100 + bacon 200');
    await less(dialog, 'Cheese').click();
    assert.equal(await more(dialog, 'Bacon').isDisabled(), false, 'room again');
    await more(dialog, 'Bacon').click();
    assert.equal(await count(dialog, 'Bacon'), 2);
    assert.equal(await add.innerText(), addLabel('€16.50'), '1000 + 50 + 2 × 100 + 2 × 200');

    // Unticking a sauce: "Add" waits again; pressed, it marks the group and leads there; fixed, the error goes.
    await dialog.getByLabel('Ketchup').uncheck();
    assert.equal(await add.isDisabled(), true);
    assert.equal(await dialog.locator('#pd-reasons').innerText(), saucesNeed);
    await add.click({ force: true });
    const saucesError = dialog.locator(`#err-g-${groupIdOf(fx, 'Sauces')}`);
    await saucesError.waitFor({ state: 'visible' });
    assert.equal(await saucesError.innerText(), saucesNeed);
    assert.ok(await focused(page, `[data-group="${groupIdOf(fx, 'Sauces')}"] input`), 'focus moves to the sauces');
    assert.equal(await dialog.getAttribute('open'), '', 'the dialog stays open');
    const errorViolations = await seriousViolations(page);
    await shot(page, '20-rules-dialog.png');
    await dialog.getByLabel('Ketchup').check();
    assert.equal(await saucesError.isVisible(), false, 'the error goes once the rule is met');
    assert.equal(await add.isDisabled(), false);

    // The price follows the size and the dish's quantity too.
    await dialog.getByLabel(/^Double/).check();
    assert.equal(await add.innerText(), addLabel('€19.50'));
    await dialog.getByRole('group', { name: en.quantity }).getByRole('button', { name: en.increase }).click();
    assert.equal(await add.innerText(), addLabel('€39.00'));
    await add.click();
    await dialog.waitFor({ state: 'hidden' });

    // The cart: the line with its quantities, priced as the server will.
    await page.locator('#open-cart').click();
    const cartDialog = page.locator('dialog#cart-dialog');
    await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
    assert.match(await cartDialog.locator('#cart-lines').innerText(), /Double, Ketchup, BBQ, Cheese ×2, Bacon ×2/);
    assert.equal(await cartDialog.locator('.line-price').innerText(), '€39.00');
    const cartViolations = await seriousViolations(page);

    // In Spanish, the same rules in its words.
    await page.keyboard.press('Escape');
    await page.locator('nav.langs a[hreflang="es"]').click();
    await page.waitForURL(/[?&]lang=es\b/);
    await page.getByRole('button', { name: 'Añadir Burger' }).click();
    await add.waitFor({ state: 'visible' });
    assert.equal(await legend(dialog, 'Sauces'), `Sauces · ${fill(es.ruleRange, { min: 2, max: 3 })}`);
    assert.equal(await legend(dialog, 'Extras'), `Extras · ${fill(es.ruleUpTo, { n: 4 })}`);
    assert.equal(await dialog.locator('#pd-reasons').innerText(), fill(es.needAtLeast, { name: 'Sauces', n: 2 }));

    assert.deepEqual({ error: errorViolations, cart: cartViolations }, { error: [], cart: [] });
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });

  it('takes an order with quantities from the keyboard alone, and the server gets each option with its quantity', async () => {
    const fx = await setUpGuestPage(t.app, RULES_MENU);
    const ids = optionsOf(fx);
    const { page, problems, foreign, orders } = await open(tableUrl(fx));
    const burgerAdd = `button.add[data-product="${fx.ids.productIds.burger}"]`;
    await page.locator(burgerAdd).waitFor({ state: 'visible' });

    await tabTo(page, burgerAdd);
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });

    // Size: Tab lands on the chosen default; an arrow takes the double.
    await tabTo(page, '#product-dialog input[type="radio"]', 20);
    assert.ok(await focused(page, `#o-${ids.Size.regular}`), 'focus on the default');
    await page.keyboard.press('ArrowDown');
    assert.equal(await dialog.getByLabel(/^Double/).isChecked(), true);
    // Sauces: Ketchup and Mayo with Space.
    await tabTo(page, `#o-${ids.Sauces.ketchup}`, 10);
    await page.keyboard.press('Space');
    await tabTo(page, `#o-${ids.Sauces.mayo}`, 10);
    await page.keyboard.press('Space');
    // Extras: + on the cheese four times; the fourth does nothing and the focus stays on it.
    const cheeseMore = `#product-dialog button.more[aria-label="${fill(en.increaseNamed, { name: 'Cheese' })}"]`;
    await tabTo(page, cheeseMore, 20);
    for (let i = 0; i < 4; i += 1) await page.keyboard.press('Enter');
    assert.equal(await count(dialog, 'Cheese'), 3);
    assert.ok(await focused(page, cheeseMore), 'the focus stays on + at its limit');
    assert.equal(await page.evaluate<string | null>('document.activeElement.getAttribute("aria-disabled")'), 'true');
    await tabTo(page, '#pd-add', 20);
    assert.equal(await dialog.locator('#pd-add').innerText(), addLabel('€16.00'), '1000 + 300 + 3 × 100');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });

    // The cart: one more burger from the line's own stepper, the focus staying put; then the order.
    await page.locator('#open-cart').waitFor({ state: 'visible' });
    await tabTo(page, '#open-cart');
    await page.keyboard.press('Enter');
    const cartDialog = page.locator('dialog#cart-dialog');
    await cartDialog.locator('#checkout').waitFor({ state: 'visible' });
    const lineMore = `#cart-dialog button.more[aria-label="${fill(en.increaseNamed, { name: 'Burger' })}"]`;
    await tabTo(page, lineMore, 20);
    await page.keyboard.press('Enter');
    assert.ok(await focused(page, lineMore), 'the focus stays on the line');
    assert.equal(await cartDialog.locator('.line-price').innerText(), '€32.00');
    assert.match(await cartDialog.locator('#cart-totals').innerText(), /€32\.00/);
    await tabTo(page, '#f-customerName', 30);
    await page.keyboard.type('Kim');
    await tabTo(page, '#place-order', 30);
    await Promise.all([
      page.waitForURL(new RegExp(`^${origin}/m/${fx.v.slug}/orders/`), { timeout: 10_000 }),
      page.keyboard.press('Enter'),
    ]);

    // Sent in the guest order's shape: each option once, with its quantity.
    assert.equal(orders.length, 1);
    assert.deepEqual(orders[0].items, [
      {
        productId: fx.ids.productIds.burger,
        quantity: 2,
        modifiers: [
          { optionId: ids.Size.double, quantity: 1 },
          { optionId: ids.Sauces.ketchup, quantity: 1 },
          { optionId: ids.Sauces.mayo, quantity: 1 },
          { optionId: ids.Extras.cheese, quantity: 3 },
        ],
      },
    ]);
    const listed = await call(t.app, 'GET', '/v1/orders', { key: fx.v.key });
    expectStatus(listed, 200);
    const [order] = listed.body.items;
    assert.equal(order.customerName, 'Kim');
    assert.equal(order.items[0].quantity, 2);
    assert.equal(order.items[0].unitPrice, 1600);
    assert.equal(order.totalAmount, 3200);
    assert.deepEqual(
      order.items[0].modifiers.map((m: any) => [m.groupName, m.ingredientName, m.quantity]),
      [
        ['Size', 'Double', 1],
        ['Sauces', 'Ketchup', 1],
        ['Sauces', 'Mayo', 1],
        ['Extras', 'Cheese', 3],
      ],
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
  });
});
