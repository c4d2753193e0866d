import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { admin, call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { burgerLine, createOrder, orderBody, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';
import { seriousViolations } from '../guest-page/chromium.js';
import { signedIn, tokenOf } from './console-client.js';

const TABLET = { width: 1024, height: 768 };
const TABLET_UPRIGHT = { width: 768, height: 1024 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'a long and uncommon password';
/** How soon a board shows an order placed and a change made on another board: within a second. */
const LIVE_MS = 1_000;

interface Board {
  page: Page;
  context: BrowserContext;
  problems: string[];
}

// The order board in real Chromium (docs/console.md "The board"): an owner invited by the
// operator sets a password and signs in on a tablet; a guest order appears within a second with its
// items; Confirm and Start preparing move it (GET /v1/orders/:id agrees) and a second board, a staff
// member's phone, sees each move within a second; Cancel asks first; a kitchen ticket prints; the
// Service tab marks a dish sold out (the guest menu agrees) and pauses ordering; the Staff tab
// invites; a staff member's call to a manager's route is refused; the stream comes back after a
// network drop and brings what it missed. axe-core on every screen; a screenshot of each step goes
// to a temporary directory (printed below), never committed.
describe('the order board in Chromium', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let v: VenueFixture;
  let ids: MenuIds;
  let venueName: string;
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-board-'));
  const contexts: BrowserContext[] = [];

  before(async () => {
    t = await startApp();
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    venueName = (await admin(t.app, 'GET', `/venues/${v.id}`)).body.name;
    process.stdout.write(`# board screenshots: ${shots}\n`);
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

  /** A fresh browser of the given size that reaches the test server only. */
  async function newBoard(viewport: { width: number; height: number }): Promise<Board> {
    const context = await browser.newContext({
      viewport,
      deviceScaleFactor: 1,
      locale: 'en-GB',
      timezoneId: 'UTC',
      hasTouch: viewport.width < 600,
    });
    contexts.push(context);
    // The page's clock runs as the real one until the walk moves it on (the late mark).
    await context.clock.install();
    // Each tone of the beep is an oscillator: counted, since a headless browser plays to no speaker.
    await context.addInitScript(
      'window.tones = 0; const made = AudioContext.prototype.createOscillator; AudioContext.prototype.createOscillator = function () { window.tones += 1; return made.call(this); };',
    );
    await context.route(
      (u) => u.origin !== origin,
      (route) => route.abort(),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      // Chromium logs as failed loads the refusals the walk asks for (the staff member's 403, the
      // disabled member's 401s) and the streams the network drop cuts.
      if (m.type() === 'error' && !/status of 40[13] |net::ERR_(INCOMPLETE_CHUNKED_ENCODING|INTERNET_DISCONNECTED)/.test(m.text()))
        problems.push(`console error: ${m.text()}`);
    });
    return { page, context, problems };
  }

  /** Opens an invite link, sets the password, signs in, and waits for the board to be live. */
  async function signInThroughInvite(board: Board, inviteUrl: string, email: string, name?: string): Promise<void> {
    const { page } = board;
    assert.equal((await page.goto(`${origin}/console/invite/${tokenOf(inviteUrl)}`))?.status(), 200);
    if (name) {
      assert.deepEqual(await seriousViolations(page), [], 'invite page');
      await shot(page, `${name}-invite`);
    }
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/console/sign-in`);
    if (name) {
      assert.deepEqual(await seriousViolations(page), [], 'sign-in page');
      await shot(page, `${name}-sign-in`);
    }
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/console`);
    await live(page);
  }

  const live = (page: Page) => page.locator('body[data-stream="open"]').waitFor({ state: 'attached' });
  const card = (scope: Page | Locator, order: { orderNumber: string }) =>
    scope.getByRole('article', { name: `Order ${order.orderNumber}`, exact: true });
  const column = (page: Page, key: string) => page.locator(`#column-${key}`);

  /** Waits for a card in a column, and says how long it took from `since`. */
  async function appears(page: Page, key: string, order: { orderNumber: string }, since: number, what: string): Promise<void> {
    await card(column(page, key), order).waitFor({ timeout: 5_000 });
    const took = Date.now() - since;
    assert.ok(took <= LIVE_MS, `${what}: ${took} ms (at most ${LIVE_MS})`);
  }

  const v1Order = async (id: string) => (await call(t.app, 'GET', `/v1/orders/${id}`, { key: v.key })).body;
  const guestMenu = async () => (await call(t.app, 'GET', `/guest/v1/venues/${v.slug}/menu`)).body;

  it('walks the board: orders live, status moves, cancel, print, sold out, pause, staff, roles, a network drop', async () => {
    // The owner: invited by the operator, a password, signed in on a landscape tablet.
    const ownerInvite = await admin(t.app, 'POST', `/venues/${v.id}/staff`, {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      role: 'owner',
    });
    const a = await newBoard(TABLET);
    await signInThroughInvite(a, ownerInvite.body.inviteUrl, 'grace@example.com', '01');
    const pa = a.page;
    await pa.getByRole('heading', { name: venueName, level: 1 }).waitFor();
    for (const name of ['New', 'Confirmed', 'Preparing', 'Out for delivery'])
      await pa.getByRole('region', { name: new RegExp(`^${name} \\d+$`) }).waitFor();
    assert.equal(await pa.title(), `Board · ${venueName}`);
    assert.deepEqual(await seriousViolations(pa), [], 'the empty board');
    await shot(pa, '02-board-empty');

    // The owner invites a cook from the Staff tab: the link is shown once, with a copy button.
    await pa.getByRole('tab', { name: 'Staff' }).click();
    await pa.getByLabel('Email').fill('linus@example.com');
    await pa.getByLabel('Name').fill('Linus Cook');
    await pa.getByLabel('Role', { exact: true }).selectOption('staff');
    await pa.getByRole('button', { name: 'Invite' }).click();
    const cookLink = await pa.getByLabel('Invite link').inputValue();
    assert.match(cookLink, /\/console\/invite\//);
    await pa.getByRole('button', { name: 'Copy link' }).waitFor();
    await pa.getByRole('article', { name: 'Linus Cook' }).waitFor();
    assert.deepEqual(await seriousViolations(pa), [], 'the Staff tab');
    await shot(pa, '03-staff-invited');
    await pa.getByRole('tab', { name: 'Orders' }).click();

    // The cook signs in on a phone: the second board.
    const b = await newBoard(PHONE);
    await signInThroughInvite(b, cookLink, 'linus@example.com');
    const pb = b.page;
    assert.equal(await pb.getByRole('tab', { name: 'Staff' }).count(), 0, 'no Staff tab for staff');

    // The sound goes on with a tap (and beeps to say so).
    await pa.getByRole('button', { name: 'Sound off' }).click();
    const sound = pa.getByRole('button', { name: 'Sound on' });
    assert.equal(await sound.getAttribute('aria-pressed'), 'true');
    assert.equal(await pa.evaluate('window.tones'), 2);

    // A guest order appears on both boards within a second, with its items and the guest's note.
    const placedAt = Date.now();
    const order = await createOrder(
      t.app,
      v.slug,
      orderBody(ids, {
        items: [
          burgerLine(ids, 2, [{ optionId: ids.options.burger.Extras.cheese }], 'bun-brioche'),
          { productId: ids.productIds.fries, quantity: 1 },
        ],
        comment: 'No onions please',
      }),
    );
    await Promise.all([
      appears(pa, 'new', order, placedAt, 'a new order on the tablet'),
      appears(pb, 'new', order, placedAt, 'a new order on the phone'),
    ]);
    const onA = card(pa, order);
    const text = (await onA.textContent()) ?? '';
    for (const part of [
      '2×',
      'Burger',
      'Bun: Brioche bun',
      'Extras: Cheese',
      '1×',
      'Fries',
      'No onions please',
      'Pickup',
      'Ada',
      '+380501234567',
    ]) {
      assert.ok(text.includes(part), `the card shows "${part}": ${text}`);
    }
    assert.match(text, /Total €\d+\.\d\d/);
    assert.match(text, /Placed 0 min ago/);
    assert.equal(await pa.title(), `(1) Board · ${venueName}`);
    assert.equal(await pa.evaluate('window.tones'), 4, 'the new order beeped on the tablet');
    assert.equal(await pb.evaluate('window.tones'), 0, 'and not on the phone, whose sound is off');
    assert.deepEqual(await seriousViolations(pa), [], 'the board with an order');
    await shot(pa, '04-new-order');
    await shot(pb, '04-new-order-phone');

    // Confirm, then Start preparing: the card moves, /v1 agrees, the phone follows within a second.
    await onA.getByRole('button', { name: 'Confirm', exact: true }).click();
    let movedAt = Date.now();
    await card(column(pa, 'confirmed'), order).waitFor();
    assert.equal((await v1Order(order.id)).status, 'confirmed');
    await pb.getByRole('button', { name: /^Confirmed \d+$/ }).click();
    await appears(pb, 'confirmed', order, movedAt, "the tablet's Confirm on the phone");
    assert.equal(await pa.title(), `Board · ${venueName}`);
    // The focus follows the card to its next step.
    assert.equal(await pa.evaluate('document.activeElement?.textContent'), 'Start preparing');
    await shot(pa, '05-confirmed');

    await card(pa, order).getByRole('button', { name: 'Start preparing', exact: true }).click();
    movedAt = Date.now();
    await card(column(pa, 'preparing'), order).waitFor();
    assert.equal((await v1Order(order.id)).status, 'preparing');
    await pb.getByRole('button', { name: /^Preparing \d+$/ }).click();
    await appears(pb, 'preparing', order, movedAt, "the tablet's Start preparing on the phone");
    const preparing = card(pa, order);
    assert.equal(await preparing.getByRole('button', { name: 'Out for delivery' }).count(), 0, 'a pickup is not delivered');
    await preparing.getByRole('button', { name: 'Complete', exact: true }).waitFor();
    await shot(pa, '06-preparing');
    await shot(pb, '06-preparing-phone');

    // A change made elsewhere (the API) shows on the board within a second.
    const second = await createOrder(t.app, v.slug, orderBody(ids, { type: 'delivery', deliveryAddress: '1 Main Street' }));
    await card(column(pa, 'new'), second).waitFor();
    const patched = await call(t.app, 'PATCH', `/v1/orders/${second.id}/status`, { key: v.key, body: { status: 'confirmed' } });
    assert.equal(patched.status, 200);
    await appears(pa, 'confirmed', second, Date.now() - 20, 'an API change on the board');

    // Cancel asks first: "Keep order" keeps it, "Cancel order" cancels it.
    await card(pa, second).getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = pa.getByRole('dialog', { name: `Cancel order ${second.orderNumber}?` });
    await dialog.waitFor();
    assert.deepEqual(await seriousViolations(pa), [], 'the cancel dialog');
    await shot(pa, '07-cancel-dialog');
    await dialog.getByRole('button', { name: 'Keep order' }).click();
    assert.equal((await v1Order(second.id)).status, 'confirmed');
    await card(pa, second).getByRole('button', { name: 'Cancel', exact: true }).click();
    await pa.getByRole('dialog').getByRole('button', { name: 'Cancel order' }).click();
    // Out of sight until "Completed and cancelled today" is pressed (getByRole sees no hidden element).
    await pa.locator(`#column-done #order-${second.id}`).waitFor({ state: 'attached' });
    assert.equal((await v1Order(second.id)).status, 'cancelled');
    await pa.getByRole('button', { name: /^Completed and cancelled today 1$/ }).click();
    await card(column(pa, 'done'), second).waitFor();
    await shot(pa, '08-done-today');
    await pa.getByRole('button', { name: /^Completed and cancelled today/ }).click();

    // Print ticket: the ticket alone, on 80 mm paper (window.print is the browser's dialog: stubbed).
    // Page scripts as strings: the tests compile without the DOM's types.
    await pa.evaluate('window.printed = 0; window.print = () => { window.printed += 1; }');
    await card(pa, order).getByRole('button', { name: 'Print ticket' }).click();
    assert.equal(await pa.evaluate('window.printed'), 1);
    await pa.emulateMedia({ media: 'print' });
    const ticket = pa.locator('#ticket');
    assert.ok(await ticket.isVisible());
    assert.match((await ticket.textContent()) ?? '', new RegExp(`Order ${order.orderNumber}.*Burger.*No onions please`));
    assert.equal(await pa.locator('main').isVisible(), false, 'only the ticket prints');
    const width = (await ticket.boundingBox())?.width ?? 0;
    assert.ok(Math.abs(width - (72 / 25.4) * 96) < 2, `the ticket is 72 mm wide (${width} px)`);
    await shot(pa, '09-ticket');
    // Printed (a PDF here), it is one page 80 mm wide and as long as the ticket.
    const pdf = (await pa.pdf({ preferCSSPageSize: true })).toString('latin1');
    const boxes = [...pdf.matchAll(/\/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.equal(boxes.length, 1, 'one page');
    const [pageWidth, pageLength] = boxes[0].map((pt) => (pt / 72) * 25.4);
    assert.ok(Math.abs(pageWidth - 80) < 0.5, `80 mm wide (${pageWidth} mm)`);
    assert.ok(pageLength > 40 && pageLength < 150, `one ticket long (${pageLength} mm)`);
    await pa.emulateMedia({ media: 'screen' });
    await pa.evaluate('window.dispatchEvent(new Event("afterprint"))');

    // Service: the burger sold out until turned back; the guest menu says so; back on sale.
    await pa.getByRole('tab', { name: 'Service' }).click();
    await pa.getByLabel('Search dishes and ingredients').fill('burg');
    const burgerRow = pa.locator('#service-lists li').filter({ hasText: 'Burger' });
    await burgerRow.getByRole('button', { name: 'Sold out' }).click();
    const soldOut = pa.getByRole('dialog', { name: 'Burger sold out' });
    await soldOut.waitFor();
    assert.equal(await soldOut.getByRole('button', { name: 'Until closing' }).isDisabled(), (await guestMenu()).ordering.closesAt === null);
    await shot(pa, '10-sold-out-dialog');
    await soldOut.getByRole('button', { name: 'Until turned back' }).click();
    await pa.locator('#sold-out-now').getByText('Burger').waitFor();
    const burger = (await guestMenu()).products.find((p: { id: string }) => p.id === ids.productIds.burger);
    assert.equal(burger.availability.available, false, 'the guest menu marks the dish unavailable');
    assert.deepEqual(await seriousViolations(pa), [], 'the Service tab');
    await shot(pa, '11-sold-out');
    await pa.locator('#sold-out-now').getByRole('button', { name: 'Back on sale' }).click();
    await pa.locator('#sold-out-now').getByText('Nothing is sold out.').waitFor();
    assert.equal((await guestMenu()).products.find((p: { id: string }) => p.id === ids.productIds.burger).availability.available, true);

    // Pause closes ordering for guests; Resume opens it again.
    await pa.getByRole('button', { name: 'Pause 15 min' }).click();
    await pa.getByText(/^Paused until /).waitFor();
    const paused = (await guestMenu()).ordering;
    assert.equal(paused.open, false);
    assert.equal(paused.reason, 'paused');
    await shot(pa, '12-paused');
    await pa.getByRole('button', { name: 'Resume ordering' }).click();
    await pa.getByText(/^Open/).waitFor();
    assert.equal((await guestMenu()).ordering.open, true);

    // The owner (a manager's right) sets the preparation time; the cook has no such form, and the
    // server refuses the cook's call all the same.
    await pa.getByLabel('Preparation time (minutes)').fill('25');
    await pa.getByRole('button', { name: 'Save ordering settings' }).click();
    await pa.getByLabel('Preparation time (minutes)').and(pa.locator('[value="25"]')).waitFor();
    await pb.getByRole('tab', { name: 'Service' }).click();
    await pb.getByRole('button', { name: 'Pause 15 min' }).waitFor();
    assert.equal(await pb.getByLabel('Preparation time (minutes)').count(), 0);
    assert.equal(await pb.getByLabel('Accepting orders').count(), 0);
    const refused = await pb.evaluate(`(async () => {
      const csrf = document.querySelector('meta[name="csrf-token"]').content;
      const res = await fetch('/console/api/ordering', { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ prepTimeMinutes: 5 }) });
      return { status: res.status, code: (await res.json()).code };
    })()`);
    assert.deepEqual(refused, { status: 403, code: 'ROLE_REQUIRED' });
    assert.deepEqual(await seriousViolations(pb), [], 'the Service tab on a phone');
    await shot(pb, '13-service-phone');
    await pb.getByRole('tab', { name: 'Orders' }).click();

    // A network drop: the board says it is offline, comes back by itself and brings what it missed.
    await pa.getByRole('tab', { name: 'Orders' }).click();
    // Offline, and the server's side of every connection cut (an emulated offline leaves an open one be).
    await a.context.setOffline(true);
    t.app.server.closeAllConnections();
    await pa.getByRole('status').filter({ hasText: 'Offline — reconnecting' }).waitFor();
    await shot(pa, '14-offline');
    const missed = await createOrder(t.app, v.slug, orderBody(ids));
    await a.context.setOffline(false);
    await live(pa);
    await card(column(pa, 'new'), missed).waitFor();
    assert.equal(await pa.getByRole('status').filter({ hasText: 'Offline' }).count(), 0);

    // The keyboard: the arrow keys move between the tabs, Enter presses a card's button, Escape
    // leaves the cancel dialog without cancelling.
    await pa.getByRole('tab', { name: 'Orders' }).focus();
    await pa.keyboard.press('ArrowRight');
    assert.equal(await pa.getByRole('tab', { name: 'Service' }).getAttribute('aria-selected'), 'true');
    await pa.keyboard.press('ArrowLeft');
    await card(pa, missed).getByRole('button', { name: 'Cancel', exact: true }).focus();
    await pa.keyboard.press('Enter');
    await pa.getByRole('dialog').waitFor();
    await pa.keyboard.press('Escape');
    await pa.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await v1Order(missed.id)).status, 'new');
    await card(pa, missed).getByRole('button', { name: 'Confirm', exact: true }).focus();
    await pa.keyboard.press('Enter');
    await card(column(pa, 'confirmed'), missed).waitFor();

    // Past the preparation time (25 minutes, set above) the card says it is late, not by colour alone.
    await pa.clock.fastForward('26:00');
    const late = card(pa, missed);
    await pa.locator(`#order-${missed.id}.late`).waitFor();
    assert.match((await late.textContent()) ?? '', /Late · Placed 26 min ago/);
    assert.match((await card(pa, order).textContent()) ?? '', /Late · Placed \d+ min ago/);
    await shot(pa, '15-late');

    // Upright tablet and phone, with axe on each.
    await pa.setViewportSize(TABLET_UPRIGHT);
    assert.deepEqual(await seriousViolations(pa), [], 'the board, tablet upright');
    await shot(pa, '16-tablet-upright');
    await pb.getByRole('button', { name: /^Confirmed \d+$/ }).click();
    await card(pb, missed).waitFor();
    assert.deepEqual(await seriousViolations(pb), [], 'the board on a phone');
    await shot(pb, '17-phone');
    // The system's dark mode: its own colours, AA as well.
    await pa.emulateMedia({ colorScheme: 'dark' });
    await pa.setViewportSize(TABLET);
    assert.deepEqual(await seriousViolations(pa), [], 'the board in dark mode');
    await shot(pa, '18-dark');
    await pb.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await seriousViolations(pb), [], 'the board on a phone in dark mode');
    await shot(pb, '19-dark-phone');

    // The owner disables the cook: the phone's stream ends, its reconnect and the board's reload are
    // refused, and it lands on sign-in by itself. Then the owner removes the cook, after a confirmation.
    await pa.emulateMedia({ colorScheme: 'light' });
    await pa.getByRole('tab', { name: 'Staff' }).click();
    const cook = pa.getByRole('article', { name: 'Linus Cook' });
    await cook.getByRole('button', { name: 'Disable' }).click();
    await cook.getByText(/Disabled/).waitFor();
    await pb.waitForURL(`${origin}/console/sign-in`, { timeout: 15_000 });
    await cook.getByRole('button', { name: 'Remove' }).click();
    const remove = pa.getByRole('dialog', { name: 'Remove Linus Cook?' });
    await remove.getByRole('button', { name: 'Remove member' }).click();
    await cook.waitFor({ state: 'detached' });
    await shot(pa, '20-staff-removed');

    assert.deepEqual(a.problems, []);
    assert.deepEqual(b.problems, []);
  });

  // An open board in real Chromium when the operator suspends its venue (docs/console.md "A venue
  // whose subscription is inactive"): its stream ends, its reconnect and reload are refused with 403
  // SUBSCRIPTION_INACTIVE, and the page goes to /console, which says why, instead of an empty board
  // that keeps retrying.
  it('sends an open board whose venue is suspended to the page that says the subscription is inactive', async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    const { client } = await signedIn(t.app, v.id, 'cook@example.com');
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    try {
      await context.route(
        (u) => u.origin !== origin,
        (route) => route.abort(),
      );
      await context.addCookies([
        {
          name: 'carta_session',
          value: client.jar.get('carta_session')!,
          domain: '127.0.0.1',
          path: '/console',
          httpOnly: true,
          sameSite: 'Strict',
        },
      ]);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      const loaded = page.waitForResponse((r) => r.url().endsWith('/console/api/board') && r.status() === 200);
      const streaming = page.waitForResponse((r) => r.url().includes('/console/api/orders/stream') && r.status() === 200);
      await page.goto(`${origin}/console`);
      await loaded;
      await streaming;

      assert.equal((await admin(t.app, 'PATCH', `/venues/${v.id}`, { subscriptionStatus: 'suspended' })).status, 200);
      await page.getByRole('alert').filter({ hasText: "The venue's subscription is suspended" }).waitFor({ timeout: 20_000 });
      assert.equal(new URL(page.url()).pathname, '/console');
      assert.equal(await page.locator('#board').count(), 0, 'no board');
      assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
