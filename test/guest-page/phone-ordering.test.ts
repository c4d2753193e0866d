import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { When } from '../../src/modules/guest-page/shared/availability.js';
import { fill, uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { call, type TestApp } from '../helpers/app.js';
import { patchSettings, setUpGuestPage, type GuestPageFixture } from '../helpers/guest-page.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { driveTo, expectStatus, patchStatus } from '../helpers/orders.js';
import { chromiumSkip } from '../helpers/chromium.js';
import { DESKTOP, GuestBrowser, lookShotsDir, PHONE, seriousViolations, type Device, type PhoneVisit } from './chromium.js';

// The guest page's second round on a phone: the venue's logo in the header and a banner
// carousel to swipe, a dialog whose required choice comes chosen, a cart at a table that asks only
// what it needs with "Place order" and the total always in view, pickup and delivery that still ask
// for theirs, a status page that says where and when and follows the kitchen within 2 s, and right
// to left that keeps names and prices apart. Screenshots of the dialog, the cart and the status page
// in English and Arabic go beside look.test.ts's.

const en = uiStrings('en');
const ar = uiStrings('ar');
const ZONE = 'Europe/Madrid';
const PREP_MINUTES = 20;

describe('ordering on a phone', { skip: chromiumSkip, timeout: 240_000 }, () => {
  let lab: GuestBrowser;
  let t: TestApp;
  let origin: string;
  let g: GuestPageFixture;
  let shots: string;

  before(async () => {
    shots = lookShotsDir();
    lab = await GuestBrowser.start();
    ({ t, origin } = lab);
    g = await setUpGuestPage(t.app);
    await patchSettings(t.app, g.v, { timezone: ZONE, orderConfig: { prepTimeMinutes: PREP_MINUTES } });
    expectStatus(
      await call(t.app, 'POST', '/v1/logo', { key: g.v.key, body: { base64: toBase64(await makeImage(400, 400, 'png')) } }),
      201,
    );
    for (const title of ['Breakfast all day', 'Happy hour 17-19', 'New: lemonade']) {
      expectStatus(await call(t.app, 'POST', '/v1/banners', { key: g.v.key, body: { title, subtitle: 'Ask at the counter' } }), 201);
    }
  });
  after(() => lab?.close());

  const open = (url: string, device: Device = 'phone'): Promise<PhoneVisit> => lab.open(url, device);

  /** The order just placed. */
  async function newestOrder(): Promise<any> {
    const res = await call(t.app, 'GET', '/v1/orders', { key: g.v.key });
    expectStatus(res, 200);
    return res.body.items.reduce((a: any, b: any) => (b.createdAt > a.createdAt ? b : a));
  }

  const tableUrl = (lang = 'en') => `${origin}/t/${g.table.token}?lang=${lang}`;
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, name) });
  const rect = (page: Page, selector: string) =>
    page.evaluate<{ left: number; right: number; top: number; bottom: number; width: number; height: number }>(
      `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; })()`,
    );

  /** The Burger (Bun, Extras, Remove) into the cart, with the extras given. */
  async function addBurger(page: Page, extras: string[] = []): Promise<void> {
    await page.locator(`button.add[data-product="${g.ids.productIds.burger}"]`).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    for (const extra of extras) await dialog.getByRole('button', { name: fill(en.increaseNamed, { name: extra }) }).click();
    await dialog.locator('#pd-add').click();
    await dialog.waitFor({ state: 'hidden' });
  }

  /** Which banner is at the carousel's start edge (the right one in Arabic), or -1 between two. */
  const snappedBanner = (page: Page) =>
    page.evaluate<number>(`(() => {
    const s = document.querySelector('.banners'); const rtl = getComputedStyle(s).direction === 'rtl'; const box = s.getBoundingClientRect();
    return [...s.querySelectorAll('li')].findIndex((li) => { const r = li.getBoundingClientRect(); return Math.abs(rtl ? r.right - box.right : r.left - box.left) < 2; }); })()`);

  it("shows the venue's logo in the header, whole, and a banner carousel to swipe, to scroll with the keys and with buttons", async () => {
    const { page, problems } = await open(tableUrl());
    const logo = page.locator('header.top img.logo');
    await logo.waitFor();
    assert.equal(await logo.getAttribute('loading'), 'eager', 'the header loads it at once');
    await page.waitForFunction(`document.querySelector('header.top img.logo').complete`);
    assert.ok(
      await page.evaluate<boolean>(`document.querySelector('header.top img.logo').naturalWidth > 0`),
      'the logo loaded from the media origin',
    );
    assert.equal(await page.evaluate<string>(`getComputedStyle(document.querySelector('img.logo')).objectFit`), 'contain', 'not cropped');

    // Swiped with a finger: native scrolling, snapped to the next banner.
    const banners = page.locator('section.carousel .banners');
    assert.equal(await banners.locator('li').count(), 3);
    assert.equal(await banners.getAttribute('tabindex'), '0', 'the arrow keys can scroll it');
    const box = await rect(page, '.banners');
    // A finger from the right edge to the left, as touch events (native scrolling does the rest).
    const session = await page.context().newCDPSession(page);
    const y = Math.round(box.top + box.height / 2);
    const from = Math.round(box.left + box.width * 0.9);
    await session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: from, y }] });
    for (let step = 1; step <= 10; step += 1) {
      await session.send('Input.dispatchTouchEvent', {
        type: 'touchMove',
        touchPoints: [{ x: from - step * Math.round(box.width * 0.07), y }],
      });
      await page.waitForTimeout(16);
    }
    await session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await page.waitForTimeout(800);
    const snapped = () => snappedBanner(page);
    assert.equal(await snapped(), 1, 'a swipe brings the second banner to the start');
    await shot(page, 'menu-header-banners.png');

    // The keyboard: focused, ArrowRight moves to the next one (no script, no autoplay).
    await page.evaluate(`document.querySelector('.banners').scrollTo({ left: 0, behavior: 'instant' })`);
    assert.equal(await snapped(), 0);
    await banners.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(800);
    assert.equal(await snapped(), 1, 'ArrowRight brings the next one');
    // A finger swipes: no buttons on a touch screen, where they would sit where a swipe starts.
    assert.equal(await page.locator('.carousel-next').isVisible(), false, 'no buttons on a touch screen');
    assert.deepEqual(await seriousViolations(page), []);
    assert.deepEqual(problems, []);
  });

  it('moves the carousel a banner at a time with previous and next buttons for a mouse, mirrored in Arabic', async () => {
    // A laptop's window holds the three banners side by side: nothing to scroll, no buttons.
    const wide = await open(tableUrl(), DESKTOP);
    await wide.page.locator('.carousel-next').waitFor({ state: 'attached' });
    assert.equal(
      await wide.page.evaluate<boolean>(
        `(() => { const s = document.querySelector('.banners'); return s.scrollWidth <= s.clientWidth; })()`,
      ),
      true,
    );
    assert.equal(await wide.page.locator('.carousel-step:visible').count(), 0, 'every banner in view: no buttons');
    for (const [lang, words] of [
      ['en', en],
      ['ar', ar],
    ] as const) {
      // A narrow window, where the second banner can reach the start edge before the end.
      const { page, problems } = await open(tableUrl(lang), { width: 480, height: 800 });
      const prev = page.getByRole('button', { name: words.previousBanner });
      const next = page.getByRole('button', { name: words.nextBanner });
      await next.waitFor({ state: 'visible' });
      // Over the banners' edges, the previous one on the start side (the right in Arabic).
      const [track, before, after] = [await rect(page, '.banners'), await rect(page, '.carousel-prev'), await rect(page, '.carousel-next')];
      assert.ok(lang === 'en' ? before.left < after.left : before.left > after.left, `${lang}: previous on the start side`);
      assert.ok(before.top >= track.top && before.bottom <= track.bottom, `${lang}: over the banners, taking no space`);
      assert.equal(await snappedBanner(page), 0);
      assert.equal(await prev.getAttribute('aria-disabled'), 'true', `${lang}: nothing before the first`);
      await next.click();
      await page.waitForTimeout(800);
      assert.equal(await snappedBanner(page), 1, `${lang}: next brings the second banner`);
      await shot(page, `carousel-buttons-${lang}.png`);
      // The last cannot reach the start edge: next scrolls to the end, where the last shows whole.
      await next.click();
      await page.waitForTimeout(800);
      const last = await rect(page, '.banners li:last-child');
      assert.ok(last.left >= track.left - 1 && last.right <= track.right + 1, `${lang}: the last banner in view`);
      assert.equal(await next.getAttribute('aria-disabled'), 'true', `${lang}: nothing after the last`);
      assert.equal(await prev.getAttribute('aria-disabled'), 'false');
      await prev.click();
      await page.waitForTimeout(800);
      assert.equal(await snappedBanner(page), 1, `${lang}: previous goes back one`);
      assert.deepEqual(await seriousViolations(page), [], lang);
      assert.deepEqual(problems, [], lang);
    }
  });

  it('preselects the required bun, isolates option names and prices right to left, and uses the Arabic comma', async () => {
    const { page, problems } = await open(tableUrl());
    await page.locator(`button.add[data-product="${g.ids.productIds.burger}"]`).click();
    const dialog = page.locator('dialog#product-dialog');
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    assert.equal(
      await dialog.getByLabel(/White bun/).isChecked(),
      true,
      'a required single choice without a default starts on its first option',
    );
    assert.equal(await dialog.locator('#pd-add').getAttribute('aria-disabled'), null, 'ready to add at once');
    assert.equal(await dialog.locator('input[type="number"]').count(), 0, 'extras are steppers or checkboxes');
    const cheese = dialog.locator('.choice', { hasText: 'Cheese' });
    assert.equal((await cheese.locator('bdi.adjustment').innerText()).trim(), '+€1.00');
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'dialog-en.png');

    await page.goto(tableUrl('ar'));
    await page.locator(`button.add[data-product="${g.ids.productIds.burger}"]`).click();
    await dialog.locator('#pd-add').waitFor({ state: 'visible' });
    const option = `#ot-${g.ids.options.burger.Extras.cheese}`;
    // Right to left: the (Latin) name first, on the right, the price on its left; the sign stays by
    // its number as Intl wrote it, never at the far end ("(€ 0.70+) Extra shot").
    const order = await page.evaluate<{
      name: number;
      price: number;
      sign: number;
      digitsFrom: number;
      digitsTo: number;
      latin: boolean;
    }>(`(() => {
      const el = document.querySelector(${JSON.stringify(option)});
      const name = el.querySelector('bdi:not(.adjustment)').getBoundingClientRect();
      const priceEl = el.querySelector('bdi.adjustment');
      const text = priceEl.firstChild;
      const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1); return r.getBoundingClientRect(); };
      const digits = [...text.data].map((c, i) => (/[0-9\\u0660-\\u0669]/.test(c) ? i : -1)).filter((i) => i >= 0);
      const xs = digits.map((i) => at(i).left);
      return { name: name.left, price: priceEl.getBoundingClientRect().right, sign: at(text.data.search(/[+\\u002b]/)).left,
        digitsFrom: Math.min(...xs), digitsTo: Math.max(...xs), latin: /[0-9]/.test(text.data) };
    })()`);
    assert.ok(order.price <= order.name + 1, `the price (${order.price}) left of the name (${order.name})`);
    if (order.latin) assert.ok(order.sign < order.digitsFrom, `+ before its Latin digits (${JSON.stringify(order)})`);
    else assert.ok(order.sign > order.digitsTo, `+ leads its Arabic-Indic digits, on their right (${JSON.stringify(order)})`);
    // Lists joined with the Arabic comma: the card's ingredients, and (below) the cart's options.
    const card = await page.locator(`#p-${g.ids.productIds.burger} .meta`, { hasText: ar.ingredients }).innerText();
    assert.match(card, /Onion، Pickles/);
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'dialog-ar.png');
    assert.deepEqual(problems, []);
  });

  it('asks nothing at a table but says what is optional, keeps "Place order" and the total in view, in English and Arabic', async () => {
    const { page, problems } = await open(tableUrl());
    await addBurger(page, ['Cheese', 'Bacon']);
    for (const product of ['fries', 'soda']) {
      await page.locator(`button.add[data-product="${g.ids.productIds[product]}"]`).click();
      await page.locator('#pd-add').click();
      await page.locator('dialog#product-dialog').waitFor({ state: 'hidden' });
    }
    await page.locator('#open-cart').click();
    const cart = page.locator('dialog#cart-dialog');
    await cart.locator('#checkout').waitFor();
    assert.equal(await cart.locator('label[for="f-customerName"]').innerText(), 'Name (optional)');
    assert.equal(await cart.locator('label[for="f-customerPhone"]').innerText(), 'Phone (optional)');
    assert.equal(await cart.locator('[required]').count(), 0, 'nothing required at a table');
    assert.equal(await cart.locator('#field-deliveryAddress').isVisible(), false);

    // The foot: at the bottom of the screen with the total before any scrolling, and after it.
    const total = await cart.locator('#cart-totals .total dd').innerText();
    assert.equal(await cart.locator('#foot-total').innerText(), total);
    for (const where of ['top', 'bottom']) {
      if (where === 'bottom') await page.evaluate(`document.querySelector('#cart-dialog').scrollTop = 10000`);
      const place = await rect(page, '#place-order');
      assert.ok(
        place.bottom <= PHONE.height && place.top >= PHONE.height - 140,
        `"Place order" at the bottom of the screen (${where}): ${JSON.stringify(place)}`,
      );
    }
    await page.evaluate(`document.querySelector('#cart-dialog').scrollTop = 0`);
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'cart-en.png');

    // Arabic: the same cart (kept in local storage), every optional field marked, options with the Arabic comma.
    await page.goto(tableUrl('ar'));
    await page.locator('#open-cart').click();
    await cart.locator('#checkout').waitFor();
    assert.equal(await cart.locator('label[for="f-customerName"]').innerText(), fill(ar.optional, { label: ar.name }));
    assert.equal(await cart.locator('label[for="f-customerPhone"]').innerText(), fill(ar.optional, { label: ar.phone }));
    const options = await cart.locator('#cart-lines li', { hasText: 'Cheese' }).locator('small').innerText();
    assert.equal(options, 'White bun، Cheese، Bacon');
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'cart-ar.png');

    // Placed with no name or phone.
    await Promise.all([page.waitForURL(/\/orders\//), cart.locator('#place-order').click()]);
    await page.locator('main#status').waitFor();
    assert.deepEqual(problems, []);
  });

  it('asks a pickup for a name and a delivery for name, phone and address, and clears each mark as it is fixed', async () => {
    const { page, problems } = await open(`${origin}/m/${g.v.slug}?lang=en`);
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await addBurger(page);
    await page.locator('#open-cart').click();
    const cart = page.locator('dialog#cart-dialog');
    await cart.locator('#checkout').waitFor();
    assert.equal(await cart.locator('label[for="f-customerName"]').innerText(), en.name, 'a pickup needs the name the counter calls');
    assert.equal(await cart.locator('label[for="f-customerPhone"]').innerText(), 'Phone (optional)');
    assert.equal(await cart.locator('#f-customerName').getAttribute('required'), '');

    await cart.locator('#place-order').click();
    const nameError = cart.locator('#err-customerName');
    await nameError.waitFor({ state: 'visible' });
    assert.equal(await nameError.innerText(), en.needName);
    assert.equal(await cart.locator('#f-customerName').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.evaluate<boolean>(`document.activeElement.id === 'f-customerName'`), 'focus on the field to fill');
    assert.deepEqual(posts, [], 'nothing sent');
    await cart.locator('#f-customerName').pressSequentially('Ada');
    assert.equal(await nameError.isVisible(), false, 'the mark goes with the first letter');
    assert.equal(await cart.locator('#f-customerName').getAttribute('aria-invalid'), null);
    assert.equal(await cart.locator('#form-error').isVisible(), false, 'and the summary with the last mark');

    // Delivery: the address and the phone too; the email and the courier's notes stay optional.
    await cart.locator('#f-type-delivery').check();
    assert.equal(await cart.locator('label[for="f-customerPhone"]').innerText(), en.phone);
    assert.equal(await cart.locator('label[for="f-deliveryAddress"]').innerText(), en.deliveryAddress);
    assert.equal(await cart.locator('label[for="f-deliveryNotes"]').innerText(), fill(en.optional, { label: en.deliveryNotes }));
    assert.equal(await cart.locator('label[for="f-customerEmail"]').innerText(), fill(en.optional, { label: en.email }));
    await cart.locator('#place-order').click();
    await cart.locator('#err-deliveryAddress').waitFor({ state: 'visible' });
    assert.equal(await cart.locator('#err-customerPhone').innerText(), en.needPhone);
    assert.equal(await cart.locator('#err-customerName').isVisible(), false, 'the name is filled');
    assert.deepEqual(posts, []);

    // Back to pickup, placed: the status page names the pickup point.
    await cart.locator('#f-type-pickup').check();
    await Promise.all([page.waitForURL(/\/orders\//), cart.locator('#place-order').click()]);
    assert.equal(await page.locator('#status-where').innerText(), fill(en.wherePickup, { venue: await page.locator('h1').innerText() }));
    assert.deepEqual(problems, []);
  });

  it('says where and when, follows the kitchen within 2 s over one live stream, looks finished when completed, in English and Arabic', async () => {
    const { page, problems } = await open(tableUrl());
    const follows: string[] = [];
    page.on('response', (r) => {
      const match = /\/guest\/v1\/venues\/[^/]+\/orders\/[^/]+(\/stream)?$/.exec(new URL(r.url()).pathname);
      if (r.request().method() === 'GET' && match) follows.push(`${match[1] ? 'stream' : 'poll'} ${r.status()}`);
    });
    await addBurger(page);
    await page.locator('#open-cart').click();
    await Promise.all([page.waitForURL(/\/orders\//), page.locator('#place-order').click()]);
    const main = page.locator('main#status');
    await main.waitFor();
    const order = await newestOrder();
    const when = new When('en', ZONE);
    const placed = Date.parse(order.createdAt);
    assert.equal(await page.locator('#status-where').innerText(), 'Table 5');
    assert.equal(await page.locator('#status-placed').innerText(), fill(en.placedAt, { time: when.at(placed, Date.now()) }));
    assert.equal(
      await page.locator('#status-ready').innerText(),
      fill(en.readyAt, { time: when.at(placed + PREP_MINUTES * 60_000, Date.now()) }),
    );
    assert.equal(await page.locator('#status-hint').innerText(), en.statusLive);
    assert.doesNotMatch(await main.innerText(), /follows your order by itself/);

    // Nothing changes for a while: one stream is open, no poll is made (guests of one café share the
    // per-IP budget). Then a change shows within 2 s of the venue making it.
    await page.waitForTimeout(2000);
    assert.deepEqual(follows, ['stream 200']);
    for (const status of ['confirmed', 'preparing'] as const) {
      expectStatus(await patchStatus(t.app, g.v.key, order.id, status), 200);
      const changed = Date.now();
      await page.locator(`main#status[data-status="${status}"]`).waitFor({ state: 'attached', timeout: 2000 });
      assert.ok(Date.now() - changed <= 2000, `${status} shown after ${Date.now() - changed} ms`);
    }
    assert.equal(await page.locator('ol#status-steps li.done').count(), 2);
    assert.equal(
      await page.locator('ol#status-steps li.done').first().textContent(),
      `${en.status_new} ${en.stepDone}`,
      'a done step says so in words',
    );
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'status-en.png');

    await page.goto(`${page.url().split('?')[0]}?lang=ar`);
    assert.equal(await page.locator('#status-now').innerText(), ar.status_preparing);
    assert.equal(await page.locator('#status-where').innerText(), 'طاولة 5');
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'status-ar.png');

    // Completed: every step done, the last too; nothing current; a closing word, no "updates by itself".
    expectStatus(await patchStatus(t.app, g.v.key, order.id, 'completed'), 200);
    await page.locator('main#status[data-status="completed"]').waitFor({ state: 'attached', timeout: 2000 });
    const states = await page.evaluate<string[]>(`Array.from(document.querySelectorAll('#status-steps li'), (li) => li.className)`);
    assert.deepEqual(states, ['done', 'done', 'done', 'done']);
    assert.equal(await page.locator('#status-steps [aria-current]').count(), 0);
    assert.equal(await page.locator('#status-final').innerText(), ar.completedHelp);
    assert.equal(await page.locator('#status-hint').isVisible(), false);
    assert.equal(await page.locator('#status-ready').isVisible(), false);
    await shot(page, 'status-completed-ar.png');
    assert.deepEqual(problems, []);
  });

  it('tells the guest of a cancelled order to ask the staff', async () => {
    const { page, problems } = await open(tableUrl());
    await addBurger(page);
    await page.locator('#open-cart').click();
    await Promise.all([page.waitForURL(/\/orders\//), page.locator('#place-order').click()]);
    await page.locator('main#status').waitFor();
    const order = await newestOrder();
    await driveTo(t.app, g.v.key, order, 'cancelled');
    await page.locator('main#status[data-status="cancelled"]').waitFor({ state: 'attached', timeout: 2000 });
    assert.equal(await page.locator('#status-final').innerText(), en.cancelledHelp);
    assert.equal(await page.locator('#status-steps li').count(), 0);
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, 'status-cancelled-en.png');
    // Server-rendered the same way on a fresh load.
    await page.reload();
    assert.equal(await page.locator('#status-final').innerText(), en.cancelledHelp);
    assert.deepEqual(problems, []);
    console.log(`# guest page look screenshots: ${shots}`);
  });
});
