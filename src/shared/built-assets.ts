// A browser surface's script and stylesheets as Vite builds them (web/<surface>, with a manifest in
// .vite/manifest.json): read once, kept in memory and served under their hashed names. The
// guest page (src/modules/guest-page/page.assets.ts) and the console's board
// (src/modules/console/console.assets.ts) each load their own build with it.
import fs from 'node:fs';
import path from 'node:path';

interface ManifestEntry {
  file: string;
  css?: string[];
  isEntry?: boolean;
}

export const ASSET_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface BuiltAssets<R> {
  /** URLs of the entry's script and stylesheets; null when the build is missing. */
  script: string | null;
  styles: string[];
  /** A built file by its name (the last part of its URL). */
  get(file: string): R | undefined;
  /** What a page loads, for the size budgets. */
  files: { url: string; representation: R }[];
}

/**
 * Reads the build in `buildDir` whose files are served under `urlPath`, each file's bytes made
 * into what the routes send (`represent`: the HTTP side's Representation). A missing build (a
 * checkout run through tsx before `npm run build`) is no error: `script` is null, `files` empty.
 */
export function loadBuiltAssets<R>(buildDir: string, urlPath: string, represent: (contentType: string, body: Buffer) => R): BuiltAssets<R> {
  const byName = new Map<string, R>();
  const files: BuiltAssets<R>['files'] = [];
  const get = (file: string) => byName.get(file);
  let manifest: Record<string, ManifestEntry>;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(buildDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestEntry>;
  } catch {
    return { script: null, styles: [], get, files };
  }
  const entry = Object.values(manifest).find((e) => e.isEntry);
  if (!entry) return { script: null, styles: [], get, files };
  const serve = (file: string): string => {
    const name = path.basename(file);
    const representation = represent(
      ASSET_TYPES[path.extname(name)] ?? 'application/octet-stream',
      fs.readFileSync(path.join(buildDir, file)),
    );
    byName.set(name, representation);
    const url = `${urlPath}/${name}`;
    files.push({ url, representation });
    return url;
  };
  return { script: serve(entry.file), styles: (entry.css ?? []).map(serve), get, files };
}
