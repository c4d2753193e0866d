// `npm test`: migrates one template database per run, then runs every test file against a copy
// of it (PGlite: a copied data directory; PostgreSQL: a schema of its own, see test/helpers).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestTree, removeTestTree } from './test-build.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('--'));
const testDirs = ['test', 'packages/client/test'];
/** Every `*.test.ts` under `dir`, in its folders too (test/<area>/...), as paths from the root. */
function findTests(dir) {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) return findTests(rel);
      return entry.name.endsWith('.test.ts') ? [rel] : [];
    })
    .sort();
}
const testFiles = files.length ? files : testDirs.flatMap(findTests);

/** The newest modification time of a file, or of any file under a folder. */
function newestMtime(source) {
  if (!fs.statSync(source).isDirectory()) return fs.statSync(source).mtimeMs;
  return fs.readdirSync(source).reduce((newest, name) => Math.max(newest, newestMtime(path.join(source, name))), 0);
}

/** Runs `npm run <script>` when `output` is missing or older than any file of `sources` (files, or folders). */
function rebuildIfStale(output, sources, script) {
  const newest = Math.max(...sources.map((source) => newestMtime(path.join(root, source))));
  if (fs.existsSync(path.join(root, output)) && fs.statSync(path.join(root, output)).mtimeMs >= newest) return;
  const build = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit', cwd: root });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// `npm install` builds the server and the guest page; a change to their sources since then is
// built again here, so the tests run what the tree holds: the CLI and `carta serve` tests run the
// start bundle (bin/carta.js), the browser tests the guest page's script and styles.
rebuildIfStale('dist/bundle/carta.js', ['src'], 'build:server');
// The code both sides run (src/shared/'s money, modifier rules and pricing) is in the pages' bundles too.
const BOTH_SIDES = ['web/shared', 'src/shared/money.ts', 'src/shared/modifier-rules.ts', 'src/shared/pricing.ts'];
rebuildIfStale('dist/web/.vite/manifest.json', ['web/guest', 'src/modules/guest-page/shared', ...BOTH_SIDES], 'build:web');
rebuildIfStale('dist/console-web/.vite/manifest.json', ['web/console', ...BOTH_SIDES], 'build:web');

// The tests run compiled, from a mirror of the repository (scripts/test-build.mjs).
const tree = await buildTestTree(root);
/** A file named on the command line (or found), as a path from the root with forward slashes. */
const fromRoot = (f) => path.relative(root, path.resolve(root, f)).split(path.sep).join('/');
const compiled = (f) => path.join(tree, fromRoot(f).replace(/\.ts$/, '.js'));

const env = { ...process.env };
// Temporary files in RAM where the machine has it: each test file copies the template's thousand
// small files and writes its database, which on a journalled disk costs twice the system time.
const ramDir = ramTempDir();
if (ramDir) env.TMPDIR = ramDir;
let templateDir = null;
if (!env.DATABASE_URL) {
  // A fresh PGlite costs seconds and hundreds of MB to initialise; do it once and copy.
  templateDir = fs.mkdtempSync(path.join(ramDir ?? os.tmpdir(), 'carta-template-'));
  const prep = spawnSync(process.execPath, [path.join(tree, 'test/helpers/make-template.js'), templateDir], {
    stdio: 'inherit',
    cwd: root,
  });
  if (prep.status !== 0) process.exit(prep.status ?? 1);
  env.CARTA_TEST_TEMPLATE = templateDir;
}

/**
 * A folder of this user's under /dev/shm when it is a RAM file system with room to spare, kept
 * between runs (the tests that still start tsx find its compile cache there); else null.
 */
function ramTempDir() {
  if (process.platform !== 'linux' || env.TMPDIR) return null;
  try {
    const { bavail, bsize } = fs.statfsSync('/dev/shm');
    if (bavail * bsize < 4 * 2 ** 30) return null;
    const dir = path.join('/dev/shm', `carta-tests-${os.userInfo().uid}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.accessSync(dir, fs.constants.W_OK);
    return dir;
  } catch {
    return null;
  }
}

const engine = env.DATABASE_URL ? `postgres${env.REDIS_URL ? ' + redis' : ''}` : 'pglite';
process.stdout.write(`carta tests on ${engine}: ${testFiles.length} files\n`);
const concurrency = Math.max(1, Math.min(4, os.availableParallelism()));
// The stall suite measures how long GET /health waits: it runs alone, after the rest, so other
// test files do not take its CPU.
const ALONE = new Set(['test/server/stall.test.ts']);
const isAlone = (f) => ALONE.has(fromRoot(f));
// Without tsx, the source maps esbuild wrote put failures on their TypeScript lines.
const nodeArgs = ['--enable-source-maps', '--test'];
const run = (files, fileConcurrency) =>
  files.length === 0
    ? { status: 0 }
    : spawnSync(
        process.execPath,
        [...nodeArgs, `--test-concurrency=${fileConcurrency}`, ...args.filter((a) => a.startsWith('--')), ...files.map(compiled)],
        {
          stdio: 'inherit',
          cwd: root,
          env,
        },
      );
const shared = run(
  testFiles.filter((f) => !isAlone(f)),
  concurrency,
);
// CI runs the stall suite on its own, with its strict bounds (`npm run stall`, .ci/run), and sets
// CARTA_STALL_SEPARATE=1 for its two passes of the suite, so the suite is not run three times there.
const separate = env.CARTA_STALL_SEPARATE === '1' && files.length === 0;
const alone = run(separate ? [] : testFiles.filter(isAlone), 1);
if (templateDir) fs.rmSync(templateDir, { recursive: true, force: true });
removeTestTree(tree);
process.exit((shared.status ?? 1) || (alone.status ?? 1));
