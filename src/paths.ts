import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Carta's own files (migrations, the guest page's build, package.json), found from the package
// root rather than from each module's own location: the same module runs from src (tsx), from
// dist (tsc) and from the start bundle (dist/bundle, scripts/bundle.mjs), where it sits elsewhere.

const here = fileURLToPath(import.meta.url);

function packageRoot(): string {
  for (let dir = path.dirname(here); ; ) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'carta') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`carta: no package.json of carta above ${here}`);
    dir = parent;
  }
}

export const PACKAGE_ROOT = packageRoot();

export const PACKAGE_JSON = path.join(PACKAGE_ROOT, 'package.json');

/** The SQL migrations: src's under tsx, the copy the build puts in dist otherwise. */
export const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, here.endsWith('.ts') ? 'src' : 'dist', 'db', 'migrations');

/** The guest page's script and styles, built by Vite (`npm run build:web`). */
export const GUEST_BUILD_DIR = path.join(PACKAGE_ROOT, 'dist', 'web');
