import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { carta, compiled, notBuilt, type Run } from '../helpers/cli.js';

// `carta availability list|off|on` (alias `carta soldout`), `carta hours` and `carta pause`: the built
// CLI as a child process over HTTP to this file's app on a loopback port.
// The CLI reads the real clock, and so does the app here: `--until HH:MM` is checked against times
// relative to now, in the venue's timezone (test/cli/venue-time.test.ts covers fixed instants and DST).

const skip = fs.existsSync(compiled) ? false : notBuilt;
const MADRID = 'Europe/Madrid';
const MINUTE = 60_000;

/** The wall clock `HH:MM` in Madrid at instant t. */
function madridTime(t: number): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: MADRID, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(t));
}

/** The next whole minute at least `ms` ahead, as an instant. */
const minuteAhead = (ms: number) => Math.ceil((Date.now() + ms) / MINUTE) * MINUTE;

function ok(run: Run): Run {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}${run.stdout}`);
  return run;
}

describe('carta availability, hours and pause', { skip }, () => {
  let t: TestApp;
  let v: VenueFixture;
  let url: string;
  let workDir: string;
  const cli = (args: string[]): Promise<Run> => carta(workDir, args, { CARTA_URL: url, CARTA_API_KEY: v.key });
  const soldOut = async () => (await call(t.app, 'GET', '/v1/availability', { key: v.key })).body;
  const settings = async () => (await call(t.app, 'GET', '/v1/settings', { key: v.key })).body;

  before(async () => {
    t = await startApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    v = await createVenue(t.app, { plan: 'pro' });
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { timezone: MADRID } })).status, 200);
    await syncOk(t.app, v, {
      categories: [{ externalId: 'mains', name: 'Mains' }],
      ingredients: [{ externalId: 'milk', name: 'Milk' }],
      products: [
        { externalId: 'burger', name: 'Burger', priceMinor: 1200, categoryExternalId: 'mains' },
        { externalId: 'fries', name: 'Fries', priceMinor: 400, categoryExternalId: 'mains' },
        { externalId: 'latte', name: 'Latte', priceMinor: 350, categoryExternalId: 'mains', ingredientExternalIds: ['milk'] },
      ],
    });
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-availability-'));
  });
  after(async () => {
    await t?.close();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('off --until HH:MM marks products sold out until that time in the venue timezone; list shows them', async () => {
    assert.equal(ok(await cli(['availability', 'list'])).stdout, 'nothing is sold out\n');
    const until = minuteAhead(2 * 3_600_000);
    const hhmm = madridTime(until);
    const off = ok(await cli(['availability', 'off', 'burger', 'fries', '--until', hhmm]));
    assert.match(
      off.stdout,
      new RegExp(
        `^products burger, fries: sold out until (today|tomorrow) ${hhmm} Europe/Madrid \\(${new Date(until).toISOString()}\\) \\(2 changed\\)\n$`,
      ),
    );
    const marks = await soldOut();
    assert.deepEqual(
      marks.products.map((p: any) => [p.ref, p.until]),
      [
        ['burger', new Date(until).toISOString()],
        ['fries', new Date(until).toISOString()],
      ],
    );

    const ingredient = ok(await cli(['availability', 'off', 'milk', '--ingredient']));
    assert.equal(ingredient.stdout, 'ingredients milk: sold out until marked available (1 changed)\n');
    const product = (await call(t.app, 'GET', '/v1/products/latte', { key: v.key })).body;
    assert.equal(product.availability.reason, 'ingredient_sold_out');

    const list = ok(await cli(['availability', 'list']));
    const lines = list.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'sold out now (times in Europe/Madrid)');
    assert.match(lines[1], /^KIND\s+REF\s+NAME\s+UNTIL$/);
    assert.match(lines[2], new RegExp(`^product     burger  Burger  (today|tomorrow) ${hhmm}$`));
    assert.match(lines[3], new RegExp(`^product     fries   Fries   (today|tomorrow) ${hhmm}$`));
    assert.equal(lines[4], 'ingredient  milk    Milk    until marked available');
    assert.equal(lines.length, 5);

    const asJson = JSON.parse(ok(await cli(['availability', 'list', '--json'])).stdout);
    assert.deepEqual(asJson, await soldOut());
  });

  it('on (through the soldout alias) marks them available again; a full local datetime and an ISO instant work', async () => {
    const on = ok(await cli(['soldout', 'on', 'burger', 'fries']));
    assert.equal(on.stdout, 'products burger, fries: available again (2 changed)\n');
    const again = ok(await cli(['soldout', 'on', 'burger']));
    assert.equal(again.stdout, 'products burger: available again (0 changed)\n', 'nothing to clear is a no-op');
    assert.deepEqual((await soldOut()).products, []);

    // A local date and time in Madrid, a day ahead.
    const local = minuteAhead(24 * 3_600_000);
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: MADRID,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(new Date(local))
        .map((p) => [p.type, p.value]),
    );
    const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
    ok(await cli(['availability', 'off', 'burger', '--until', wall]));
    const instant = new Date(minuteAhead(3 * 3_600_000)).toISOString();
    const json = JSON.parse(ok(await cli(['availability', 'off', 'fries', '--until', instant, '--json'])).stdout);
    assert.deepEqual(json, { products: { updated: 1 }, ingredients: { updated: 0 }, until: instant });
    assert.deepEqual(
      (await soldOut()).products.map((p: any) => [p.ref, p.until]),
      [
        ['burger', new Date(local).toISOString()],
        ['fries', instant],
      ],
    );
    ok(await cli(['availability', 'on', 'burger', 'fries']));
    ok(await cli(['availability', 'on', 'milk', '--ingredient']));
  });

  it('an unknown ref fails the command (exit 1, the server naming it) and writes nothing; a bad or past --until too', async () => {
    const unknown = await cli(['availability', 'off', 'burger', 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^carta: Validation failed\n {2}- products\[1\]\.ref "nope" not found\n$/);
    assert.deepEqual((await soldOut()).products, []);

    const notTime = await cli(['availability', 'off', 'burger', '--until', 'soon']);
    assert.equal(notTime.code, 1);
    assert.match(notTime.stderr, /carta: "soon" is not a time: use HH:MM/);
    const past = await cli(['availability', 'off', 'burger', '--until', '2020-01-01T10:00']);
    assert.equal(past.code, 1);
    assert.match(past.stderr, /carta: --until 2020-01-01T10:00 \(2020-01-01T09:00:00\.000Z\) has passed/);
    const tooFar = await cli(['availability', 'off', 'burger', '--until', new Date(Date.now() + 40 * 86_400_000).toISOString()]);
    assert.equal(tooFar.code, 1);
    assert.match(tooFar.stderr, /products\[0\]\.until must be at most 30 days ahead/);
    const noRef = await cli(['availability', 'off']);
    assert.equal(noRef.code, 1);
    assert.match(noRef.stderr, /missing required argument 'ref'/);
    assert.deepEqual((await soldOut()).products, []);
  });

  it('pause sets orderConfig.pausedUntil (minutes or a time), hours shows it, pause off clears it', async () => {
    const shown = ok(await cli(['hours'])).stdout;
    assert.equal(
      shown,
      [
        'opening hours (Europe/Madrid)',
        '  always open (no opening hours set)',
        'ordering   open now',
        'prep time  15 min; scheduled orders off',
        '',
      ].join('\n'),
    );

    const from = Date.now();
    const paused = ok(await cli(['pause', '30']));
    const to = Date.now();
    const pausedUntil = Date.parse((await settings()).orderConfig.pausedUntil);
    assert.ok(pausedUntil >= from + 30 * MINUTE && pausedUntil <= to + 30 * MINUTE, `${pausedUntil} within 30 minutes of the run`);
    assert.match(
      paused.stdout,
      new RegExp(
        `^ordering paused until (today|tomorrow) ${madridTime(pausedUntil)} Europe/Madrid \\(${new Date(pausedUntil).toISOString()}\\)\n$`,
      ),
    );
    assert.match(
      ok(await cli(['hours'])).stdout,
      new RegExp(
        `^ordering   paused until (today|tomorrow) ${madridTime(pausedUntil)}, opens (today|tomorrow) ${madridTime(pausedUntil)}$`,
        'm',
      ),
    );

    const until = minuteAhead(3_600_000);
    ok(await cli(['pause', madridTime(until)]));
    assert.equal((await settings()).orderConfig.pausedUntil, new Date(until).toISOString());

    const tooLong = await cli(['pause', '25h']);
    assert.equal(tooLong.code, 1);
    assert.match(tooLong.stderr, /orderConfig\.pausedUntil must be at most 24 hours ahead/);
    const bad = await cli(['pause', 'soon']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /carta: "soon" is not a pause: use off, minutes/);

    assert.equal(ok(await cli(['pause', 'off'])).stdout, 'ordering is not paused\n');
    assert.equal((await settings()).orderConfig.pausedUntil, null);
    assert.match(ok(await cli(['hours'])).stdout, /^ordering {3}open now$/m);
  });

  it('hours shows each day with its shifts, closed days, past-midnight and 24-hour shifts, and the exceptions ahead', async () => {
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toLocaleDateString('en-CA', { timeZone: MADRID });
    const openingHours = {
      weekly: [
        { day: 'monday', isOpen: true, openTime: '19:00', closeTime: '23:30' },
        { day: 'monday', isOpen: true, openTime: '09:00', closeTime: '15:00' },
        { day: 'tuesday', isOpen: false },
        { day: 'friday', isOpen: true, openTime: '20:00', closeTime: '02:00' },
        { day: 'sunday', isOpen: true, openTime: '00:00', closeTime: '00:00' },
      ],
      exceptions: [
        { date: inDays(10), isOpen: true, openTime: '10:00', closeTime: '14:00' },
        { date: inDays(9), isOpen: false },
        { date: '2020-01-01', isOpen: false },
      ],
    };
    const patched = await call(t.app, 'PATCH', '/v1/settings', {
      key: v.key,
      body: { openingHours, orderConfig: { prepTimeMinutes: 20, scheduledOrders: { enabled: true, maxDaysAhead: 3 } } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const lines = ok(await cli(['hours']))
      .stdout.trimEnd()
      .split('\n');
    assert.deepEqual(lines.slice(0, 12), [
      'opening hours (Europe/Madrid)',
      '  monday     09:00-15:00, 19:00-23:30',
      '  tuesday    closed',
      '  wednesday  closed',
      '  thursday   closed',
      '  friday     20:00-02:00 (into saturday)',
      '  saturday   closed',
      '  sunday     00:00-00:00 (24 h)',
      'exceptions',
      `  ${inDays(9)} closed`,
      `  ${inDays(10)} 10:00-14:00`,
      '  (1 past exception date not shown)',
    ]);
    assert.match(lines[12], /^ordering {3}(open now, until .+|closed now, opens .+)$/);
    assert.equal(lines[13], 'prep time  20 min; scheduled orders up to 3 days ahead');
    assert.equal(lines.length, 14);

    const json = JSON.parse(ok(await cli(['hours', '--json'])).stdout);
    assert.equal(json.timezone, MADRID);
    assert.deepEqual(json.openingHours, (await settings()).openingHours);
    assert.equal(json.orderConfig.prepTimeMinutes, 20);
  });
});
