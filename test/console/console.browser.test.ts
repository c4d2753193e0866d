import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { admin, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, chromiumSkip } from '../helpers/chromium.js';
import { seriousViolations } from '../guest-page/chromium.js';
import { tokenOf } from './console-client.js';

// The console's accounts in real Chromium: an invite opened, a password set, sign-in,
// the console page, sign-out; axe finds no serious or critical violation on the invite and
// sign-in pages. Screenshots of each step go to a temporary directory for review (not committed).
describe('the console in Chromium: invite, password, sign-in, sign-out', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-console-'));

  before(async () => {
    t = await startApp();
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('walks invite -> set password -> sign in -> console -> sign out', async () => {
    const venue = await createVenue(t.app);
    const venueName = (await admin(t.app, 'GET', `/venues/${venue.id}`)).body.name;
    const invited = await admin(t.app, 'POST', `/venues/${venue.id}/staff`, {
      email: 'grace@example.com',
      name: 'Grace Hopper',
      role: 'manager',
    });
    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    await context.route(
      (u) => u.origin !== origin,
      (route) => route.abort(),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // The refused password and sign-in are 400 and 401 pages on purpose; Chromium logs each status.
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 40[01] /.test(m.text())) problems.push(m.text());
    });

    assert.equal((await page.goto(`${origin}/console/invite/${tokenOf(invited.body.inviteUrl)}`))?.status(), 200);
    assert.deepEqual(await seriousViolations(page), [], 'invite page');
    await page.screenshot({ path: path.join(shots, '1-invite.png') });
    await page.getByLabel('Password').fill('password123'); // long enough for the browser, too common for the server
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill('a long and uncommon password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await page.screenshot({ path: path.join(shots, '2-password-set.png') });

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/console/sign-in`);
    assert.deepEqual(await seriousViolations(page), [], 'sign-in page');
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Password').fill('a wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'sign-in page with its error');
    await page.screenshot({ path: path.join(shots, '3-sign-in-refused.png') });
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Password').fill('a long and uncommon password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/console`);
    await page.getByRole('heading', { name: venueName }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Grace Hopper/);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'carta_session');
    assert.ok(session?.httpOnly && session.sameSite === 'Strict' && session.path === '/console');
    assert.equal(await page.evaluate('document.cookie'), '', 'no console cookie is readable by script');
    await page.screenshot({ path: path.join(shots, '4-console.png') });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/console/sign-in`);
    assert.ok(!(await context.cookies()).some((c) => c.name === 'carta_session'));
    await page.goto(`${origin}/console`);
    assert.equal(page.url(), `${origin}/console/sign-in`, 'signed out: the console sends to sign-in');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
