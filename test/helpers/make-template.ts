import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';

const dir = process.argv[2];
const db = await openPglite(dir);
await migrate(db);
await db.close();
