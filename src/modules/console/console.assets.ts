// The board's script and stylesheet (web/console): built by Vite into dist/console-web (`npm run
// build:web`, run by `npm install`), served from memory under hashed names with year-long caching.
import path from 'node:path';
import { GUEST_BUILD_DIR } from '../../paths.js';
import { loadBuiltAssets, type BuiltAssets } from '../../shared/built-assets.js';
import { Representation } from '../docs/representation.js';

export const CONSOLE_ASSETS_PATH = '/console/assets';

/** Beside the guest page's build in dist/ (web/console/vite.config.ts writes it there). */
const BUILD_DIR = path.join(path.dirname(GUEST_BUILD_DIR), 'console-web');

export type ConsoleAssets = BuiltAssets<Representation>;

/**
 * Reads the build once. Without one (a checkout run through tsx before `npm run build`) the board
 * page is its bare shell, and the routes say so in the log.
 */
export function loadConsoleAssets(buildDir = BUILD_DIR): ConsoleAssets {
  return loadBuiltAssets(buildDir, CONSOLE_ASSETS_PATH, (type, body) => new Representation(type, body));
}
