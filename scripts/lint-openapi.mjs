// `npm run lint:openapi`: Redocly's recommended rules on the committed document, at their strict
// severity (redocly.yaml), so a finding the recommended set calls a warning fails the run too;
// offline: no telemetry, no update check. A node script so the environment is set on every shell.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
const result = spawnSync(process.execPath, [cli, 'lint', 'docs/openapi.json', '--format=stylish', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
process.exit(result.status ?? 1);
