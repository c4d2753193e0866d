// First, before any module's start-up work can run a full collection (src/server/internals/tick-shape.ts).
import './server/internals/tick-shape.js';
import { loadConfig } from './config.js';
import { serve } from './server/serve.js';

serve(loadConfig()).catch((err) => {
  process.stderr.write(`carta: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
