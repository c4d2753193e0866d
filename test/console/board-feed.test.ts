import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { BOARD_STREAMS_PER_VENUE } from '../../src/limits.js';
import { BoardFeeds, type OpenBoard } from '../../src/modules/console/board-feed.js';
import type { EventSink } from '../../src/shared/event-sink.js';
import { call, createVenue, startApp, type TestApp, type VenueFixture } from '../helpers/app.js';
import { createOrder, expectStatus, orderBody, patchStatus, setUpOrderMenu, type MenuIds } from '../helpers/orders.js';

/** A board's connection that takes everything, keeping it as text. */
class Sink implements EventSink {
  text = '';
  ended = false;
  private closed: () => void = () => {};
  write(text: string): boolean {
    this.text += text;
    return true;
  }
  onDrain(): void {}
  onClose(listener: () => void): void {
    this.closed = listener;
  }
  end(): void {
    this.ended = true;
    this.closed();
  }
  destroy(): void {
    this.end();
  }
  /** The events as sent: each one's id (the order clock's instant) and its order's id. */
  events(): { at: number; order: string }[] {
    return [...this.text.matchAll(/^id: (.+)\nevent: .+\ndata: (.+)$/gm)].map((m) => ({
      at: Date.parse(m[1]),
      order: JSON.parse(m[2]).id,
    }));
  }
}

async function waitFor(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !(await ready()) && waited < timeoutMs; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(await ready(), what);
}

// The console boards' shared feed (docs/console.md), on the real database and the real feed, with
// connections that are plain sinks: the venue's cap under boards opening at once, and every board
// getting every order's latest state once, in order, while boards come and go as orders change.
describe('the console board feed', () => {
  let t: TestApp;
  let v: VenueFixture;
  let ids: MenuIds;

  before(async () => {
    t = await startApp();
    v = await createVenue(t.app, { plan: 'pro' });
    ids = await setUpOrderMenu(t.app, v);
    await createOrder(t.app, v.slug, orderBody(ids));
  });
  after(() => t.close());

  const board = (venueId: string, at: Date | null = null): OpenBoard => ({
    venueId,
    after: at,
    stillAllowed: async () => true,
    log: { warn: () => {} },
  });

  it(`admits ${BOARD_STREAMS_PER_VENUE} of 400 boards opening at once and refuses the rest with 429 STREAM_LIMIT_REACHED before taking their connection`, async () => {
    const feeds = t.services.boardFeeds;
    const sinks: Sink[] = [];
    const opened = await Promise.allSettled(
      Array.from({ length: 400 }, () =>
        feeds.open(board(v.id), () => {
          const sink = new Sink();
          sinks.push(sink);
          return sink;
        }),
      ),
    );
    try {
      const refused = opened.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(opened.length - refused.length, BOARD_STREAMS_PER_VENUE);
      assert.equal(sinks.length, BOARD_STREAMS_PER_VENUE);
      assert.equal(feeds.count(v.id), BOARD_STREAMS_PER_VENUE);
      for (const r of refused) {
        assert.ok(r.reason instanceof AppError, String(r.reason));
        assert.equal(r.reason.statusCode, 429);
        assert.equal(r.reason.code, 'STREAM_LIMIT_REACHED');
      }
      assert.ok(sinks.every((s) => s.text.startsWith('retry: ') && !s.ended));
    } finally {
      for (const sink of sinks) sink.end();
    }
    assert.equal(feeds.count(v.id), 0);
    // Every refused and every ended board gave its place back.
    const again = new Sink();
    await feeds.open(board(v.id), () => again);
    assert.equal(feeds.count(v.id), 1);
    again.end();
  });

  it('gives back the place of a board whose start could not be read', async () => {
    let failing = true;
    const orders = t.services.orders;
    const feeds = new BoardFeeds(
      t.database.db,
      {
        orderClock: (venueId) => (failing ? Promise.reject(new Error('the database is gone')) : orders.orderClock(venueId)),
        changedAfter: (venueId, at, limit) => orders.changedAfter(venueId, at, limit),
      },
      { perVenue: 2 },
    );
    const sinks: Sink[] = [];
    const take = () => {
      const sink = new Sink();
      sinks.push(sink);
      return sink;
    };
    const failed = await Promise.allSettled([1, 2, 3].map(() => feeds.open(board(v.id), take)));
    assert.deepEqual(
      failed.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.equal(sinks.length, 0);
    assert.equal(feeds.count(v.id), 0);
    failing = false;
    await feeds.open(board(v.id), take);
    await feeds.open(board(v.id), take);
    assert.equal(feeds.count(v.id), 2);
    feeds.closeAll();
  });

  it("sends every board each order's latest state once and in order while boards open, leave and reopen as orders change", async () => {
    const venue = await createVenue(t.app, { plan: 'pro' });
    const menu = await setUpOrderMenu(t.app, venue);
    await createOrder(t.app, venue.slug, orderBody(menu));
    const start = await t.services.orders.orderClock(venue.id);
    assert.ok(start);
    const feeds = t.services.boardFeeds;
    const boards: Sink[] = [];
    const open = async () => {
      const sink = new Sink();
      await feeds.open(board(venue.id, start), () => sink);
      boards.push(sink);
    };
    // Orders placed and moved on by four writers while boards open one after another (some while
    // the shared reader is mid-read), and, halfway, every board leaves and new ones open (a new feed).
    const writers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 6; i += 1) {
        const order = await createOrder(t.app, venue.slug, orderBody(menu));
        expectStatus(await patchStatus(t.app, venue.key, order.id, 'confirmed'), 200);
      }
    });
    const openers = (async () => {
      for (let i = 0; i < 6; i += 1) await Promise.all([open(), open()]);
      for (const sink of boards.splice(0)) sink.end();
      await waitFor('every board gone', () => feeds.count(venue.id) === 0);
      for (let i = 0; i < 6; i += 1) await Promise.all([open(), open()]);
    })();
    await Promise.all([...writers, openers]);
    try {
      const listed = (
        await call(t.app, 'GET', '/v1/orders?limit=100&updatedSince=' + encodeURIComponent(new Date(start.getTime() + 1).toISOString()), {
          key: venue.key,
        })
      ).body.items as { id: string; updatedAt: string }[];
      assert.equal(listed.length, 24);
      const latest = new Map(listed.map((o) => [o.id, Date.parse(o.updatedAt)]));
      const holdsAll = (sink: Sink) => {
        const last = new Map(sink.events().map((e) => [e.order, e.at]));
        return [...latest].every(([id, at]) => last.get(id) === at);
      };
      await waitFor("every order's latest state on every board", () => boards.every(holdsAll));
      for (const sink of boards) {
        const events = sink.events();
        // Once each, in the order clock's order: no change sent twice, none sent after a later one.
        assert.ok(
          events.every((e, i) => i === 0 || e.at > events[i - 1].at),
          'events in order, none twice',
        );
        assert.ok(
          events.every((e) => e.at > start.getTime()),
          "nothing from before the board's cursor",
        );
      }
    } finally {
      for (const sink of boards) sink.end();
    }
  });
});
