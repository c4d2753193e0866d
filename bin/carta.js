#!/usr/bin/env node
// The compiled CLI; `npm install` builds it (the prepare script).
import { run } from '../dist/cli/index.js';

run(process.argv).catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
