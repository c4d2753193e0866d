// The guest page's script and stylesheet: built by Vite into dist/web (`npm run build`, run by
// `npm install`), served from memory under hashed names with year-long caching.
import path from 'node:path';
import { remember } from '../../lru.js';
import { GUEST_BUILD_DIR as BUILD_DIR } from '../../paths.js';
import { ASSET_TYPES, loadBuiltAssets, type BuiltAssets } from '../../shared/built-assets.js';
import { Representation } from '../docs/index.js';

export const GUEST_ASSETS_PATH = '/assets/guest';

/** The tab icon: a plate and a fork, drawn here (no data: URL, which the CSP does not allow). */
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5d4b"/>' +
  '<circle cx="18" cy="16" r="8" fill="none" stroke="#fff" stroke-width="2.5"/><path d="M8 7v18M6 7v6a2 2 0 0 0 4 0V7" stroke="#fff" stroke-width="2" fill="none"/></svg>';
const ICON = new Representation('image/svg+xml', Buffer.from(ICON_SVG));
export const GUEST_ICON_URL = `${GUEST_ASSETS_PATH}/icon-${ICON.hash}.svg`;

/**
 * The venue's accent colour as a stylesheet of its own, named by the colour:
 * `accent-0b5d4b.css` holds `:root { --accent: #0b5d4b; }`. A file from this origin keeps the CSP
 * at `style-src 'self'` (no inline style, no nonce, which a cached page could not carry), the page
 * cache and its ETag stay as they are, and every venue of one colour shares one immutable file.
 */
const ACCENT_FILE = /^accent-([0-9a-f]{6})\.css$/;
const accentSheets = new Map<string, Representation>();

/** The accent stylesheet's URL for `#rrggbb` (settings keep it in lower case). */
export function accentStylesheetUrl(color: string): string {
  return `${GUEST_ASSETS_PATH}/accent-${color.slice(1).toLowerCase()}.css`;
}

function accentSheet(file: string): Representation | undefined {
  const hex = ACCENT_FILE.exec(file)?.[1];
  if (!hex) return undefined;
  let sheet = accentSheets.get(hex);
  if (!sheet) {
    sheet = new Representation(ASSET_TYPES['.css'], Buffer.from(`:root{--accent:#${hex}}\n`));
    // Anyone may ask for any of 16 M colours: the memo is bounded, least recently made out.
    remember(accentSheets, hex, sheet, 10_000);
  }
  return sheet;
}

export interface GuestAssets extends BuiltAssets<Representation> {
  icon: string;
}

/**
 * Reads the build once. Without one (a checkout run through tsx before `npm run build`) the page
 * still serves its server-rendered menu, unstyled and without ordering, and says so in the log.
 */
export function loadGuestAssets(buildDir = BUILD_DIR): GuestAssets {
  const built = loadBuiltAssets(buildDir, GUEST_ASSETS_PATH, (type, body) => new Representation(type, body));
  const iconName = path.basename(GUEST_ICON_URL);
  return {
    ...built,
    icon: GUEST_ICON_URL,
    get: (file) => (file === iconName ? ICON : (built.get(file) ?? accentSheet(file))),
  };
}
