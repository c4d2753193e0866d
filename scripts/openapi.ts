// Writes docs/openapi.json, the committed copy of GET /v1/openapi.json that reviewers read;
// test/suites/openapi-drift.test.ts fails when the routes and the committed copy disagree.
import fs from 'node:fs';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPglite } from '../src/db/pglite.js';

const db = await openPglite(null);
const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMITS: 'off', DATA_DIR: '/nonexistent' }), db });
await app.ready();
fs.writeFileSync(new URL('../docs/openapi.json', import.meta.url), `${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
await db.close();
