import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Carta's own files (migrations, the guest page's build, package.json), found from the package
// root rather than from each module's own location: the same module runs from src (tsx), from
// dist (tsc) and from the start bundle (dist/bundle, scripts/bundle.mjs), where it sits elsewhere.

const here = fileURLToPath(import.meta.url);

interface Manifest {
  name?: string;
  version: string;
}

/** The nearest folder above this module holding Carta's package.json, and that manifest. */
function findPackage(): { root: string; manifest: Manifest } {
  for (let dir = path.dirname(here); ;) {
    const file = path.join(dir, 'package.json');
    const manifest = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest) : null;
    if (manifest?.name === 'carta') return { root: dir, manifest };
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`carta: no package.json of carta above ${here}`);
    dir = parent;
  }
}

const found = findPackage();

const PACKAGE_ROOT = found.root;

/** Carta's version, from its package.json. */
export const PACKAGE_VERSION: string = found.manifest.version;

/** The SQL migrations: src's under tsx, the copy the build puts in dist otherwise. */
export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, here.endsWith('.ts') ? 'src' : 'dist', 'db', 'migrations');

/** The guest page's script and styles, built by Vite (`npm run build:web`). */
export const GUEST_BUILD_DIR = path.join(PACKAGE_ROOT, 'dist', 'web');
/** The console board's build (web/console/vite.config.ts). */
export const CONSOLE_BUILD_DIR = path.join(PACKAGE_ROOT, 'dist', 'console-web');
