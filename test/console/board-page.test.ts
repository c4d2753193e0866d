import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentSecurityPolicy } from '../../src/http/html.js';
import { loadConsoleAssets } from '../../src/modules/console/console.assets.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { ConsoleClient, csrfOf, invite, PASSWORD, signedIn } from './console-client.js';

/** The board's budgets (the guest page's rules): gzipped bytes of what the page loads. */
const JS_BUDGET_GZIP = 80 * 1024;
const CSS_BUDGET_GZIP = 30 * 1024;

const COLUMNS = ['New', 'Confirmed', 'Preparing', 'Out for delivery', 'Completed and cancelled today'];

// The board's server-rendered shell (docs/console.md "The board"): what /console sends before its
// script runs, under the strict CSP, and the script and styles it loads, within budget.
describe('the console board page', () => {
  let t: TestApp;
  let v: VenueFixture;
  let n = 0;
  const email = () => `board${(n += 1)}@example.com`;

  before(async () => {
    t = await startApp();
    v = await createVenue(t.app);
  });
  after(() => t.close());

  it('renders the shell: the venue, the member, "Sign out", the CSRF value, the columns as landmarks', async () => {
    const { client } = await signedIn(t.app, v.id, email(), 'manager');
    const home = await client.request('GET', '/console');
    assert.equal(home.status, 200);
    const html = home.body;
    assert.match(html, /<h1>Test Venue[^<]*<\/h1>/);
    assert.match(html, /Signed in as <strong>Ada Lovelace<\/strong> \(manager\)/);
    assert.match(html, /<title>Board · Test Venue[^<]*<\/title>/);
    // The sign-out form as before, and the same session CSRF value for the script's changes.
    assert.match(
      html,
      /<form method="post" action="\/console\/sign-out">\n<input type="hidden" name="csrf" value="[^"]+">\n<button type="submit">Sign out<\/button>/,
    );
    const meta = /<meta name="csrf-token" content="([^"]+)">/.exec(html)?.[1];
    assert.ok(meta);
    assert.equal(meta, csrfOf(html));
    for (const name of COLUMNS) {
      const heading = new RegExp(
        `<section class="column[^"]*" id="column-[a-z]+" aria-labelledby="(title-[a-z]+)"[^>]*>\\n<h2 id="\\1" tabindex="-1">${name} <span class="count"`,
      );
      assert.match(html, heading, name);
    }
    assert.match(html, /<noscript><p[^>]*>The order board needs JavaScript/);
    assert.match(html, /<p class="connection" id="connection" role="status"><\/p>/);
    assert.match(html, /role="tab"[^>]*>Orders</);
    assert.match(html, /role="tab"[^>]*>Service</);
    assert.doesNotMatch(html, />Staff<\/button>/, 'a manager has no Staff tab');
  });

  it('offers the Staff tab to owners only', async () => {
    const { client } = await signedIn(t.app, v.id, email(), 'owner');
    const html = (await client.request('GET', '/console')).body;
    assert.match(html, /role="tab" id="tab-staff"[^>]*>Staff<\/button>/);
    assert.match(html, /id="panel-staff" role="tabpanel"/);
    const staff = await signedIn(t.app, v.id, email(), 'staff');
    assert.doesNotMatch((await staff.client.request('GET', '/console')).body, /tab-staff|panel-staff/);
  });

  it('escapes the names it shows', async () => {
    const m = await invite(t.app, v.id, email(), 'staff', '<img src=x onerror=alert(1)> & "Co"');
    const client = new ConsoleClient(t.app);
    await client.setPassword(m.token, PASSWORD);
    await client.signIn(m.email, PASSWORD);
    const html = (await client.request('GET', '/console')).body;
    assert.ok(!html.includes('<img src=x'));
    assert.match(html, /&#60;img src=x onerror=alert\(1\)&#62; &#38; &#34;Co&#34;/);
  });

  it('serves the board under the strict CSP: no inline script or style, scripts and styles from this origin only', async () => {
    const { client } = await signedIn(t.app, v.id, email());
    const home = await client.request('GET', '/console');
    assert.equal(home.headers['content-security-policy'], contentSecurityPolicy());
    assert.equal(home.headers['cache-control'], 'no-store');
    assert.equal(home.headers['x-frame-options'], 'DENY');
    assert.doesNotMatch(home.body, /style=|<style/);
    const scripts = [...home.body.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(scripts.length, 1, 'one script');
    assert.match(scripts[0], /^<script type="module" src="\/console\/assets\/[\w.-]+\.js">$/, 'from this origin, none inline');
    assert.doesNotMatch(home.body, /https?:\/\//, 'no other origin: no CDN, fonts or trackers');
  });

  it("keeps the board's script and styles within budget (80 KB and 30 KB gzipped), cached for good", async () => {
    const built = loadConsoleAssets();
    assert.ok(built.script, 'the board is built (npm run build:web)');
    const { client } = await signedIn(t.app, v.id, email());
    const html = (await client.request('GET', '/console')).body;
    const scripts = [...html.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
    assert.deepEqual(scripts, [built.script], 'the built entry script');
    assert.deepEqual(styles, built.styles, 'the built stylesheets');
    assert.ok(styles.length > 0);

    const gzipped = async (url: string, type: RegExp): Promise<number> => {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), type, url);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['content-encoding'], 'gzip', url);
      const again = await t.app.inject({
        method: 'GET',
        url,
        headers: { 'accept-encoding': 'gzip', 'if-none-match': String(res.headers.etag) },
      });
      assert.equal(again.statusCode, 304, url);
      return res.rawPayload.length;
    };
    let js = 0;
    for (const url of scripts) js += await gzipped(url, /^text\/javascript/);
    let css = 0;
    for (const url of styles) css += await gzipped(url, /^text\/css/);
    assert.ok(js > 0 && js <= JS_BUDGET_GZIP, `JS ${js} bytes gzipped (budget ${JS_BUDGET_GZIP})`);
    assert.ok(css > 0 && css <= CSS_BUDGET_GZIP, `CSS ${css} bytes gzipped (budget ${CSS_BUDGET_GZIP})`);
  });

  it("answers 404 in the envelope for a file the build does not have, and still serves the forms' stylesheet", async () => {
    const missing = await call(t.app, 'GET', '/console/assets/console-00000000.js');
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /^Route GET \/console\/assets\/console-00000000\.js not found$/);
    const css = await call(t.app, 'GET', '/console/assets/console.css');
    assert.equal(css.status, 200);
    assert.equal(css.headers['cache-control'], 'no-cache');
  });

  it('sends a signed-out visitor to sign-in instead of the board', async () => {
    const res = await new ConsoleClient(t.app).request('GET', '/console');
    assert.equal(res.status, 303);
    assert.equal(res.location, '/console/sign-in');
  });
});
