import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { menuFixture, type SyncBody } from '../../bench/workload.js';
import { loadGuestAssets } from '../../src/modules/guest-page/page.assets.js';
import { When } from '../../src/modules/guest-page/shared/availability.js';
import { FOOD_NAMES } from '../../src/modules/guest-page/shared/food-names.js';
import { fill, uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { admin, assertError, call, createVenue, startApp, type Call, type TestApp } from '../helpers/app.js';
import {
  FOOD_MENU,
  GUEST_PAGE_MENU,
  markAvailability,
  NOON_TO_TEN,
  patchSettings,
  setUpGuestPage,
  type GuestPageFixture,
} from '../helpers/guest-page.js';
import {
  burgerLine,
  expectStatus,
  orderBody,
  patchOrderConfig,
  patchStatus,
  placeOrder,
  publish,
  setUpOrderMenu,
} from '../helpers/orders.js';

// The guest page: GET /m/:slug, GET /t/:token, GET /m/:slug/orders/:token and their
// assets, plus the guest order token API the status page reads (GET /guest/v1/venues/:slug/orders/:token).

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;
const DATA_BLOCK = /<script type="application\/json" id="carta-data">([\s\S]*?)<\/script>/;
const JS_BUDGET_GZIP = 60 * 1024;
const CSS_BUDGET_GZIP = 30 * 1024;

let t: TestApp;
let statements: string[] = [];
let recording = false;
/** The app's clock: the real one unless a test sets an instant (availability and hours are judged by it). */
let clockAt: number | null = null;

before(async () => {
  t = await startApp(
    {},
    (text) => {
      if (recording) statements.push(text);
    },
    { clock: () => clockAt ?? Date.now() },
  );
});
after(() => t.close());

function get(url: string, headers: Record<string, string> = {}): Promise<Call> {
  return call(t.app, 'GET', url, { headers });
}

/** The page's bytes as text, decoded when the response is compressed. */
function text(res: Call): string {
  const raw = res.raw.rawPayload;
  switch (res.headers['content-encoding']) {
    case 'gzip':
      return zlib.gunzipSync(raw).toString('utf8');
    case 'br':
      return zlib.brotliDecompressSync(raw).toString('utf8');
    default:
      return raw.toString('utf8');
  }
}

/** The script's data block, parsed; it must parse and hold no literal `<`. */
function dataOf(html: string): any {
  const match = DATA_BLOCK.exec(html);
  assert.ok(match, 'the page has its data block');
  assert.ok(!match[1].includes('<'), 'no literal < in the data block');
  return JSON.parse(match[1]);
}

/** The HTML page security headers (docs/security.md). */
function assertPageHeaders(res: Call, label: string): void {
  assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/, label);
  const csp = String(res.headers['content-security-policy']);
  const directives = new Map(
    csp.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
  assert.deepEqual(directives.get('default-src'), ["'none'"], `${label}: ${csp}`);
  assert.deepEqual(directives.get('script-src'), ["'self'"], `${label}: ${csp}`);
  assert.deepEqual(directives.get('style-src'), ["'self'"], `${label}: ${csp}`);
  assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], `${label}: ${csp}`);
  assert.deepEqual(directives.get('base-uri'), ["'none'"], `${label}: ${csp}`);
  assert.deepEqual(directives.get('img-src'), ["'self'", new URL(t.config.mediaPublicUrl).origin], `${label}: ${csp}`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|unsafe-hashes|'nonce-|'sha\d+-/, label);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', label);
  assert.equal(res.headers['referrer-policy'], 'no-referrer', label);
  assert.equal(res.headers['x-frame-options'], 'DENY', label);
}

/** Only the data block and same-origin module scripts; no inline style; nothing absolute. */
function assertSafeHtml(html: string, label: string): void {
  const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
  for (const tag of scripts) {
    assert.ok(
      tag === '<script type="application/json" id="carta-data">' || /^<script type="module" src="\/assets\/guest\/[\w.-]+\.js">$/.test(tag),
      `${label}: unexpected script tag ${tag}`,
    );
  }
  assert.equal(scripts.length, [...html.matchAll(/<\/script>/gi)].length, `${label}: every script closes once`);
  assert.ok(scripts.filter((s) => s.includes('carta-data')).length <= 1, `${label}: one data block at most`);
  assert.doesNotMatch(html, /\sstyle\s*=/i, `${label}: no style attribute`);
  assert.doesNotMatch(html, /<style/i, `${label}: no style element`);
  assert.doesNotMatch(html, /<[^>]*\son[a-z]+\s*=/i, `${label}: no event handler attribute`);
  assert.doesNotMatch(html, /javascript:/i, `${label}: no javascript: URL`);
  assert.doesNotMatch(html, /(?:src|href|srcset|action)="(?:[a-z][a-z0-9+.-]*:)?\/\//i, `${label}: nothing from another origin`);
  assert.doesNotMatch(html, /https?:\/\//i, `${label}: no absolute URL at all`);
}

function assertMessagePage(res: Call, status: number, wording: string, label: string): string {
  assert.equal(res.status, status, `${label}: ${res.status} ${text(res).slice(0, 300)}`);
  assertPageHeaders(res, label);
  const html = text(res);
  assert.ok(html.startsWith('<!doctype html>'), `${label}: HTML, not JSON`);
  assert.ok(html.includes(wording), `${label}: says "${wording}"\n${html}`);
  assertSafeHtml(html, label);
  assert.doesNotMatch(html, /<script/, `${label}: a message page has no script`);
  assert.match(html, /<meta name="description" content="[^"<]+">/, `${label}: described (its message)`);
  return html;
}

/** Places the fixture's smallest order and returns its guest token (from Location). */
async function orderToken(
  g: GuestPageFixture,
  body: Record<string, unknown> = {},
): Promise<{ token: string; id: string; location: string }> {
  const res = await placeOrder(t.app, g.v.slug, orderBody(g.ids, body));
  expectStatus(res, 201);
  const location = String(res.headers.location);
  const token = location.split('/').at(-1) as string;
  assert.match(token, TOKEN_SHAPE);
  return { token, id: res.body.id, location };
}

const cardCount = (html: string) => html.match(/<li class="card"/g)?.length ?? 0;

/** The ordering notice under the header: its words, or null when it is hidden. */
function noticeOf(html: string): string | null {
  const match = /<p class="notice" id="ordering-notice" role="status"( hidden)?>([^<]*)<\/p>/.exec(html);
  assert.ok(match, 'the page has its ordering notice');
  return match[1] ? null : match[2];
}

describe('the guest page', () => {
  let g: GuestPageFixture;
  before(async () => {
    g = await setUpGuestPage(t.app);
  });

  it('sends strict security headers and self-contained HTML on every page, the 404 page too', async () => {
    const { token } = await orderToken(g);
    const pages: [string, number][] = [
      [`/m/${g.v.slug}`, 200],
      [`/t/${g.table.token}`, 200],
      [`/m/${g.v.slug}/orders/${token}`, 200],
      ['/t/NoSuchTableToken0000000000', 404],
      [`/m/${g.v.slug}/orders/${'A'.repeat(32)}`, 404],
    ];
    for (const [url, status] of pages) {
      const res = await get(url);
      assert.equal(res.status, status, `${url}: ${text(res).slice(0, 300)}`);
      assertPageHeaders(res, url);
      const html = text(res);
      assert.ok(html.startsWith('<!doctype html>'), url);
      assertSafeHtml(html, url);
      if (status === 200) {
        assert.equal(res.headers['cache-control'], url.includes('/orders/') ? 'no-store' : 'no-cache', url);
        assert.match(html, /<script type="module" src="\/assets\/guest\/[\w.-]+\.js"><\/script>/, `${url}: loads its module`);
        assert.match(html, /<link rel="stylesheet" href="\/assets\/guest\/[\w.-]+\.css">/, `${url}: loads its styles`);
        dataOf(html);
      }
    }
  });

  it('escapes every value a venue controls, in the HTML and in the data block', async () => {
    const v = await createVenue(t.app);
    const venueName = '<b>Bold & "quoted"</b>';
    expectStatus(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { name: venueName } }), 200);
    const menu = {
      categories: [
        { externalId: 'evil-cat', name: '</script><script>alert(2)</script>', sortOrder: 1 },
        { externalId: 'plain', name: 'Plain', sortOrder: 2 },
      ],
      products: [
        {
          externalId: 'evil',
          name: '<script>alert(1)</script>',
          description: '"><img src=x onerror=alert(1)>',
          priceMinor: 500,
          categoryExternalId: 'evil-cat',
          sortOrder: 1,
        },
        { externalId: 'tea', name: "Tea 'n' biscuits", priceMinor: 300, categoryExternalId: 'plain', sortOrder: 2 },
      ],
    };
    const ids = await setUpOrderMenu(t.app, v, { menu });
    assert.ok(ids.productIds.evil);

    const res = await get(`/m/${v.slug}`);
    assert.equal(res.status, 200, text(res).slice(0, 300));
    const html = text(res);
    assertSafeHtml(html, 'menu page');
    assert.doesNotMatch(html, /<script>alert/);
    assert.doesNotMatch(html, /<img src=x/);
    assert.doesNotMatch(html, /<b>Bold/);
    assert.doesNotMatch(html, /<img/, 'the menu has no images at all');
    assert.ok(html.includes('&#60;script&#62;alert(1)&#60;/script&#62;'), 'the product name, escaped');
    assert.ok(html.includes('&#60;/script&#62;&#60;script&#62;alert(2)&#60;/script&#62;'), 'the category name, escaped');
    assert.ok(html.includes('&#34;&#62;&#60;img src=x onerror=alert(1)&#62;'), 'the description, escaped');
    assert.ok(html.includes('&#60;b&#62;Bold &#38; &#34;quoted&#34;&#60;/b&#62;'), 'the venue name, escaped');
    assert.ok(html.includes('aria-label="Add &#60;script&#62;alert(1)&#60;/script&#62;"'), 'the button label, escaped in its attribute');
    assert.ok(html.includes('Tea &#39;n&#39; biscuits'));
    assert.match(html, /<title>&#60;b&#62;Bold &#38; &#34;quoted&#34;&#60;\/b&#62;<\/title>/);
    // The description for search results and link previews (Lighthouse's SEO): the name escaped in it.
    assert.ok(
      html.includes(
        `<meta name="description" content="${fill(uiStrings('en').menuDescription, { venue: '&#60;b&#62;Bold &#38; &#34;quoted&#34;&#60;/b&#62;' })}">`,
      ),
    );
    const data = dataOf(html);
    assert.equal(data.slug, v.slug);

    // The order's status page names the product and the venue: escaped too.
    const placed = await placeOrder(t.app, v.slug, orderBody(ids, { items: [{ productId: ids.productIds.evil, quantity: 2 }] }));
    expectStatus(placed, 201);
    const statusUrl = `/m/${v.slug}/orders/${String(placed.headers.location).split('/').at(-1)}`;
    const status = await get(statusUrl);
    assert.equal(status.status, 200, text(status).slice(0, 300));
    const statusHtml = text(status);
    assertSafeHtml(statusHtml, 'status page');
    assert.doesNotMatch(statusHtml, /<script>alert|<b>Bold/);
    assert.ok(statusHtml.includes('&#60;script&#62;alert(1)&#60;/script&#62;'), 'the line name, escaped');
    assert.ok(statusHtml.includes('<h1>&#60;b&#62;Bold &#38; &#34;quoted&#34;&#60;/b&#62;</h1>'), 'the venue name, escaped');
    assert.ok(
      statusHtml.includes(
        `<meta name="description" content="${fill(uiStrings('en').statusDescription, { venue: '&#60;b&#62;Bold &#38; &#34;quoted&#34;&#60;/b&#62;' })}">`,
      ),
    );
    dataOf(statusHtml);

    // A table's name shows in the title, the header and the data block.
    const tableName = '<script>alert(4)</script>';
    const table = await call(t.app, 'POST', '/v1/tables', { key: v.key, body: { name: tableName } });
    expectStatus(table, 201);
    const tablePage = await get(`/t/${String(table.body.qrUrl).split('/t/')[1]}`);
    assert.equal(tablePage.status, 200, text(tablePage).slice(0, 300));
    const tableHtml = text(tablePage);
    assertSafeHtml(tableHtml, 'table page');
    assert.doesNotMatch(tableHtml, /<script>alert/);
    // The name is shown as written (it has letters, so no "Table" in front), escaped.
    assert.ok(tableHtml.includes('<p class="table-name">&#60;script&#62;alert(4)&#60;/script&#62;</p>'));
    assert.deepEqual(dataOf(tableHtml).table, { id: table.body.id, name: tableName }, 'the data block holds the name as it is');

    // A ?lang= that names no language reaches the message page's lang attribute: escaped.
    const lang = encodeURIComponent('"><script>alert(3)</script>');
    const missing = await get(`/m/no-such-venue-${process.pid}?lang=${lang}`);
    const missingHtml = assertMessagePage(missing, 404, 'We could not find this menu.', 'unknown venue with a hostile ?lang=');
    assert.doesNotMatch(missingHtml, /<script>alert|lang=""/);
  });

  it('speaks the language asked for: ?lang= first, then Accept-Language, then the default', async () => {
    const es = await get(`/m/${g.v.slug}`, { 'accept-language': 'es-ES,es;q=0.9' });
    assert.equal(es.status, 200);
    const esHtml = text(es);
    assert.match(esHtml, /<html lang="es" dir="ltr">/);
    assert.equal(es.headers['content-language'], 'es');
    assert.ok(esHtml.includes('Hamburguesa'), 'product names in Spanish');
    assert.ok(esHtml.includes('Principales'), 'category names in Spanish');
    assert.ok(esHtml.includes('Ternera, lechuga y tomate'));
    assert.ok(!esHtml.includes('>Burger<'), 'not the English name');
    const esData = dataOf(esHtml);
    assert.equal(esData.locale, 'es');
    assert.equal(esData.strings.add, 'Añadir');
    assert.match(esData.menuUrl, /locale=es$/);
    assert.match(
      esHtml,
      /<a href="\/m\/[^"]+\?lang=es" hreflang="es" lang="es" aria-current="true">Español<\/a>/,
      'the switcher marks the current language',
    );
    const vary = String(es.headers.vary)
      .split(',')
      .map((s) => s.trim().toLowerCase());
    assert.ok(vary.includes('accept-language') && vary.includes('accept-encoding'), String(es.headers.vary));

    const ar = await get(`/m/${g.v.slug}?lang=ar`, { 'accept-language': 'es-ES,es;q=0.9' });
    assert.equal(ar.status, 200);
    const arHtml = text(ar);
    assert.match(arHtml, /<html lang="ar" dir="rtl">/);
    assert.equal(ar.headers['content-language'], 'ar');
    assert.ok(arHtml.includes('برغر'));
    assert.notEqual(ar.headers.etag, es.headers.etag, 'one ETag per language');

    const unknownWithHeader = await get(`/m/${g.v.slug}?lang=xx`, { 'accept-language': 'es-ES,es;q=0.9' });
    assert.match(text(unknownWithHeader), /<html lang="es" dir="ltr">/);
    assert.equal(unknownWithHeader.headers['content-language'], 'es');

    const unknown = await get(`/m/${g.v.slug}?lang=xx`);
    assert.match(text(unknown), /<html lang="en" dir="ltr">/);
    assert.equal(unknown.headers['content-language'], 'en');
    assert.ok(text(unknown).includes('Burger'));

    const notOffered = await get(`/m/${g.v.slug}`, { 'accept-language': 'fr-FR, de;q=0.8' });
    assert.equal(notOffered.headers['content-language'], 'en', 'no offered language matches: the default');

    const weighted = await get(`/m/${g.v.slug}`, { 'accept-language': 'es;q=0.2, ar;q=0.9, en;q=0' });
    assert.equal(weighted.headers['content-language'], 'ar', 'by q, not by position');

    const table = await get(`/t/${g.table.token}?lang=es`);
    assert.equal(table.status, 200);
    assert.ok(text(table).includes('Mesa 5'));
    assert.equal(table.headers['content-language'], 'es');

    const notFound = await get('/t/NoSuchTableToken0000000000', { 'accept-language': 'es' });
    assertMessagePage(notFound, 404, 'El código de esta mesa no está activo.', 'a Spanish 404');
    assert.match(text(notFound), /<html lang="es" dir="ltr">/);
  });

  it('revalidates with an ETag per encoding, compresses, and follows publishes and settings', async () => {
    const p = await setUpGuestPage(t.app);
    const url = `/m/${p.v.slug}`;
    const first = await get(url);
    const second = await get(url);
    assert.equal(first.status, 200);
    assert.match(String(first.headers.etag), /^"[\w-]+"$/);
    assert.equal(second.headers.etag, first.headers.etag, 'the same page, the same ETag');
    assert.ok(first.raw.rawPayload.equals(second.raw.rawPayload));

    const notModified = await get(url, { 'if-none-match': String(first.headers.etag) });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.raw.rawPayload.length, 0, 'a 304 has no body');
    assert.equal(notModified.headers.etag, first.headers.etag);

    for (const [encoding, decode] of [
      ['gzip', zlib.gunzipSync],
      ['br', zlib.brotliDecompressSync],
    ] as const) {
      const compressed = await get(url, { 'accept-encoding': encoding });
      assert.equal(compressed.status, 200);
      assert.equal(compressed.headers['content-encoding'], encoding);
      assert.ok(decode(compressed.raw.rawPayload).equals(first.raw.rawPayload), `${encoding}: the same page`);
      assert.ok(compressed.raw.rawPayload.length < first.raw.rawPayload.length, `${encoding}: smaller`);
      assert.notEqual(compressed.headers.etag, first.headers.etag, `${encoding}: an ETag of its own`);
      assertPageHeaders(compressed, `${encoding} page`);
      const again = await get(url, { 'accept-encoding': encoding, 'if-none-match': String(compressed.headers.etag) });
      assert.equal(again.status, 304, `${encoding}: 304 on its own ETag`);
      assert.equal(again.raw.rawPayload.length, 0);
    }
    assert.deepEqual(dataOf(text(first)).orderTypes, ['pickup', 'delivery']);
    assert.equal(noticeOf(text(first)), null);

    // A new publish: the page follows (another price) under another ETag.
    const repriced = {
      ...GUEST_PAGE_MENU,
      products: GUEST_PAGE_MENU.products.map((x) => (x.externalId === 'burger' ? { ...x, priceMinor: 1234 } : x)),
    };
    expectStatus(await call(t.app, 'POST', '/v1/sync', { key: p.v.key, body: repriced }), 201);
    const unpublished = await get(url, { 'if-none-match': String(first.headers.etag) });
    assert.equal(unpublished.status, 304, 'a sync alone changes nothing guests see');
    await publish(t.app, p.v);
    const published = await get(url, { 'if-none-match': String(first.headers.etag) });
    assert.equal(published.status, 200, 'a publish changes the page');
    assert.notEqual(published.headers.etag, first.headers.etag);
    assert.ok(text(published).includes('12.34'), 'the new price');

    // Orders closed in settings: the ETag moves, the notice shows, the script offers nothing.
    await patchOrderConfig(t.app, p.v, { acceptingOrders: false });
    const closed = await get(url, { 'if-none-match': String(published.headers.etag) });
    assert.equal(closed.status, 200, 'a settings change changes the page');
    assert.notEqual(closed.headers.etag, published.headers.etag);
    const closedHtml = text(closed);
    assert.equal(noticeOf(closedHtml), 'Ordering is closed right now. You can still browse the menu.');
    assert.deepEqual(dataOf(closedHtml).orderTypes, []);
    const closedTable = text(await get(`/t/${p.table.token}`));
    assert.equal(noticeOf(closedTable), 'Ordering is closed right now. You can still browse the menu.', 'the table page is closed too');
    assert.deepEqual(dataOf(closedTable).orderTypes, []);

    // Open, but only at the table: the menu link is closed, the table link is open.
    await patchOrderConfig(t.app, p.v, { acceptingOrders: true, pickupEnabled: false, deliveryEnabled: false, dineInEnabled: true });
    const menuOnly = await get(url);
    const menuOnlyHtml = text(menuOnly);
    assert.notEqual(menuOnly.headers.etag, closed.headers.etag);
    assert.equal(noticeOf(menuOnlyHtml), 'This link does not take orders. You can still browse the menu.');
    assert.deepEqual(dataOf(menuOnlyHtml).orderTypes, []);
    const tableOpen = text(await get(`/t/${p.table.token}`));
    assert.equal(noticeOf(tableOpen), null);
    const tableData = dataOf(tableOpen);
    assert.deepEqual(tableData.orderTypes, ['dine_in']);
    assert.deepEqual(tableData.table, { id: p.table.id, name: '5' });
    assert.equal(tableData.mode, 'table');

    // A rename through the operator API is a change the page shows too.
    const renamed = `Renamed ${process.pid}`;
    expectStatus(await admin(t.app, 'PATCH', `/venues/${p.v.id}`, { name: renamed }), 200);
    const afterRename = await get(url, { 'if-none-match': String(menuOnly.headers.etag) });
    assert.equal(afterRename.status, 200);
    assert.ok(text(afterRename).includes(`<h1>${renamed}</h1>`));
  });

  it('renders a 500-product menu whole, then serves it again from memory', async () => {
    const v = await createVenue(t.app);
    const body = menuFixture({
      seed: 1414,
      products: 500,
      categories: 6,
      ingredients: 40,
      groupsPerProduct: 1,
      optionsPerGroup: 3,
      ingredientRefsPerProduct: 2,
      locales: [],
    }) as SyncBody;
    // Every product in sight: no hidden product, no inactive or scheduled category.
    for (const c of body.categories ?? []) {
      delete c.schedule;
      delete c.isActive;
    }
    for (const product of body.products ?? []) delete product.menuVisible;
    await setUpOrderMenu(t.app, v, { menu: body });

    const url = `/m/${v.slug}`;
    let started = performance.now();
    const first = await get(url);
    const firstMs = performance.now() - started;
    assert.equal(first.status, 200);
    const html = text(first);
    assert.equal(cardCount(html), 500, 'every product has its card');
    assert.equal(html.match(/<section class="category"/g)?.length, 6);
    assertSafeHtml(html, '500-product page');

    const revalidated = await get(url, { 'if-none-match': String(first.headers.etag) });
    assert.equal(revalidated.status, 304);

    statements = [];
    recording = true;
    let again: Call;
    try {
      started = performance.now();
      again = await get(url);
    } finally {
      recording = false;
    }
    const againMs = performance.now() - started;
    assert.equal(again.status, 200);
    assert.ok(again.raw.rawPayload.equals(first.raw.rawPayload), 'byte-identical');
    assert.equal(again.headers.etag, first.headers.etag);
    const heavy = statements.filter((s) => /menu_publications|\bproducts\b|\bcategories\b|\bingredients\b|modifier/i.test(s));
    assert.deepEqual(heavy, [], 'no menu read for a cached page');
    assert.ok(statements.length <= 3, `at most the venue and merchandising look-ups: ${statements.join(' | ')}`);
    assert.ok(againMs < 500, `the cached page took ${againMs.toFixed(1)} ms (first: ${firstMs.toFixed(1)} ms)`);
  });

  it('answers a link that leads nowhere with a friendly HTML page', async () => {
    assertMessagePage(
      await get('/t/NoSuchTableToken0000000000'),
      404,
      'This table&#39;s code is not active. Please ask the staff.',
      'unknown table',
    );

    // A table that worked, then was deactivated.
    const p = await setUpGuestPage(t.app);
    assert.equal((await get(`/t/${p.table.token}`)).status, 200);
    expectStatus(await call(t.app, 'PATCH', `/v1/tables/${p.table.id}`, { key: p.v.key, body: { isActive: false } }), 200);
    assertMessagePage(await get(`/t/${p.table.token}`), 404, 'This table&#39;s code is not active.', 'deactivated table');

    assertMessagePage(await get(`/m/no-such-venue-${process.pid}`), 404, 'We could not find this menu.', 'unknown venue');

    const fresh = await createVenue(t.app);
    assertMessagePage(await get(`/m/${fresh.slug}`), 404, 'This menu is not published yet.', 'never published');
    const freshTable = await call(t.app, 'POST', '/v1/tables', { key: fresh.key, body: { name: '1' } });
    expectStatus(freshTable, 201);
    assertMessagePage(
      await get(`/t/${String(freshTable.body.qrUrl).split('/t/')[1]}`),
      404,
      'This menu is not published yet.',
      'table of an unpublished venue',
    );

    assertMessagePage(await get(`/m/${g.v.slug}/orders/${'A'.repeat(32)}`), 404, 'We could not find this order.', 'unknown order token');
    assertMessagePage(await get(`/m/${g.v.slug}/orders/abc`), 404, 'We could not find this order.', 'malformed order token');
    assertMessagePage(
      await get(`/m/no-such-venue-${process.pid}/orders/${'A'.repeat(32)}`),
      404,
      'We could not find this menu.',
      'order of an unknown venue',
    );

    // A suspended subscription: 403, in words.
    const suspended = await setUpGuestPage(t.app);
    expectStatus(await admin(t.app, 'PATCH', `/venues/${suspended.v.id}`, { subscriptionStatus: 'suspended' }), 200);
    assertMessagePage(await get(`/m/${suspended.v.slug}`), 403, 'This menu is not available right now.', 'suspended venue');
    assertMessagePage(await get(`/t/${suspended.table.token}`), 403, 'This menu is not available right now.', 'suspended venue table');

    // Files are not pages: a missing asset is the API's 404 envelope.
    const asset = await get('/assets/guest/guest-nope.js');
    assertError(asset, 404);
    assert.match(String(asset.headers['content-type']), /^application\/json/);
    assert.equal(typeof asset.body.message, 'string');
  });

  it("links a table page's language switcher to the table's current token", async () => {
    const p = await setUpGuestPage(t.app);
    assert.equal((await get(`/t/${p.table.token}`)).status, 200, 'the page is rendered (and cached) under the first token');
    const regenerated = await call(t.app, 'POST', `/v1/tables/${p.table.id}/regenerate-token`, { key: p.v.key });
    expectStatus(regenerated, 201);
    const token = String(regenerated.body.qrUrl).split('/t/')[1];
    assert.notEqual(token, p.table.token);
    assertMessagePage(await get(`/t/${p.table.token}`), 404, 'This table&#39;s code is not active.', 'the old link');

    const page = await get(`/t/${token}`);
    assert.equal(page.status, 200);
    const links = [...text(page).matchAll(/<a href="(\/t\/[^"?]+)\?lang=[^"]+" hreflang=/g)].map((m) => m[1]);
    assert.equal(links.length, 3, 'one link per language');
    assert.deepEqual(links, [`/t/${token}`, `/t/${token}`, `/t/${token}`], 'the language links use the new token, not the revoked one');
    for (const code of ['en', 'es', 'ar']) {
      assert.equal((await get(`/t/${token}?lang=${code}`)).status, 200, `?lang=${code} under the new token`);
    }
  });

  it('speaks a message page in a language it has words for, falling back like the menu page', async () => {
    const missing = '/t/NoSuchTableToken0000000000';
    // ?lang= names no language: Accept-Language decides, as on the menu page.
    const viaHeader = await get(`${missing}?lang=xx`, { 'accept-language': 'es' });
    assertMessagePage(viaHeader, 404, 'El código de esta mesa no está activo.', '?lang=xx with Accept-Language es');
    assert.match(text(viaHeader), /<html lang="es" dir="ltr">/);
    // The first accepted language has no words: the next one that has.
    const next = await get(missing, { 'accept-language': 'ko, es;q=0.8' });
    assertMessagePage(next, 404, 'El código de esta mesa no está activo.', 'Accept-Language ko, es');
    assert.match(text(next), /<html lang="es" dir="ltr">/);
    // Every language of the reference has its words, and the page says its tag as the reference does.
    const chinese = await get(missing, { 'accept-language': 'zh-CN' });
    assertMessagePage(chinese, 404, '此餐桌的二维码已失效，请咨询店员。', 'Accept-Language zh-CN');
    assert.match(text(chinese), /<html lang="zh-CN" dir="ltr">/);
    const portuguese = await get(missing, { 'accept-language': 'pt' });
    assert.match(text(portuguese), /<html lang="pt-BR" dir="ltr">/, 'pt asked, pt-BR said');
    assert.match(text(await get(`${missing}?lang=pt-BR`)), /<html lang="pt-BR" dir="ltr">/);
    // Nothing known: English, declared as English.
    assert.match(text(await get(`${missing}?lang=xx`)), /<html lang="en" dir="ltr">/);
    assert.match(text(await get(`${missing}?lang=`)), /<html lang="en" dir="ltr">/);
  });

  it('keeps the script and styles a menu page loads within budget, cached for good', async () => {
    const res = await get(`/m/${g.v.slug}`);
    const html = text(res);
    const scripts = [...html.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)].map((m) => m[1]);
    const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
    const built = loadGuestAssets();
    assert.deepEqual(scripts, [built.script], 'the built entry script');
    assert.deepEqual(styles, built.styles, 'the built stylesheets');
    assert.ok(styles.length > 0);

    const fetchGzipped = async (url: string, type: RegExp): Promise<number> => {
      const asset = await get(url, { 'accept-encoding': 'gzip' });
      assert.equal(asset.status, 200, url);
      assert.match(String(asset.headers['content-type']), type, url);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable', url);
      assert.equal(asset.headers['x-content-type-options'], 'nosniff', url);
      assert.match(String(asset.headers.etag), /^"[\w-]+"$/, url);
      assert.equal(asset.headers['content-encoding'], 'gzip', url);
      const revalidated = await get(url, { 'accept-encoding': 'gzip', 'if-none-match': String(asset.headers.etag) });
      assert.equal(revalidated.status, 304, url);
      return asset.raw.rawPayload.length;
    };
    let js = 0;
    for (const url of scripts) js += await fetchGzipped(url, /^text\/javascript/);
    let css = 0;
    for (const url of styles) css += await fetchGzipped(url, /^text\/css/);
    assert.ok(js > 0 && js <= JS_BUDGET_GZIP, `JS ${js} bytes gzipped (budget ${JS_BUDGET_GZIP})`);
    assert.ok(css > 0 && css <= CSS_BUDGET_GZIP, `CSS ${css} bytes gzipped (budget ${CSS_BUDGET_GZIP})`);

    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(html)?.[1];
    assert.ok(icon, 'the page names its icon');
    const iconRes = await get(icon);
    assert.equal(iconRes.status, 200);
    assert.match(String(iconRes.headers['content-type']), /^image\/svg\+xml/);
    assert.equal(iconRes.headers['cache-control'], 'public, max-age=31536000, immutable');
  });
});

describe('the guest order token API', () => {
  let g: GuestPageFixture;
  before(async () => {
    g = await setUpGuestPage(t.app);
  });

  it("leads a table's guest back to the table's page, and shows a promotion's saving in the totals", async () => {
    const p = await setUpGuestPage(t.app);
    const promo = await call(t.app, 'POST', '/v1/promotions', { key: p.v.key, body: { name: 'Burger deal', externalId: 'deal' } });
    expectStatus(promo, 201);
    expectStatus(
      await call(t.app, 'POST', `/v1/promotions/${promo.body.id}/items`, {
        key: p.v.key,
        body: { productRef: 'burger', promoPriceMinor: 800 },
      }),
      201,
    );
    const body = orderBody(p.ids, { type: 'dine_in', tableId: p.table.id, items: [burgerLine(p.ids)] });
    const created = await placeOrder(t.app, p.v.slug, body);
    expectStatus(created, 201);
    assert.ok(created.body.discountAmount > 0, JSON.stringify(created.body));
    const page = await get(`/m/${p.v.slug}/orders/${String(created.headers.location).split('/').pop()}`);
    assert.equal(page.status, 200);
    const html = String(page.raw.body);
    assert.ok(html.includes(`<a href="/t/${p.table.token}?lang=en">`), 'back to the table, not the menu link');
    assert.match(html, /<dt>Discount<\/dt>/);

    // The guest who ordered follows the order whatever the venue's subscription does since, on the
    // page as in its JSON.
    const token = String(created.headers.location).split('/').pop();
    expectStatus(await admin(t.app, 'PATCH', `/venues/${p.v.id}`, { subscriptionStatus: 'suspended' }), 200);
    expectStatus(await call(t.app, 'GET', String(created.headers.location)), 200);
    assert.equal((await get(`/m/${p.v.slug}/orders/${token}`)).status, 200);
    expectStatus(await admin(t.app, 'PATCH', `/venues/${p.v.id}`, { subscriptionStatus: 'active' }), 200);

    // A deactivated table's guest goes back to the menu link instead.
    expectStatus(await call(t.app, 'PATCH', `/v1/tables/${p.table.id}`, { key: p.v.key, body: { isActive: false } }), 200);
    const later = String((await get(`/m/${p.v.slug}/orders/${String(created.headers.location).split('/').pop()}`)).raw.body);
    assert.ok(later.includes(`<a href="/m/${p.v.slug}?lang=en">`));
  });

  it('names the order by an unguessable token that shows its progress and nothing private', async () => {
    const key = `guest-page-${process.pid}-${Date.now()}`;
    const body = orderBody(g.ids, { customerEmail: 'ada@example.com', comment: 'ring twice' });
    const created = await placeOrder(t.app, g.v.slug, body, key);
    expectStatus(created, 201);
    const location = String(created.headers.location);
    const slug = g.v.slug.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(location, new RegExp(`^/guest/v1/venues/${slug}/orders/[A-Za-z0-9_-]{32}$`));
    const operatorView = await call(t.app, 'GET', `/v1/orders/${created.body.id}`, { key: g.v.key });
    expectStatus(operatorView, 200);
    assert.deepEqual(Object.keys(created.body).sort(), Object.keys(operatorView.body).sort(), 'the body is still the Order');

    const replay = await placeOrder(t.app, g.v.slug, body, key);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.location, location, 'a replay names the same token');
    assert.equal(replay.body.id, created.body.id);

    const other = await placeOrder(t.app, g.v.slug, orderBody(g.ids));
    expectStatus(other, 201);
    assert.notEqual(other.headers.location, location, 'each order its own token');

    const view = await get(location);
    assert.equal(view.status, 200, JSON.stringify(view.body));
    assert.equal(view.body.status, 'new');
    assert.equal(view.body.orderNumber, created.body.orderNumber);
    assert.equal(view.body.items.length, 1);
    assert.equal(view.body.items[0].quantity, 1);
    assert.equal(view.body.subtotalAmount, 400);
    assert.equal(view.body.totalAmount, 400);
    for (const hidden of [
      'customerName',
      'customerPhone',
      'customerEmail',
      'deliveryAddress',
      'deliveryNotes',
      'comment',
      'id',
      'changeFromAmount',
    ]) {
      assert.ok(!(hidden in view.body), `no ${hidden} in the guest view`);
    }
    assert.doesNotMatch(JSON.stringify(view.body), /Ada|\+380501234567|ada@example\.com|ring twice/);
    const etag = String(view.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const same = await get(location, { 'if-none-match': etag });
    assert.equal(same.status, 304);
    assert.equal(same.raw.rawPayload.length, 0);

    expectStatus(await patchStatus(t.app, g.v.key, created.body.id, 'confirmed'), 200);
    const confirmed = await get(location, { 'if-none-match': etag });
    assert.equal(confirmed.status, 200, 'the status change moves the ETag');
    assert.notEqual(confirmed.headers.etag, etag);
    assert.equal(confirmed.body.status, 'confirmed');
    const page = text(await get(`/m/${g.v.slug}/orders/${location.split('/').at(-1)}`));
    assert.match(page, /<p class="status-now" id="status-now" role="status" aria-live="polite">Confirmed<\/p>/);
    assert.doesNotMatch(page, /Ada|\+380501234567|ada@example\.com|ring twice/, 'no contact details on the status page');

    const token = location.split('/').at(-1) as string;
    const elsewhere = await createVenue(t.app);
    const foreign = await get(`/guest/v1/venues/${elsewhere.slug}/orders/${token}`);
    assertError(foreign, 404);
    assert.equal(foreign.body.message, 'Order not found');
    assertError(await get(`/guest/v1/venues/${g.v.slug}/orders/abc`), 404);
    assertError(await get(`/guest/v1/venues/${g.v.slug}/orders/${'A'.repeat(64)}`), 404);
    assertError(await get(`/guest/v1/venues/${g.v.slug}/orders/${'A'.repeat(32)}`), 404);
    assertError(await get(`/guest/v1/venues/${g.v.slug}/orders/${token.slice(0, 31)}.`), 404);
    assertError(await get(`/guest/v1/venues/no-such-venue-${process.pid}/orders/${token}`), 404, 'VENUE_NOT_FOUND');
  });
});

// Live availability on the page: what is sold out and until when, why ordering is closed and when it opens,
// and the windows a scheduled order can be for, all on the first paint, judged by the app's clock.
describe('the guest page: availability and ordering hours', () => {
  const HOUR = 3_600_000;
  const en = uiStrings('en');
  const madrid = new When('en', 'Europe/Madrid');
  /** A Wednesday, 12:00 in Madrid (UTC+1 in January). */
  const WED_NOON = Date.parse('2030-01-09T11:00:00Z');

  /** A product's card in the page, from its `<li>` to its end. */
  function cardOf(html: string, productId: string): string {
    const match = new RegExp(`<li class="[^"]*" id="p-${productId}">[\\s\\S]*?</li>`).exec(html);
    assert.ok(match, `the card of ${productId}`);
    return match[0];
  }

  it("greys what is sold out and says until when, in the venue's timezone, before any script runs", async () => {
    clockAt = WED_NOON;
    try {
      const p = await setUpGuestPage(t.app);
      await patchSettings(t.app, p.v, { timezone: 'Europe/Madrid' });
      const back = WED_NOON + 5.5 * HOUR;
      await markAvailability(t.app, p.v, {
        products: [
          { ref: 'soda', available: false, until: new Date(back).toISOString() },
          { ref: 'fries', available: false },
        ],
      });
      const url = `/m/${p.v.slug}`;
      const html = text(await get(url));
      const { burger, fries, soda } = p.ids.productIds;

      assert.match(cardOf(html, soda), /^<li class="card sold-out"/);
      assert.equal(madrid.time(back).replace(/\s/g, ' '), '5:30 PM', 'in Madrid');
      assert.ok(
        cardOf(html, soda).includes(`<p class="availability">${fill(en.soldOutUntil, { when: madrid.time(back) })}</p>`),
        cardOf(html, soda),
      );
      assert.ok(cardOf(html, fries).includes(`<p class="availability">${en.soldOut}</p>`), 'sold out until marked available');
      assert.match(cardOf(html, burger), /^<li class="card" /);
      assert.doesNotMatch(cardOf(html, burger), /availability/);
      const data = dataOf(html);
      assert.equal(data.timeZone, 'Europe/Madrid');
      assert.equal(data.ordering.open, true);
      assert.equal(noticeOf(html), null);

      // A mark ending another day names the day.
      const tomorrow = WED_NOON + 25 * HOUR;
      await markAvailability(t.app, p.v, { products: [{ ref: 'soda', available: false, until: new Date(tomorrow).toISOString() }] });
      const later = text(await get(url));
      assert.ok(
        cardOf(later, soda).includes(`<p class="availability">${fill(en.soldOutUntil, { when: madrid.at(tomorrow, WED_NOON) })}</p>`),
      );
      assert.match(madrid.at(tomorrow, WED_NOON), /^tomorrow 1:00\sPM$/);

      // A mark ends by itself: past it, the card is back with no publish and no request to the API.
      await markAvailability(t.app, p.v, { products: [{ ref: 'soda', available: false, until: new Date(back).toISOString() }] });
      clockAt = back + 1000;
      const afterwards = text(await get(url));
      assert.match(cardOf(afterwards, soda), /^<li class="card" /);
      assert.match(cardOf(afterwards, fries), /^<li class="card sold-out"/);
    } finally {
      clockAt = null;
    }
  });

  it('says why ordering is closed and when it opens, and lists the open windows a scheduled order can be for', async () => {
    const WED_2300 = Date.parse('2030-01-09T22:00:00Z');
    const thuNoon = Date.parse('2030-01-10T11:00:00Z');
    clockAt = WED_2300;
    try {
      const p = await setUpGuestPage(t.app);
      await patchSettings(t.app, p.v, {
        timezone: 'Europe/Madrid',
        openingHours: NOON_TO_TEN,
        orderConfig: { scheduledOrders: { enabled: true, maxDaysAhead: 2 } },
      });
      const url = `/m/${p.v.slug}`;

      // 23:00 on Wednesday: closed until tomorrow 12:00, and orders for later are taken.
      const closed = text(await get(url));
      assert.equal(noticeOf(closed), `${fill(en.closedUntil, { when: madrid.at(thuNoon, WED_2300) })} ${en.orderAhead}`);
      assert.match(noticeOf(closed) as string, /until tomorrow 12:00\sPM/);
      const data = dataOf(closed);
      assert.deepEqual(data.ordering, {
        open: false,
        reason: 'closed',
        opensAt: '2030-01-10T11:00:00.000Z',
        closesAt: null,
        prepTimeMinutes: 15,
        scheduledOrders: { enabled: true, maxDaysAhead: 2 },
      });
      assert.deepEqual(data.orderTypes, ['pickup', 'delivery'], 'closed now, the page still takes orders for later');
      // The windows from now to a day past maxDaysAhead: 12:00-22:00 in Madrid each day.
      const day = (date: string) => [Date.parse(`${date}T11:00:00Z`), Date.parse(`${date}T21:00:00Z`)];
      assert.deepEqual(data.windows, [day('2030-01-10'), day('2030-01-11'), day('2030-01-12')]);

      // Past the venue's midnight the page is made again: "tomorrow" has become today.
      clockAt = Date.parse('2030-01-09T23:30:00Z');
      const afterMidnight = text(await get(url));
      assert.equal(noticeOf(afterMidnight), `${fill(en.closedUntil, { when: madrid.time(thuNoon) })} ${en.orderAhead}`);

      // Paused at 13:00 until 13:30.
      clockAt = Date.parse('2030-01-10T12:00:00Z');
      const resumes = Date.parse('2030-01-10T12:30:00Z');
      await patchSettings(t.app, p.v, { orderConfig: { pausedUntil: new Date(resumes).toISOString() } });
      const paused = text(await get(url));
      assert.equal(noticeOf(paused), `${fill(en.pausedUntil, { when: madrid.time(resumes) })} ${en.orderAhead}`);
      assert.equal(dataOf(paused).ordering.reason, 'paused');

      // Without scheduled orders: browse only, and no windows.
      await patchSettings(t.app, p.v, { orderConfig: { scheduledOrders: { enabled: false } } });
      const pausedOnly = text(await get(url));
      assert.equal(noticeOf(pausedOnly), `${fill(en.pausedUntil, { when: madrid.time(resumes) })} ${en.browseMenu}`);
      assert.deepEqual(dataOf(pausedOnly).windows, []);
      const es = uiStrings('es');
      const spanish = text(await get(`${url}?lang=es`));
      assert.equal(noticeOf(spanish), `${fill(es.pausedUntil, { when: new When('es', 'Europe/Madrid').time(resumes) })} ${es.browseMenu}`);

      // Not accepting orders at all: the notice of old, and nothing to order.
      await patchSettings(t.app, p.v, { orderConfig: { acceptingOrders: false } });
      const off = text(await get(url));
      assert.equal(noticeOf(off), en.closedNow);
      assert.deepEqual(dataOf(off).orderTypes, []);
    } finally {
      clockAt = null;
    }
  });

  it("shows a scheduled order's time on its status page", async () => {
    const now = Date.parse('2030-01-10T12:00:00Z');
    clockAt = now;
    try {
      const p = await setUpGuestPage(t.app);
      await patchSettings(t.app, p.v, {
        timezone: 'Europe/Madrid',
        openingHours: NOON_TO_TEN,
        orderConfig: { scheduledOrders: { enabled: true, maxDaysAhead: 2 } },
      });
      const slot = '2030-01-11T18:00:00.000Z';
      const { token } = await orderToken(p, { scheduledFor: slot });
      const html = text(await get(`/m/${p.v.slug}/orders/${token}`));
      const said = fill(en.scheduledFor, { when: madrid.at(Date.parse(slot), now, true) });
      assert.match(said, /^Scheduled for tomorrow 7:00\sPM$/);
      assert.ok(html.includes(`<p class="scheduled" id="status-scheduled">${said}</p>`), html);
      const asap = await orderToken(p);
      assert.doesNotMatch(text(await get(`/m/${p.v.slug}/orders/${asap.token}`)), /status-scheduled/);
    } finally {
      clockAt = null;
    }
  });
});

// Food information on the page: each dish's allergens and dietary labels in words, its traces, spice and
// nutrition, in the server's first paint and in the page's language; the names of that language
// only in the page; the filter's codes on the cards.
describe('the guest page: food information', () => {
  const en = uiStrings('en');
  let p: GuestPageFixture;
  before(async () => {
    p = await setUpGuestPage(t.app, FOOD_MENU);
    await patchSettings(t.app, p.v, { enabledLanguages: ['en', 'es', 'ar', 'de', 'uk'] });
  });

  function cardOf(html: string, productId: string): string {
    const match = new RegExp(`<li class="[^"]*" id="p-${productId}"[^>]*>[\\s\\S]*?</li>`).exec(html);
    assert.ok(match, `the card of ${productId}`);
    return match[0];
  }
  const page = async (lang: string) => {
    const res = await get(`/m/${p.v.slug}?lang=${lang}`);
    assert.equal(res.status, 200);
    const html = text(res);
    assertSafeHtml(html, `food information in ${lang}`);
    return html;
  };
  /** Every allergen and label name of a language. */
  const namesIn = (language: keyof typeof FOOD_NAMES) => [
    ...Object.values(FOOD_NAMES[language].allergens),
    ...Object.values(FOOD_NAMES[language].labels),
  ];

  it('says allergens, traces, labels, spice and nutrition per portion in words, before any script runs', async () => {
    const html = await page('en');
    const { burger, fries, soda } = p.ids.productIds;
    const burgerCard = cardOf(html, burger);
    // Declared gluten and the pickles' mustard; codes for the filter, words for the guest.
    assert.match(burgerCard, /^<li class="card" id="p-[^"]+" data-allergens="gluten mustard">/);
    assert.ok(
      burgerCard.includes('<p class="meta allergens"><span class="label">Allergens:</span> Cereals containing gluten, Mustard</p>'),
      burgerCard,
    );
    assert.ok(burgerCard.includes('<p class="meta may-contain"><span class="label">May contain:</span> Sesame seeds</p>'), burgerCard);
    assert.ok(burgerCard.includes('<p class="tags"><span class="tag tag-spice">Spicy: 2 of 3</span></p>'), burgerCard);
    const table =
      /<details class="facts"><summary>Nutrition per portion<\/summary><table class="nutrition">([\s\S]*?)<\/table><\/details>/.exec(
        burgerCard,
      )?.[1];
    assert.ok(table, burgerCard);
    const rows = [...table.matchAll(/<tr( class="part")?><th scope="row">([^<]+)<\/th><td>([^<]+)<\/td><\/tr>/g)].map((m) => [
      m[2],
      m[3],
      !!m[1],
    ]);
    assert.deepEqual(
      rows,
      [
        ['Calories', '1,250 kcal', false],
        ['Fat', '32.5 g', false],
        ['of which saturates', '12 g', true],
        ['Carbohydrate', '48 g', false],
        ['of which sugars', '6.5 g', true],
        ['Protein', '35 g', false],
        ['Salt', '2.1 g', false],
      ],
      'the nutrients given, fibre not',
    );

    const friesCard = cardOf(html, fries);
    assert.match(friesCard, /^<li class="card" id="p-[^"]+" data-labels="vegetarian vegan gluten_free">/, 'traces are not for the filter');
    assert.ok(
      friesCard.includes(
        '<p class="tags"><span class="tag tag-diet">Vegetarian</span> <span class="tag tag-diet">Vegan</span> <span class="tag tag-diet">Gluten-free</span></p>',
      ),
      friesCard,
    );
    assert.doesNotMatch(friesCard, /Not spicy|class="meta allergens"/, 'not spicy and no allergen: nothing on the card');
    assert.ok(friesCard.includes('<summary>Nutrition per portion</summary>'), 'calories alone still make the table');
    // Only what a dish says: no traces, no nutrition.
    const sodaCard = cardOf(html, soda);
    assert.match(sodaCard, /^<li class="card" id="p-[^"]+" data-allergens="sulphites" data-labels="vegan">/);
    assert.doesNotMatch(sodaCard, /may-contain|details/);

    // The filter, in its place from the first paint and enabled by the script (nothing moves when it
    // runs); the line under the menu; the names of English only.
    assert.ok(
      html.includes(
        `<div class="filter-bar" id="filter-bar"><button type="button" class="filter-open" id="open-filter" aria-haspopup="dialog" disabled>${en.filter}</button>`,
      ),
    );
    assert.ok(html.includes(`<p class="food-note">${en.foodNote}</p>\n</main>`), 'under the menu');
    assert.deepEqual(dataOf(html).food, FOOD_NAMES.en);
  });

  it("speaks the page's language: the regulation's names in German and Spanish, and the usual names in Ukrainian", async () => {
    const { burger, fries } = p.ids.productIds;
    const de = uiStrings('de');
    const german = await page('de');
    assert.ok(
      cardOf(german, burger).includes('<span class="label">Allergene:</span> Glutenhaltiges Getreide, Senf</p>'),
      cardOf(german, burger),
    );
    assert.ok(cardOf(german, burger).includes('<span class="label">Kann Spuren enthalten:</span> Sesamsamen</p>'));
    assert.ok(cardOf(german, burger).includes('<span class="tag tag-spice">Scharf: 2 von 3</span>'));
    assert.ok(
      cardOf(german, burger).includes(
        '<tr><th scope="row">Kalorien</th><td>1.250 kcal</td></tr><tr><th scope="row">Fett</th><td>32,5 g</td></tr><tr class="part"><th scope="row">davon gesättigte Fettsäuren</th><td>12 g</td></tr>',
      ),
    );
    assert.ok(
      cardOf(german, fries).includes(
        '<span class="tag tag-diet">Vegetarisch</span> <span class="tag tag-diet">Vegan</span> <span class="tag tag-diet">Glutenfrei</span>',
      ),
    );
    assert.ok(german.includes(`<p class="food-note">${de.foodNote}</p>`));
    assert.deepEqual(dataOf(german).food, FOOD_NAMES.de);

    const spanish = await page('es');
    assert.ok(cardOf(spanish, burger).includes('<span class="label">Alérgenos:</span> Cereales que contengan gluten, Mostaza</p>'));
    assert.ok(spanish.includes(`<p class="food-note">${uiStrings('es').foodNote}</p>`));

    // Ukrainian: the page's words and the names both (the page speaks every language of the reference).
    const ukrainian = await page('uk');
    assert.ok(
      cardOf(ukrainian, burger).includes('<span class="label">Алергени:</span> Зернові, що містять глютен, Гірчиця</p>'),
      cardOf(ukrainian, burger),
    );
    assert.ok(cardOf(ukrainian, fries).includes('<span class="tag tag-diet">Вегетаріанське</span>'));
    assert.deepEqual(dataOf(ukrainian).food, FOOD_NAMES.uk);

    // Each page carries the names of its own language, no other's (the script has none).
    for (const [html, own] of [
      [german, 'de'],
      [spanish, 'es'],
      [ukrainian, 'uk'],
    ] as const) {
      const foreign = (['en', 'fr', 'it', 'pl', 'cs', 'ru', 'ja'] as const)
        .flatMap((l) => namesIn(l))
        .filter((name) => !namesIn(own).includes(name) && name.length > 5);
      const said = (name: string) => new RegExp(`(?<!\\p{L})${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\p{L})`, 'u').test(html);
      assert.deepEqual(foreign.filter(said), [], `${own}: only its own names`);
    }
  });

  it('shows no filter on a menu whose dishes say nothing about food, and the line under the menu all the same', async () => {
    const bare = await setUpGuestPage(t.app);
    const plain = text(await get(`/m/${bare.v.slug}`));
    assert.doesNotMatch(plain, /filter-bar|class="meta allergens"|class="tags"|<details/);
    assert.ok(plain.includes(`<p class="food-note">${en.foodNote}</p>`));
  });
});
