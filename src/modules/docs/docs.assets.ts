import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DOCS_SCRIPT, DOCS_STYLE } from './docs.client.js';
import { Representation } from './representation.js';

/** The files the /docs page loads, by the names in their URLs. */
export interface DocsAssetUrls {
  bundle: string;
  style: string;
  favicon: string;
  script: string;
  ownStyle: string;
}

export const ASSETS_PATH = '/docs/assets';

interface Source {
  type: string;
  compressible: boolean;
  load(): Promise<Buffer>;
}

/**
 * Swagger UI's files straight from the installed swagger-ui-dist package (never a CDN: a venue's
 * server may have no internet), and the page's own script and style. Every name carries the
 * package version or a content hash, so a URL's bytes never change and may be cached for a year.
 */
export function docsAssets() {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('swagger-ui-dist/package.json');
  const dir = path.dirname(manifest);
  const { version } = require(manifest) as { version: string };
  const packageFile = (file: string, type: string, compressible = true): Source => ({
    type,
    compressible,
    load: () => readFile(path.join(dir, file)),
  });
  const script = new Representation('text/javascript; charset=utf-8', Buffer.from(DOCS_SCRIPT));
  const ownStyle = new Representation('text/css; charset=utf-8', Buffer.from(DOCS_STYLE));

  const names: DocsAssetUrls = {
    bundle: `swagger-ui-bundle-${version}.js`,
    style: `swagger-ui-${version}.css`,
    favicon: `swagger-ui-favicon-${version}.png`,
    script: `carta-docs-${script.hash}.js`,
    ownStyle: `carta-docs-${ownStyle.hash}.css`,
  };
  const sources = new Map<string, Source>([
    [names.bundle, packageFile('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
    [names.style, packageFile('swagger-ui.css', 'text/css; charset=utf-8')],
    [names.favicon, packageFile('favicon-32x32.png', 'image/png', false)],
  ]);
  const loaded = new Map<string, Promise<Representation>>([
    [names.script, Promise.resolve(script)],
    [names.ownStyle, Promise.resolve(ownStyle)],
  ]);

  return {
    urls: {
      bundle: `${ASSETS_PATH}/${names.bundle}`,
      style: `${ASSETS_PATH}/${names.style}`,
      favicon: `${ASSETS_PATH}/${names.favicon}`,
      script: `${ASSETS_PATH}/${names.script}`,
      ownStyle: `${ASSETS_PATH}/${names.ownStyle}`,
    } satisfies DocsAssetUrls,
    /** The asset of that name, read once; null for a name that is not one. */
    get(name: string): Promise<Representation> | null {
      let asset = loaded.get(name);
      const source = sources.get(name);
      if (!asset && source) {
        asset = source.load().then((bytes) => new Representation(source.type, bytes, source.compressible));
        asset.catch(() => loaded.delete(name));
        loaded.set(name, asset);
      }
      return asset ?? null;
    },
  };
}
