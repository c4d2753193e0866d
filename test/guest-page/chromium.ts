// What the guest page's Chromium tests share: Debian's Chromium and its flags, the phone they
// emulate, axe-core's serious and critical findings, and where screenshots for review go.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';

export const PHONE = { width: 390, height: 844 };
/** A laptop's window, used with a mouse (no touch, so the page sees a pointer that hovers). */
export const DESKTOP = { width: 1280, height: 800 };

/** A phone, or a screen of this size used with a mouse. */
export type Device = 'phone' | { width: number; height: number };

/**
 * The look's screenshots at 390x844 (card styles, the dialog, the cart, the status page, English
 * and Arabic), for a human to review: one directory outside the repository, never committed.
 */
export function lookShotsDir(): string {
  const dir = path.join(os.tmpdir(), 'carta-guest-look');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** axe-core in the page: the serious and critical violations, readable. */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
  return page.evaluate<string[]>(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.impact + ' ' + v.id + ': ' + v.help + ' -> ' + v.nodes.slice(0, 3).map((n) => n.html.slice(0, 160) + ' [' + n.failureSummary + ']').join(' | ')))`);
}

/**
 * The page's layout shifts so far (the CLS sum of Lighthouse, without its session windows): the
 * browser's own layout-shift entries, those right after an input left out as the metric does.
 */
export function layoutShift(page: Page): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve) => {
    new PerformanceObserver((list, observer) => {
      observer.disconnect();
      resolve(list.getEntries().filter((e) => !e.hadRecentInput).reduce((sum, e) => sum + e.value, 0));
    }).observe({ type: 'layout-shift', buffered: true });
    // No entry at all calls no observer: nothing shifted.
    setTimeout(() => resolve(0), 200);
  })`);
}

export interface PhoneVisit {
  page: Page;
  context: BrowserContext;
  /** Script errors and console errors the page should not have. */
  problems: string[];
}

/**
 * A fresh phone-sized context (touch on, empty storage), or a desktop one with a mouse, that reaches
 * the test server only; images of the media origin are served from it. The caller closes the context.
 */
export async function openPhone(
  browser: Browser,
  url: string,
  servers: { origin: string; mediaOrigin: string },
  device: Device = 'phone',
): Promise<PhoneVisit> {
  const context = await browser.newContext({
    viewport: device === 'phone' ? PHONE : device,
    deviceScaleFactor: 1,
    hasTouch: device === 'phone',
    locale: 'en-US',
  });
  await context.route(
    (u) => u.origin !== servers.origin,
    async (route) => {
      const u = new URL(route.request().url());
      if (u.origin !== servers.mediaOrigin) return route.abort();
      const res = await fetch(`${servers.origin}${u.pathname}`);
      return route.fulfill({
        status: res.status,
        contentType: res.headers.get('content-type') ?? undefined,
        body: Buffer.from(await res.arrayBuffer()),
      });
    },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  const response = await page.goto(url);
  assert.equal(response?.status(), 200, url);
  return { page, context, problems };
}

/** The app listening on a port, Chromium, and the phone contexts a suite opened (closed with it). */
export class GuestBrowser {
  private readonly contexts: BrowserContext[] = [];

  private constructor(
    readonly t: TestApp,
    readonly origin: string,
    readonly mediaOrigin: string,
    readonly browser: Browser,
  ) {}

  static async start(): Promise<GuestBrowser> {
    const t = await startApp();
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    return new GuestBrowser(t, origin, new URL(t.config.mediaPublicUrl).origin, browser);
  }

  /** A phone (or a screen with a mouse) at `url` (openPhone), closed with the suite. */
  async open(url: string, device: Device = 'phone'): Promise<PhoneVisit> {
    const visit = await openPhone(this.browser, url, { origin: this.origin, mediaOrigin: this.mediaOrigin }, device);
    this.contexts.push(visit.context);
    return visit;
  }

  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser.close();
    await this.t.close();
  }
}
