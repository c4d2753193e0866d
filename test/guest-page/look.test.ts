import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { BADGE_COLORS, cardStyleOf } from '../../src/modules/guest-page/page.render.js';
import { tableLabel, uiStrings } from '../../src/modules/guest-page/shared/strings.js';
import { AA_CONTRAST, contrastRatio } from '../../src/shared/contrast.js';
import { call, type TestApp } from '../helpers/app.js';
import { GUEST_PAGE_MENU, patchSettings, setUpGuestPage, type GuestPageFixture } from '../helpers/guest-page.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { expectStatus, orderBody, publish } from '../helpers/orders.js';
import { chromiumSkip } from '../helpers/chromium.js';
import { GuestBrowser, layoutShift, lookShotsDir, PHONE, seriousViolations } from './chromium.js';

// The guest page's look: the three card styles, badges in their colour,
// the venue's accent colour through a stylesheet of this origin, and a table's name as written.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CSS_SOURCE = path.join(ROOT, 'web/guest/guest.css');
const STYLES = ['premium', 'compact', 'minimalism'] as const;
/** An accent just over AA against white (4.55:1), as settings accept: the page must keep AA with it. */
const ACCENT = '#9c5cb5';

/** GUEST_PAGE_MENU with a badge of every colour, and a product per colour beyond the three it has. */
const LOOK_MENU = {
  ...GUEST_PAGE_MENU,
  products: [
    ...GUEST_PAGE_MENU.products.map((p) => ({
      ...p,
      ...(
        {
          burger: { badgeLabel: 'Hot', badgeColor: 'RED' },
          fries: { badgeLabel: 'New', badgeColor: 'GREEN' },
          soda: { badgeLabel: 'Cold', badgeColor: 'YELLOW' },
        } as Record<string, object>
      )[p.externalId],
    })),
    ...(['PURPLE', 'BLUE', 'GREY'] as const).map((color, i) => ({
      externalId: `dish-${color.toLowerCase()}`,
      name: `Dish ${i + 1}`,
      description: 'A plate of the day with a longer description that a compact row cuts to one line',
      priceMinor: 700 + i * 100,
      categoryExternalId: 'mains',
      sortOrder: 10 + i,
      badgeLabel: `Label ${color.toLowerCase()}`,
      badgeColor: color,
    })),
  ],
};

describe('badge colours and names', () => {
  it('gives every badge colour of the reference a class whose text passes WCAG AA on its background', () => {
    const css = fs.readFileSync(CSS_SOURCE, 'utf8');
    for (const color of BADGE_COLORS) {
      const rule = new RegExp(`\\.badge-${color.toLowerCase()}\\s*\\{([^}]*)\\}`).exec(css)?.[1];
      assert.ok(rule, `.badge-${color.toLowerCase()} in guest.css`);
      const background = /background:\s*(#[0-9a-f]{6})/i.exec(rule)?.[1];
      const text = /(?:^|;)\s*color:\s*(#[0-9a-f]{6})/i.exec(rule)?.[1];
      assert.ok(background && text, `${color}: a #rrggbb background and colour`);
      const ratio = contrastRatio(text.toLowerCase(), background.toLowerCase());
      assert.ok(ratio >= AA_CONTRAST, `${color}: ${text} on ${background} is ${ratio.toFixed(2)}:1, under ${AA_CONTRAST}:1`);
    }
  });

  it('says a table name as written and adds the word only to a bare number', () => {
    const en = uiStrings('en');
    assert.equal(tableLabel('Table 5', en), 'Table 5');
    assert.equal(tableLabel('Terrace 2', en), 'Terrace 2');
    assert.equal(tableLabel('5', en), 'Table 5');
    assert.equal(tableLabel('5', uiStrings('es')), 'Mesa 5');
    assert.equal(tableLabel('طاولة ٥', uiStrings('ar')), 'طاولة ٥');
  });

  it("lets a category's own card style win over the venue's", () => {
    assert.equal(cardStyleOf('premium', 'compact'), 'premium');
    assert.equal(cardStyleOf(null, 'compact'), 'compact');
    assert.equal(cardStyleOf(null, 'something-else'), 'minimalism');
  });
});

describe('the guest page look in Chromium', { skip: chromiumSkip, timeout: 240_000 }, () => {
  let lab: GuestBrowser;
  let t: TestApp;
  let origin: string;
  let g: GuestPageFixture;
  /** Screenshots for a human to look at (not committed). */
  let shots: string;

  before(async () => {
    shots = lookShotsDir();
    lab = await GuestBrowser.start();
    ({ t, origin } = lab);
    g = await setUpGuestPage(t.app, LOOK_MENU);
    // Square photos (the media rules take square ones only) on three dishes.
    for (const [ref, size] of [
      ['burger', [600, 600]],
      ['fries', [600, 600]],
      ['dish-purple', [600, 600]],
    ] as const) {
      const res = await call(t.app, 'POST', `/v1/products/${ref}/image`, {
        key: g.v.key,
        body: { base64: toBase64(await makeImage(size[0], size[1], 'jpeg', { noise: true })) },
      });
      expectStatus(res, 201);
    }
    await publish(t.app, g.v);
  });
  after(() => lab?.close());

  /** A phone-sized page that reaches the test server only; images of the media origin come from it too. */
  const open = (url: string): Promise<{ page: Page; problems: string[] }> => lab.open(url);

  /** Every card's width and its photo's rendered box (null without one), and the list's style class. */
  // `ratio` is the image's own height over width (its width and height attributes, from the stored variant).
  const cards = (page: Page) =>
    page.evaluate<{ list: string; card: number; image: { w: number; h: number; ratio: number } | null }[]>(`
    Array.from(document.querySelectorAll('.card')).map((card) => {
      const img = card.querySelector('img.card-image');
      const box = img ? img.getBoundingClientRect() : null;
      return {
        list: card.closest('.cards').className,
        card: card.getBoundingClientRect().width,
        image: box ? { w: box.width, h: box.height, ratio: Number(img.getAttribute('height')) / Number(img.getAttribute('width')) } : null,
      };
    })`);

  const tableUrl = () => `${origin}/t/${g.table.token}`;

  for (const style of STYLES) {
    it(`lays out the ${style} cards as their name says, with no serious axe violation in English and Arabic`, async () => {
      await patchSettings(t.app, g.v, { cardStyle: style });
      const { page, problems } = await open(`${tableUrl()}?lang=en`);
      await page.waitForLoadState('networkidle');
      assert.ok(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth'), 'nothing wider than the phone');
      const all = await cards(page);
      assert.ok(all.length >= 6);
      for (const c of all) assert.match(c.list, new RegExp(`\\bcards-${style}\\b`));
      const withImage = all.filter((c) => c.image !== null);
      if (style === 'premium') {
        assert.equal(withImage.length, 3, 'each photo is shown');
        for (const c of withImage) {
          const image = c.image as { w: number; h: number; ratio: number };
          assert.ok(Math.abs(image.w - c.card) <= 2, `premium photo as wide as its card (${image.w} of ${c.card})`);
          assert.ok(image.w >= 300, 'a large photo on a phone');
          // The photo's own shape: the rendered box keeps the image's aspect ratio (nothing cropped).
          assert.ok(Math.abs(image.h / image.w - image.ratio) < 0.02, `photo in its own shape (${image.h}/${image.w} vs ${image.ratio})`);
        }
      } else if (style === 'compact') {
        assert.equal(withImage.length, 3);
        for (const c of withImage) assert.ok((c.image as { w: number }).w <= 64, `a small thumbnail (${c.image?.w}px)`);
        // Dense rows: the six dishes fit in a phone screen's height and a half.
        const height = await page.evaluate<number>(`document.querySelector('.cards').getBoundingClientRect().height`);
        assert.ok(height < PHONE.height * 1.5, `compact list height ${height}`);
      } else {
        assert.equal(withImage.length, 0, 'minimalism is text first: no photo');
      }
      if (style === 'premium') {
        // The first photo, in view, has loaded from the media origin (the CSP lets it in).
        assert.ok(await page.evaluate<boolean>(`document.querySelector('img.card-image').naturalWidth > 0`), 'the photo loaded');
      }
      // The first screen's photos are asked for at once, a premium one first when the menu opens with
      // it (the largest paint); the rest wait until they near the screen.
      const loading = await page.evaluate<string[]>(`[...document.querySelectorAll('img.card-image')].map((img) =>
        img.getAttribute('loading') + (img.getAttribute('fetchpriority') ? ' ' + img.getAttribute('fetchpriority') : '')
        + (img.closest('section.category') === document.querySelector('section.category') ? ' first' : ''))`);
      if (style !== 'minimalism') {
        const [head, ...rest] = loading;
        assert.equal(
          head,
          `eager${style === 'premium' && head.endsWith('first') ? ' high' : ''}${head.endsWith('first') ? ' first' : ''}`,
          loading.join(),
        );
        assert.match(loading[1], /^eager(?: first)?$/, loading.join());
        for (const later of rest.slice(1)) assert.match(later, /^lazy/, loading.join());
      }
      // Nothing moved as the photos and the script came in: the space of each was there from the first paint.
      assert.ok((await layoutShift(page)) < 0.01, `layout shift ${await layoutShift(page)}`);
      assert.deepEqual(await seriousViolations(page), [], `${style} in English`);
      await page.screenshot({ path: path.join(shots, `card-${style}.png`), fullPage: false });

      await page.goto(`${tableUrl()}?lang=ar`);
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
      assert.deepEqual(await seriousViolations(page), [], `${style} in Arabic`);
      await page.screenshot({ path: path.join(shots, `card-${style}-ar.png`), fullPage: false });
      assert.deepEqual(problems, []);
    });
  }

  it("lets a category's own card style win over the venue's", async () => {
    await patchSettings(t.app, g.v, { cardStyle: 'compact' });
    const sync = await call(t.app, 'POST', '/v1/sync', {
      key: g.v.key,
      body: { categories: LOOK_MENU.categories.map((c) => (c.externalId === 'mains' ? { ...c, cardStyle: 'premium' } : c)) },
    });
    expectStatus(sync, 201);
    await publish(t.app, g.v);
    const { page } = await open(tableUrl());
    const lists = await page.evaluate<{ id: string; className: string }[]>(
      `Array.from(document.querySelectorAll('.category')).map((s) => ({ id: s.id, className: s.querySelector('.cards').className }))`,
    );
    const mains = lists.find((l) => l.id === `c-${g.ids.guestMenu.categories.find((c: { name: string }) => c.name === 'Mains').id}`);
    assert.match(mains?.className ?? '', /cards-premium/, 'Mains: its own premium');
    const other = lists.find((l) => l.id === 'c-other');
    assert.match(other?.className ?? '', /cards-compact/, "dishes without a category: the venue's compact");
    // Back to inheriting, for the tests after.
    expectStatus(
      await call(t.app, 'POST', '/v1/sync', {
        key: g.v.key,
        body: { categories: LOOK_MENU.categories.map((c) => ({ ...c, cardStyle: null })) },
      }),
      201,
    );
    await publish(t.app, g.v);
  });

  it('draws each badge in its colour class', async () => {
    const { page } = await open(tableUrl());
    const badges = await page.evaluate<{ text: string; className: string; background: string }[]>(`
      Array.from(document.querySelectorAll('.card .badge')).map((b) => ({ text: b.textContent, className: b.className, background: getComputedStyle(b).backgroundColor }))`);
    const byText = new Map(badges.map((b) => [b.text, b]));
    for (const [text, color] of [
      ['Hot', 'red'],
      ['New', 'green'],
      ['Cold', 'yellow'],
      ['Label purple', 'purple'],
      ['Label blue', 'blue'],
      ['Label grey', 'grey'],
    ]) {
      assert.match(byText.get(text)?.className ?? '', new RegExp(`\\bbadge-${color}\\b`), `${text}: badge-${color}`);
    }
    assert.equal(new Set(badges.map((b) => b.background)).size, 6, 'six colours, six backgrounds');
  });

  it("applies the venue's accent colour through a stylesheet of this origin, with the CSP unchanged", async () => {
    await patchSettings(t.app, g.v, { theme: { accentColor: ACCENT } });
    const res = await call(t.app, 'GET', `/t/${g.table.token}`);
    const html = res.raw.body;
    const href = /<link rel="stylesheet" href="(\/assets\/guest\/accent-[0-9a-f]{6}\.css)">/.exec(html)?.[1];
    assert.equal(href, `/assets/guest/accent-${ACCENT.slice(1)}.css`);
    assert.doesNotMatch(html, /<style|style="/, 'no inline style');
    assert.match(String(res.headers['content-security-policy']), /style-src 'self';/);
    const sheet = await call(t.app, 'GET', href as string);
    expectStatus(sheet, 200);
    assert.match(String(sheet.headers['content-type']), /^text\/css/);
    assert.match(String(sheet.headers['cache-control']), /immutable/);
    expectStatus(await call(t.app, 'GET', '/assets/guest/accent-zzzzzz.css'), 404);

    for (const style of STYLES) {
      await patchSettings(t.app, g.v, { cardStyle: style });
      const { page, problems } = await open(`${tableUrl()}?lang=en`);
      await page.waitForLoadState('networkidle');
      assert.equal((await page.evaluate<string>(`getComputedStyle(document.documentElement).getPropertyValue('--accent')`)).trim(), ACCENT);
      assert.equal(
        await page.evaluate<string>(`getComputedStyle(document.querySelector('.langs a[aria-current]')).backgroundColor`),
        'rgb(156, 92, 181)',
      );
      assert.deepEqual(await seriousViolations(page), [], `${style} with the accent`);
      assert.deepEqual(problems, [], 'nothing blocked by the CSP');
      if (style === 'premium') await page.screenshot({ path: path.join(shots, 'accent.png') });
    }

    // The status page wears it too.
    const order = await call(t.app, 'POST', `/guest/v1/venues/${g.v.slug}/orders`, { body: orderBody(g.ids) });
    expectStatus(order, 201);
    const status = await open(`${origin}/m/${g.v.slug}/orders/${String(order.headers.location).split('/').at(-1)}`);
    assert.equal(
      (await status.page.evaluate<string>(`getComputedStyle(document.documentElement).getPropertyValue('--accent')`)).trim(),
      ACCENT,
    );
    assert.deepEqual(await seriousViolations(status.page), [], 'the status page with the accent');
    await patchSettings(t.app, g.v, { theme: { accentColor: null } });
  });

  it('shows a table named "Table 7" as written on the menu, the cart and the status page', async () => {
    const created = await call(t.app, 'POST', '/v1/tables', { key: g.v.key, body: { name: 'Table 7' } });
    expectStatus(created, 201);
    const token = String(created.body.qrUrl).split('/t/')[1];
    const { page, problems } = await open(`${origin}/t/${token}`);
    assert.equal((await page.textContent('.table-name'))?.trim(), 'Table 7');
    assert.equal(await page.title(), `${await page.textContent('h1')} · Table 7`);
    // The cart names the table as written too.
    await page.locator('button.add[data-product="' + g.ids.productIds.fries + '"]').click();
    await page.locator('#pd-add').click();
    await page.locator('#cart-bar button').click();
    const cartText = await page.locator('#cart-dialog').innerText();
    assert.match(cartText, /Table 7/);
    assert.doesNotMatch(cartText, /Table Table/);

    const res = await call(t.app, 'POST', `/guest/v1/venues/${g.v.slug}/orders`, {
      body: orderBody(g.ids, { type: 'dine_in', tableId: created.body.id }),
    });
    expectStatus(res, 201);
    const status = await open(`${origin}/m/${g.v.slug}/orders/${String(res.headers.location).split('/').at(-1)}`);
    assert.equal((await status.page.textContent('.table-name'))?.trim(), 'Table 7');
    assert.deepEqual(problems, []);
  });

  it('shows the dish photo at the top of its dialog, whole', async () => {
    await patchSettings(t.app, g.v, { cardStyle: 'compact' });
    const { page, problems } = await open(tableUrl());
    await page.locator(`button.add[data-product="${g.ids.productIds.fries}"]`).click();
    const dialog = page.locator('dialog[open]');
    await dialog.locator('img.dialog-image').waitFor();
    const first = await page.evaluate<string>(`document.querySelector('dialog[open] form').firstElementChild.tagName`);
    assert.equal(first, 'IMG', 'the photo comes first');
    const box = await page.evaluate<{ w: number; h: number; dialog: number }>(
      `(() => { const d = document.querySelector('dialog[open]'); const r = d.querySelector('img.dialog-image').getBoundingClientRect(); return { w: r.width, h: r.height, dialog: d.getBoundingClientRect().width }; })()`,
    );
    assert.ok(Math.abs(box.w - box.dialog) <= 2, `the photo spans the dialog (${box.w} of ${box.dialog})`);
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: path.join(shots, 'dialog-photo.png') });
    await page.keyboard.press('Escape');
    // A dish without a photo has none.
    await page.locator(`button.add[data-product="${g.ids.productIds['dish-blue']}"]`).click();
    await page.locator('dialog[open] #pd-title').waitFor();
    assert.equal(await page.locator('dialog[open] img.dialog-image').count(), 0);
    assert.deepEqual(problems, []);
    console.log(`# guest page look screenshots: ${shots}`);
  });
});
