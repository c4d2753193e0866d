// The tree `npm test` runs: the repository's TypeScript compiled once by esbuild, instead of by tsx
// in every test process. tsx compiles through loader hooks on a thread of their own, in each test
// file's process and again in each PGlite worker it starts: about 1.5 s of CPU per file, a third of
// the suite's time on two cores. The compiled tree is a mirror of the repository under
// node_modules/.cache/carta-tests/run-<pid>/: each folder of TypeScript holds every file's `.js` beside a link
// to its `.ts` (and its other files as links), every other entry of the root is a link, so paths
// taken from `import.meta.url` (the root, migrations, fixtures, `bin/`) lead where they did.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

/** The folders of TypeScript that tests import: compiled. Everything else is linked. */
const COMPILED = ['src', 'test', 'bench', 'web', 'scripts', 'packages/client/src', 'packages/client/test', 'packages/client/scripts'];
const SKIP = new Set(['.git', 'node_modules']);

/**
 * Builds the mirror of `root` for this run and returns its path. Each run has its own (runs of
 * several checkouts may share one node_modules); a run removes its own at the end (`removeTestTree`),
 * and the trees of runs that died are removed by the next.
 */
export async function buildTestTree(root) {
  const trees = path.join(root, 'node_modules/.cache/carta-tests');
  fs.mkdirSync(trees, { recursive: true });
  for (const name of fs.readdirSync(trees)) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid || !alive(pid)) fs.rmSync(path.join(trees, name), { recursive: true, force: true });
  }
  const mirror = path.join(trees, `run-${process.pid}`);
  const sources = [];
  linkTree(root, mirror, '', sources);
  await build({
    entryPoints: sources.map((rel) => path.join(root, rel)),
    outdir: mirror,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Failures point at the TypeScript lines (node --enable-source-maps).
    sourcemap: 'inline',
    tsconfig: path.join(root, 'tsconfig.json'),
    logLevel: 'error',
  });
  return mirror;
}

/**
 * Mirrors `rel` (a folder of `root`, '' for the root) into `mirror`: compiled folders are made for
 * real, with links to each file; any other entry is one link. Collects the `.ts` files to compile.
 */
function linkTree(root, mirror, rel, sources) {
  fs.mkdirSync(path.join(mirror, rel), { recursive: true });
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (!rel && SKIP.has(entry.name)) continue;
    const inside = COMPILED.some((dir) => child === dir || child.startsWith(`${dir}/`));
    const above = COMPILED.some((dir) => dir.startsWith(`${child}/`));
    if (entry.isDirectory() && (inside || above)) {
      linkTree(root, mirror, child, sources);
      continue;
    }
    fs.symlinkSync(path.join(root, child), path.join(mirror, child));
    if (inside && entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(child);
  }
}

export function removeTestTree(mirror) {
  fs.rmSync(mirror, { recursive: true, force: true });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}
