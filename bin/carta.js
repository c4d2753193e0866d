#!/usr/bin/env node
// The compiled CLI, bundled into dist/bundle (scripts/bundle.mjs); `npm install` builds it (the prepare script).
import module from 'node:module';

// Node >= 22.1 keeps the compiled code of our modules and dependencies on disk, so a restart
// skips compiling them (docs/performance.md); Node 20 has no such cache and starts as before.
module.enableCompileCache?.();

const { run } = await import('../dist/bundle/carta.js');

run(process.argv).catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
