// Where the suites that walk pages in Chromium run: one decision for every file that launches it
// (test/guest-page/*browser*, look, phone-ordering, modifier-rules; test/docs/docs-page.test.ts).
import fs from 'node:fs';
import { onPostgres } from './db.js';

/** Debian's Chromium, which .ci/run installs when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';
/** The developers' guide's flags, as `npm run lighthouse` uses them. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * Why a Chromium suite skips in this run, or false to run it. The walks test pages in a browser:
 * the HTML, script and styles are the same bytes whatever the database, and the server logic under
 * them is covered by HTTP tests that run on both engines. So they run on the PGlite pass only, and
 * the PostgreSQL pass of .ci/run (DATABASE_URL set) skips them, saving it minutes of Chromium on a
 * 2-core machine (docs/architecture.md, "Tests").
 */
/**
 * Why a Chromium suite that must run on both engines skips: only a missing Chromium. The order
 * board's walk is one: its live stream rides each engine's own change notification.
 */
export const chromiumMissing: string | false = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (.ci/run installs it)`;

export const chromiumSkip: string | false = onPostgres
  ? 'Chromium walks run on PGlite only: the page is the same on PostgreSQL, whose server side the HTTP tests cover'
  : !fs.existsSync(CHROMIUM)
    ? `${CHROMIUM} is not installed (.ci/run installs it)`
    : false;
