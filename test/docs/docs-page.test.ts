import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { API_REFERENCES, belongsTo } from '../../src/modules/docs/documents.js';
import { call, startApp, type TestApp } from '../helpers/app.js';
import { chromiumSkip } from '../helpers/chromium.js';

// GET /docs: the API reference in the browser, one page per audience, on Swagger UI
// served from its npm package. docs/api-docs.md says what the page promises; this holds it.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/** JS + CSS a first visit downloads, compressed (docs/api-docs.md: why 500 kB). */
const SCRIPT_AND_STYLE_BUDGET_BYTES = 500 * 1024;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

function operationCount(doc: any): number {
  return Object.values<Record<string, unknown>>(doc.paths).reduce(
    (n, item) => n + Object.keys(item).filter((k) => HTTP_METHODS.includes(k)).length,
    0,
  );
}

function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]);
}

describe('GET /docs: the API reference pages', () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it('serves a page per API with a strict CSP, no inline script and links to the other two', async () => {
    for (const api of API_REFERENCES) {
      const res = await call(t.app, 'GET', api.page);
      assert.equal(res.status, 200, api.page);
      assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /style-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      const html = String(res.body);
      assert.deepEqual([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)], [], 'no inline script');
      assert.doesNotMatch(html, /\sstyle=|<style/, 'no inline style');
      assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, 'nothing from another origin');
      for (const other of API_REFERENCES) assert.ok(html.includes(`href="${other.page}"`), `${api.page} links ${other.page}`);
      assert.ok(html.includes(`data-url="/docs/${api.id}/openapi.json"`));
    }
  });

  it('cuts the generated document into three valid references that share out every path', async () => {
    const full = (await call(t.app, 'GET', '/v1/openapi.json')).body;
    const seen = new Map<string, string>();
    for (const api of API_REFERENCES) {
      const res = await call(t.app, 'GET', `/docs/${api.id}/openapi.json`);
      assert.equal(res.status, 200);
      const doc = res.body;
      await SwaggerParser.validate(structuredClone(doc));
      assert.ok(Object.keys(doc.paths).length > 0, api.id);
      for (const p of Object.keys(doc.paths)) {
        assert.ok(belongsTo(p, api), `${p} in ${api.id}`);
        assert.equal(seen.get(p), undefined, `${p} in ${seen.get(p)} and ${api.id}`);
        seen.set(p, api.id);
        assert.deepEqual(doc.paths[p], full.paths[p]);
      }
    }
    assert.deepEqual([...seen.keys()].sort(), Object.keys(full.paths).sort(), 'every path in exactly one reference');

    const guest = (await call(t.app, 'GET', '/docs/guest/openapi.json')).body;
    assert.deepEqual(Object.keys(guest.components.securitySchemes ?? {}), [], 'the guest API takes no credentials');
    const operator = (await call(t.app, 'GET', '/docs/operator/openapi.json')).body;
    assert.deepEqual(Object.keys(operator.components.securitySchemes), ['adminToken']);
  });

  it('serves Swagger UI from the package, versioned, with year-long caching, ETags and compression', async () => {
    const html = String((await call(t.app, 'GET', '/docs')).body);
    const urls = assetUrls(html);
    assert.equal(urls.length, 5, urls.join(', '));
    const version = createRequire(import.meta.url)('swagger-ui-dist/package.json').version as string;
    const bundleUrl = urls.find((u) => u.endsWith('.js') && u.includes('swagger-ui-bundle'));
    assert.equal(bundleUrl, `/docs/assets/swagger-ui-bundle-${version}.js`);

    const plain = await t.app.inject({ url: bundleUrl });
    assert.equal(plain.statusCode, 200);
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers['x-content-type-options'], 'nosniff');
    assert.equal(plain.headers['content-encoding'], undefined);
    const onDisk = fs.readFileSync(
      path.join(path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')), 'swagger-ui-bundle.js'),
    );
    assert.ok(plain.rawPayload.equals(onDisk), 'the package file as it is');

    const br = await t.app.inject({ url: bundleUrl, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.ok(br.rawPayload.length < onDisk.length / 3, `${br.rawPayload.length} bytes compressed`);
    const again = await t.app.inject({ url: bundleUrl, headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');

    for (const url of urls) {
      const res = await t.app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers.etag), /^"[\w-]+"$/, url);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', url);
    }
    const page = await t.app.inject({ url: '/docs/guest' });
    const revalidated = await t.app.inject({ url: '/docs/guest', headers: { 'if-none-match': String(page.headers.etag) } });
    assert.equal(revalidated.statusCode, 304);
  });

  it('answers an unknown page, document or asset with the error envelope', async () => {
    for (const url of [
      '/docs/nope',
      '/docs/v1',
      '/docs/nope/openapi.json',
      '/docs/assets/swagger-ui-bundle-0.0.0.js',
      '/docs/assets/..%2Fpackage.json',
    ]) {
      const res = await call(t.app, 'GET', url);
      assert.equal(res.status, 404, url);
      assert.equal(res.body.statusCode, 404, url);
      assert.equal(typeof res.body.requestId, 'string', url);
      assert.equal(res.body.path, url.split('?')[0], url);
    }
  });
});

describe('GET /docs in Chromium', { skip: chromiumSkip, timeout: 180_000 }, () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  const documents = new Map<string, any>();

  before(async () => {
    t = await startApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    for (const api of API_REFERENCES) documents.set(api.id, (await call(t.app, 'GET', `/docs/${api.id}/openapi.json`)).body);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  interface Visit {
    page: Page;
    problems: string[];
    foreign: string[];
    /** Compressed bytes of each response by resource type. */
    transferred: { url: string; type: string; bytes: number; encoding?: string }[];
  }

  async function visit(url: string): Promise<Visit> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const visit: Visit = { page, problems: [], foreign: [], transferred: [] };
    // Nothing may leave the machine: record any request to another origin, and never send it.
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) visit.foreign.push(request.url());
    });
    await context.route(
      (u) => u.origin !== origin,
      (route) => route.abort(),
    );
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') visit.problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => visit.problems.push(`page error: ${error.message}`));
    page.on('requestfinished', async (request) => {
      const response = await request.response();
      const sizes = await request.sizes();
      visit.transferred.push({
        url: request.url(),
        type: request.resourceType(),
        bytes: sizes.responseBodySize,
        encoding: response?.headers()['content-encoding'],
      });
    });
    const response = await page.goto(`${origin}${url}`);
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self'/);
    return visit;
  }

  async function seriousViolations(page: Page): Promise<string[]> {
    await page.evaluate(axe.source);
    return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.impact + ' ' + v.id + ': ' + v.nodes.slice(0, 3).map((n) => n.html.slice(0, 120)).join(' | ')))`);
  }

  /** Every operation of the reference is on the page, by method and path. */
  async function assertOperations(page: Page, doc: any): Promise<void> {
    const blocks = page.locator('.opblock');
    await blocks.first().waitFor({ timeout: 15_000 });
    assert.equal(await blocks.count(), operationCount(doc));
    // Read in one round trip: a locator per operation cost seconds on the integrator reference.
    const shown = await page.evaluate<string[]>(`[...document.querySelectorAll('.opblock')].map((block) =>
      [...block.classList].filter((c) => /^opblock-(get|post|put|patch|delete|head|options)$/.test(c)).map((c) => c.slice(8)).join()
      + ' ' + block.querySelector('.opblock-summary-path')?.getAttribute('data-path'))`);
    const expected = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((k) => HTTP_METHODS.includes(k))
        .map((method) => `${method} ${p}`),
    );
    assert.deepEqual(shown.sort(), expected.sort());
  }

  it('shows every integrator operation with no console error, no foreign request, no serious axe violation, within the size budget', async () => {
    const { page, problems, foreign, transferred } = await visit('/docs');
    const doc = documents.get('v1');
    await assertOperations(page, doc);
    await page.waitForLoadState('networkidle');
    assert.equal(await page.locator('nav a[aria-current="page"]').innerText(), 'Integrator API /v1');

    const shot = path.join(os.tmpdir(), 'carta-docs.png');
    await page.screenshot({ path: shot });
    assert.ok(fs.statSync(shot).size > 20_000, `a screenshot with content at ${shot}`);
    assert.deepEqual(await seriousViolations(page), [], 'as loaded');

    // The sync, opened and put in "Try it out": its parameters, body and responses.
    const sync = page.locator('.opblock-post').filter({ has: page.locator('.opblock-summary-path[data-path="/v1/sync"]') });
    await sync.locator('.opblock-summary-control').click();
    await sync.locator('.try-out__btn').click();
    await sync.locator('textarea.body-param__text').waitFor();
    assert.deepEqual(await seriousViolations(page), [], 'with POST /v1/sync open in Try it out');

    assert.deepEqual(problems, []);
    assert.deepEqual(foreign, []);
    const scriptAndStyle = transferred.filter((r) => r.type === 'script' || r.type === 'stylesheet');
    assert.equal(scriptAndStyle.length, 4, scriptAndStyle.map((r) => r.url).join(', '));
    for (const r of scriptAndStyle) assert.ok(r.encoding === 'br' || r.encoding === 'gzip', `${r.url} compressed`);
    const bytes = scriptAndStyle.reduce((n, r) => n + r.bytes, 0);
    assert.ok(bytes > 0 && bytes <= SCRIPT_AND_STYLE_BUDGET_BYTES, `JS + CSS ${bytes} bytes, budget ${SCRIPT_AND_STYLE_BUDGET_BYTES}`);
    await page.context().close();
  });

  it('shows the guest and operator references on pages of their own, each operation open with no serious axe violation', async () => {
    for (const api of API_REFERENCES.filter((a) => a.id !== 'v1')) {
      const { page, problems, foreign } = await visit(api.page);
      const doc = documents.get(api.id);
      await assertOperations(page, doc);
      assert.equal(await page.locator('nav a[aria-current="page"]').innerText(), `${api.label} ${api.base}`);
      const v1Paths = await page.locator('.opblock-summary-path[data-path^="/v1/"]').count();
      assert.equal(v1Paths, 0, `${api.page} shows no /v1 operation`);
      await page.screenshot({ path: path.join(os.tmpdir(), `carta-docs-${api.id}.png`) });

      // Every operation opened at once (a click each through the driver took seconds).
      await page.evaluate(`document.querySelectorAll('.opblock-summary-control').forEach((toggle) => toggle.click())`);
      assert.equal(await page.locator('.opblock.is-open').count(), operationCount(doc));
      await page.locator('.opblock.is-open .responses-wrapper').first().waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual(await seriousViolations(page), [], `${api.page} with every operation open`);
      if (api.id === 'operator') {
        // "Try it out" reaches this server under the CSP (connect-src 'self'): the readiness probe answers.
        const ready = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/ready"]') });
        await ready.locator('.try-out__btn').click();
        await ready.locator('.btn.execute').click();
        assert.equal((await ready.locator('.live-responses-table tbody .response-col_status').innerText()).trim(), '200');
      }

      assert.deepEqual(problems, [], api.page);
      assert.deepEqual(foreign, [], api.page);
      await page.context().close();
    }
  });
});
