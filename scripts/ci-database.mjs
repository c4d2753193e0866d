// Creates or drops a throwaway PostgreSQL database for one CI run: `create <name>` | `drop <name>`.
import pg from 'pg';

const [action, name] = process.argv.slice(2);
if (!['create', 'drop'].includes(action) || !/^[a-z0-9_]+$/.test(name ?? '')) {
  process.stderr.write('usage: ci-database.mjs create|drop <name>\n');
  process.exit(2);
}
const client = new pg.Client({ connectionString: process.env.CI_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
await client.connect();
try {
  if (action === 'create') await client.query(`create database ${name}`);
  else await client.query(`drop database if exists ${name} with (force)`);
} finally {
  await client.end();
}
