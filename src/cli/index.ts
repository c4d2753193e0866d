// First, before any module's start-up work can run a full collection (src/server/internals/tick-shape.ts).
import '../server/internals/tick-shape.js';
import { CartaError } from '@carta/client';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.js';
import { migrate } from '../db/migrate.js';
import { AppError } from '../errors.js';
import { assertValid } from '../http/validation.js';
import { CURRENCIES, LANGUAGES } from '../shared/catalog.js';
import { PLANS, SUBSCRIPTION_STATUSES } from '../modules/venues/plans.js';
import {
  ApiKeyCreateBody,
  VenueCreateBody,
  VenueParams,
  VenuePatchBody,
  type ApiKeyCreateInput,
  type VenueCreateInput,
  type VenuePatchInput,
  type VenueView,
  type ApiKeyCreatedView,
} from '../modules/venues/venues.schemas.js';
import { serve } from '../server/serve.js';
import { VERSION } from '../version.js';
import { listSoldOut, pauseOrdering, setAvailable, showHours } from './availability.js';
import { pull, push, tailOrders } from './integrator.js';
import { diffMenus, listPublications, restorePublication } from './publications.js';
import { connectOperator, openLocalDatabase, type Operator } from './operator.js';
import { addStaffCommands } from './staff.js';
import { UNTIL_FORMS } from './venue-time.js';

interface Output {
  json?: boolean;
}

function print(opts: Output, value: unknown, human: () => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

function venueText(v: VenueView): string {
  return [
    `venue     ${v.id}`,
    `slug      ${v.slug}`,
    `name      ${v.name}`,
    `plan      ${v.plan} (${v.subscriptionStatus})`,
    `currency  ${v.currency}, default language ${v.defaultLanguage}`,
    `sandbox   ${v.sandbox.id} (${v.sandbox.slug})`,
  ].join('\n');
}

function keyText(k: ApiKeyCreatedView): string {
  return [
    `key id    ${k.id}`,
    `mode      ${k.mode}${k.readOnly ? ' (read-only)' : ''}`,
    `api key   ${k.key}`,
    'The key is shown only now; store it somewhere safe.',
  ].join('\n');
}

/** Every operator command opens the operator, runs, and always closes it. */
async function withOperator<T>(fn: (op: Operator) => Promise<T>): Promise<T> {
  const op = await connectOperator(loadConfig());
  try {
    return await fn(op);
  } finally {
    await op.close();
  }
}

const jsonOption = () => new Option('--json', 'print machine-readable JSON');

export function buildCli(): Command {
  const program = new Command('carta').description('Carta: venue menu and orders API').version(VERSION).showHelpAfterError();

  program
    .command('serve')
    .description('serve the API (PGlite under DATA_DIR unless DATABASE_URL is set)')
    .action(async () => {
      await serve(loadConfig());
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .addOption(jsonOption())
    .action(async (opts: Output) => {
      const config = loadConfig();
      const local = await openLocalDatabase(config);
      // PGlite files belong to one process: a running server has applied migrations on start.
      if ('server' in local) {
        const { url } = local.server;
        print(
          opts,
          { applied: [], server: url },
          () => `a server (${url}) holds ${config.dataDir}; it migrated the database when it started`,
        );
        return;
      }
      try {
        const applied = await migrate(local.db);
        print(opts, { applied }, () => (applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date'));
      } finally {
        await local.close();
      }
    });

  const venue = program.command('venue').description('create, show and update venues');
  venue
    .command('create')
    .description('create a venue and its sandbox twin')
    .requiredOption('--name <name>', 'venue name')
    .addOption(new Option('--currency <code>', 'ISO 4217 currency').choices(CURRENCIES).makeOptionMandatory())
    .option('--slug <slug>', 'public slug [a-z0-9-]{3,64} (default: derived from the name)')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLANS))
    .addOption(new Option('--default-language <code>', 'default language').choices(LANGUAGES))
    .addOption(new Option('--subscription-status <status>', 'subscription status').choices(SUBSCRIPTION_STATUSES))
    .addOption(jsonOption())
    .action(async (opts: Output & Record<string, string | undefined>) => {
      const input = assertValid<VenueCreateInput>(
        VenueCreateBody,
        compact({
          name: opts.name,
          currency: opts.currency,
          slug: opts.slug,
          plan: opts.plan,
          defaultLanguage: opts.defaultLanguage,
          subscriptionStatus: opts.subscriptionStatus,
        }),
      );
      const created = await withOperator((op) => op.createVenue(input));
      print(opts, created, () => `${venueText(created)}\nNext: carta key create --venue ${created.id} --mode live`);
    });

  venue
    .command('show')
    .description('show a venue')
    .argument('<venueId>', 'venue id')
    .addOption(jsonOption())
    .action(async (id: string, opts: Output) => {
      const v = await withOperator((op) => op.getVenue(idArg(id)));
      print(opts, v, () => venueText(v));
    });

  venue
    .command('update')
    .description("change a venue's name, plan or subscription status")
    .argument('<venueId>', 'venue id')
    .option('--name <name>', 'venue name')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLANS))
    .addOption(new Option('--subscription-status <status>', 'subscription status').choices(SUBSCRIPTION_STATUSES))
    .addOption(jsonOption())
    .action(async (id: string, opts: Output & Record<string, string | undefined>) => {
      const patch = assertValid<VenuePatchInput>(
        VenuePatchBody,
        compact({
          name: opts.name,
          plan: opts.plan,
          subscriptionStatus: opts.subscriptionStatus,
        }),
      );
      const v = await withOperator((op) => op.updateVenue(idArg(id), patch));
      print(opts, v, () => venueText(v));
    });

  const key = program.command('key').description('create, list, regenerate and revoke API keys');
  key
    .command('create')
    .description('create an API key (shown once)')
    .requiredOption('--venue <venueId>', 'venue id')
    .addOption(new Option('--mode <mode>', 'live acts on the venue, test on its sandbox').choices(['live', 'test']).default('live'))
    .option('--read-only', 'the key may only read')
    .option('--label <label>', 'a note to tell keys apart')
    .addOption(jsonOption())
    .action(async (opts: Output & { venue: string; mode: string; readOnly?: boolean; label?: string }) => {
      const input = assertValid<ApiKeyCreateInput>(
        ApiKeyCreateBody,
        compact({
          mode: opts.mode,
          readOnly: opts.readOnly ?? false,
          label: opts.label,
        }),
      );
      const k = await withOperator((op) => op.createKey(idArg(opts.venue), input));
      print(opts, k, () => keyText(k));
    });

  key
    .command('list')
    .description("list a venue's keys (hints only)")
    .requiredOption('--venue <venueId>', 'venue id')
    .addOption(jsonOption())
    .action(async (opts: Output & { venue: string }) => {
      const list = await withOperator((op) => op.listKeys(idArg(opts.venue)));
      print(opts, list, () =>
        list.items.length === 0
          ? 'no keys'
          : list.items
              .map(
                (k) =>
                  `${k.id}  ${k.mode}${k.readOnly ? ' read-only' : ''}  ...${k.hint}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}${k.label ? `  ${k.label}` : ''}`,
              )
              .join('\n'),
      );
    });

  key
    .command('regenerate')
    .description('replace a key with a new one; the old one stops working at once')
    .argument('<keyId>', 'key id')
    .addOption(jsonOption())
    .action(async (id: string, opts: Output) => {
      const k = await withOperator((op) => op.regenerateKey(idArg(id)));
      print(opts, k, () => keyText(k));
    });

  key
    .command('revoke')
    .description('revoke a key; it stops working at once')
    .argument('<keyId>', 'key id')
    .addOption(jsonOption())
    .action(async (id: string, opts: Output) => {
      await withOperator((op) => op.revokeKey(idArg(id)));
      print(opts, { id, revoked: true }, () => `revoked ${id}`);
    });

  addStaffCommands(program, { withOperator, print, idArg, jsonOption });

  program
    .command('push')
    .description('sync a menu file (the POST /v1/sync body, any size) to CARTA_URL with CARTA_API_KEY')
    .argument('<file>', 'a JSON file with categories, ingredients and products; - reads stdin')
    .option('--dry-run', 'report what would change, item by item with the fields an update changes; write nothing')
    .option('--publish', 'publish the menu once every item synced')
    .action(async (file: string, opts: { dryRun?: boolean; publish?: boolean }) => {
      process.exitCode = await push(file, opts);
    });

  program
    .command('pull')
    .description('print the draft menu in the sync format (carta pull > menu.json; carta push menu.json)')
    .action(async () => {
      process.exitCode = await pull();
    });

  program
    .command('publications')
    .description("list the kept publications, newest first (the venue's time): every one of the last 90 days and always the latest 20")
    .addOption(new Option('--page <n>', 'page number').argParser(positiveInt))
    .addOption(new Option('--limit <n>', 'publications a page (at most 100)').argParser(positiveInt))
    .addOption(jsonOption())
    .action(async (opts: { page?: number; limit?: number; json?: boolean }) => {
      process.exitCode = await listPublications(opts);
    });

  program
    .command('diff')
    .description('show what changes from one menu to another: items added, removed, and changed with the names of their fields')
    .argument('[from]', '`draft`, `published` or a publication id', 'published')
    .argument('[to]', '`draft`, `published` or a publication id', 'draft')
    .addOption(jsonOption())
    .action(async (from: string, to: string, opts: { json?: boolean }) => {
      process.exitCode = await diffMenus(from, to, opts);
    });

  program
    .command('restore')
    .description('make the draft that publication again, in one transaction (draft items it lacks are cleaned up)')
    .argument('<publicationId>', 'a publication id (carta publications lists them)')
    .option('--publish', 'publish the restored menu in the same transaction')
    .addOption(jsonOption())
    .action(async (id: string, opts: { publish?: boolean; json?: boolean }) => {
      process.exitCode = await restorePublication(id, opts);
    });

  const orders = program.command('orders').description('follow orders (paid plans)');
  orders
    .command('tail')
    .description('print new and changed orders as they arrive, until interrupted')
    .option('--since <timestamp>', 'start from this updatedAt (ISO 8601 with a timezone); default: now')
    .addOption(new Option('--json', 'print each order as a JSON line (the GET /v1/orders/:id shape)'))
    .action(async (opts: { since?: string; json?: boolean }) => {
      process.exitCode = await tailOrders({ ...opts, since: opts.since ?? new Date().toISOString() });
    });

  const availability = program
    .command('availability')
    .alias('soldout')
    .description('list, mark sold out and mark available products and ingredients at CARTA_URL with CARTA_API_KEY (live, no publish)');
  availability
    .command('list')
    .description("what is sold out now, with when each comes back (the venue's time)")
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      process.exitCode = await listSoldOut(opts);
    });
  availability
    .command('off')
    .description('mark products (or ingredients) sold out, until a time or until marked available')
    .argument('<ref...>', 'externalIds (else ids); all or nothing: an unknown ref changes nothing')
    .option('--ingredient', 'the refs are ingredients: every product and add option with one becomes unavailable')
    .option('--until <time>', `when the mark ends: ${UNTIL_FORMS}; default: until marked available`)
    .addOption(jsonOption())
    .action(async (refs: string[], opts: { ingredient?: boolean; until?: string; json?: boolean }) => {
      process.exitCode = await setAvailable(refs, { ...opts, available: false });
    });
  availability
    .command('on')
    .description('mark products (or ingredients) available again')
    .argument('<ref...>', 'externalIds (else ids); all or nothing: an unknown ref changes nothing')
    .option('--ingredient', 'the refs are ingredients')
    .addOption(jsonOption())
    .action(async (refs: string[], opts: { ingredient?: boolean; json?: boolean }) => {
      process.exitCode = await setAvailable(refs, { ...opts, available: true });
    });

  program
    .command('hours')
    .description("show the opening hours (the venue's timezone), the exceptions ahead, and whether guests can order now")
    .addOption(jsonOption())
    .action(async (opts: { json?: boolean }) => {
      process.exitCode = await showHours(opts);
    });

  program
    .command('pause')
    .description('pause guest ordering for a while (orderConfig.pausedUntil, at most 24 hours ahead), or end the pause')
    .argument(
      '<duration|time|off>',
      'how long (30 minutes: 30 or 30m; 2h, 1h30m), until when (as `availability off --until` takes it), or off',
    )
    .addOption(jsonOption())
    .action(async (arg: string, opts: { json?: boolean }) => {
      process.exitCode = await pauseOrdering(arg, opts);
    });

  return program;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of 1 or more');
  return n;
}

/** Ids are UUIDs; checking here gives a clear message instead of a database error. */
function idArg(id: string): string {
  return assertValid<{ id: string }>(VenueParams, { id }).id;
}

function compact<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

export async function run(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    const list = (err as { errors?: string[] }).errors;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`carta: ${message}\n${list?.length ? list.map((e) => `  - ${e}\n`).join('') : ''}`);
    // Not found, from the operator's services or from a server the integrator commands call.
    process.exitCode = (err instanceof AppError || err instanceof CartaError) && err.statusCode === 404 ? 4 : 1;
  }
}
