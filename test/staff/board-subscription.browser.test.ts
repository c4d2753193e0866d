import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { admin, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumMissing } from '../helpers/chromium.js';
import { signedIn } from './console-client.js';

// An open board in real Chromium when the operator suspends its venue (docs/console.md "A venue
// whose subscription is inactive"): its stream ends, its reconnect and reload are refused with 403
// SUBSCRIPTION_INACTIVE, and the page goes to /console, which says why, instead of an empty board
// that keeps retrying.
describe('an open board whose venue is suspended, in Chromium', { skip: chromiumMissing }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    t = await startApp();
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the page that says the subscription is inactive', async () => {
    const v = await createVenue(t.app, { plan: 'pro' });
    const { client } = await signedIn(t.app, v.id, 'cook@example.com');
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    try {
      await context.route((u) => u.origin !== origin, (route) => route.abort());
      await context.addCookies([{ name: 'carta_session', value: client.jar.get('carta_session')!, domain: '127.0.0.1', path: '/console', httpOnly: true, sameSite: 'Strict' }]);
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
