// The start bundle: `npm run build` compiles src to dist with tsc, then this joins dist/cli and
// the packages it imports into dist/bundle, which bin/carta.js runs. Node loads one file instead of
// about 1,100 modules (typebox alone is 370 files), which was 250 ms of a start on Node 20 and
// most of a restart's budget (docs/performance.md). What a start does not need (the PostgreSQL
// driver on PGlite, the S3 client, the QR encoder, ...) stays in chunks loaded on first use.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

await build({
  absWorkingDir: root,
  // PGlite's thread loads its own file (src/db/pglite-thread.ts looks for it beside the chunks).
  entryPoints: { carta: 'dist/cli/index.js', 'pglite-worker': 'dist/db/pglite-worker.js' },
  outdir: 'dist/bundle',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Loaded from their own folders at run time: PGlite reads its WebAssembly and data files beside
  // its module, sharp loads a native addon, pg-native is pg's optional native binding. undici is
  // imported with import() on first use; a split bundle would give such a CommonJS package's
  // exports as `default` alone, where Node gives them by name. The S3 client (only with
  // MEDIA_S3_BUCKET) picks its variants by runtime in ways a bundler need not resolve as Node does;
  // Node loads it as it always has. zxcvbn-ts (the password estimator, imported with import() on the
  // first password set) is CommonJS by its `main`: the same `default`-only trap as undici.
  external: ['@electric-sql/pglite', 'sharp', 'pg-native', 'undici', '@aws-sdk/*', '@zxcvbn-ts/*'],
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __cartaRequire } from 'node:module'; const require = __cartaRequire(import.meta.url);" },
});
