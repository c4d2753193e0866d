import { loadConfig } from './config.js';
import { serve } from './server/serve.js';

serve(loadConfig()).catch((err) => {
  process.stderr.write(`carta: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
