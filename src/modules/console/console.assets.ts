// The board's script and stylesheet (web/console): built by Vite into dist/console-web (`npm run
// build:web`, run by `npm install`), served from memory under hashed names with year-long caching.
import { CONSOLE_BUILD_DIR as BUILD_DIR } from '../../paths.js';
import { loadBuiltAssets, type BuiltAssets } from '../../shared/built-assets.js';
import { Representation } from '../docs/index.js';

export const CONSOLE_ASSETS_PATH = '/console/assets';

export type ConsoleAssets = BuiltAssets<Representation>;

/**
 * Reads the build once. Without one (a checkout run through tsx before `npm run build`) the board
 * page is its bare shell, and the routes say so in the log.
 */
export function loadConsoleAssets(buildDir = BUILD_DIR): ConsoleAssets {
  return loadBuiltAssets(buildDir, CONSOLE_ASSETS_PATH, (type, body) => new Representation(type, body));
}
