import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WriteListener, WriteScope } from '../../src/db/port.js';
import { AppError } from '../../src/errors.js';
import { nextTurn } from '../../src/next-turn.js';
import type { EventSink } from '../../src/shared/event-sink.js';
import { LiveStream, LiveStreams, type StreamClock, type StreamReader } from '../../src/shared/live-stream.js';
import { VenueFeeds } from '../../src/shared/venue-feed.js';

// The one lifecycle of the live streams (src/shared/live-stream.ts, venue-feed.ts) on its own:
// no database, no HTTP, and time moved by hand.

/** Timers that fire only when the test moves the time past them. */
class ManualClock implements StreamClock {
  private now = 0;
  private readonly timers = new Set<{ at: number; every: number; fn: () => void }>();

  after(ms: number, fn: () => void): () => void {
    return this.add({ at: this.now + ms, every: 0, fn });
  }

  every(ms: number, fn: () => void): () => void {
    return this.add({ at: this.now + ms, every: ms, fn });
  }

  /** Timers set and not cancelled. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves the time on by `ms`, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.now = next.at;
      if (next.every) next.at += next.every;
      else this.timers.delete(next);
      next.fn();
    }
    this.now = end;
  }

  private add(timer: { at: number; every: number; fn: () => void }): () => void {
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }
}

/** What the registry hears of the database: commits, and whether it can tell of every one. */
class Writes {
  readonly listeners = new Set<WriteListener>();
  tellsAll = true;
  onWrite = (listener: WriteListener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  coherent = () => this.tellsAll;
  commit(scope?: WriteScope): void {
    for (const listener of this.listeners) listener(scope);
  }
}

/** A connection whose reader takes everything, unless `full`: then it holds what it was sent until `drain()`. */
class Sink implements EventSink {
  text = '';
  full = false;
  ended = false;
  destroyed = false;
  private drained = () => {};
  private closed = () => {};
  write(text: string): boolean {
    this.text += text;
    return !this.full;
  }
  onDrain(listener: () => void): void {
    this.drained = listener;
  }
  onClose(listener: () => void): void {
    this.closed = listener;
  }
  drain(): void {
    this.full = false;
    this.drained();
  }
  end(): void {
    this.ended = true;
    this.closed();
  }
  destroy(): void {
    this.destroyed = true;
    this.closed();
  }
  ids(): number[] {
    return [...this.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  }
  get beats(): number {
    return this.text.split(':\n\n').length - 1;
  }
}

const BATCH = 2;
const HEARTBEAT = 15_000;
const SLOW = 30_000;
const POLL = 1000;

/** The events of every venue: numbered in commit order, like the order clock's instants. */
const log: { venueId: string; at: number }[] = [];
const commitEvent = (writes: Writes, venueId: string) => {
  log.push({ venueId, at: log.length + 1 });
  writes.commit({ venueId });
};
const eventsAfter = (venueId: string, after: number, limit: number) =>
  log.filter((e) => e.venueId === venueId && e.at > after).slice(0, limit);
const text = (events: { at: number }[]) => events.map((e) => `id: ${e.at}\n\n`).join('');

/** A stream that reads for itself from its cursor, as an API order stream does. */
class Reader implements StreamReader {
  readonly live: LiveStream<Reader>;
  readonly warnings: string[] = [];
  readonly log = { warn: (_obj: object, msg: string) => void this.warnings.push(msg) };
  reads = 0;
  /** Reads at once, now and at most. */
  reading = 0;
  mostAtOnce = 0;
  missedCalls = 0;
  allowed = true;
  failing = false;
  cursor: number;

  constructor(
    streams: LiveStreams<Reader>,
    readonly venueId = 'v1',
    caps: LiveStream['caps'] = [],
  ) {
    this.live = new LiveStream(streams, venueId, this, caps);
    this.cursor = log.length;
  }
  async read(): Promise<boolean> {
    this.reads += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, (this.reading += 1));
    // A round trip of a few turns: writes may commit meanwhile.
    for (let i = 0; i < 3; i += 1) await nextTurn();
    this.reading -= 1;
    if (this.failing) throw new Error('the database is gone');
    const events = eventsAfter(this.venueId, this.cursor, BATCH);
    if (events.length > 0 && this.live.write(text(events))) this.cursor = events[events.length - 1].at;
    return events.length === BATCH;
  }
  async stillAllowed(): Promise<boolean> {
    return this.allowed;
  }
  missed(): void {
    this.missedCalls += 1;
  }
}

function setUp() {
  const clock = new ManualClock();
  const writes = new Writes();
  const streams: LiveStreams<Reader> = new LiveStreams(
    writes,
    {
      name: 'test stream',
      perVenue: 2,
      onWrite: (scope) => {
        for (const stream of scope ? streams.of(scope.venueId) : streams.all()) stream.wake();
      },
    },
    { clock, batch: BATCH, heartbeatMs: HEARTBEAT, slowReaderMs: SLOW, pollMs: POLL },
  );
  /** Opens a stream on a new sink (taken only once admitted). */
  const open = async (venueId = 'v1', caps: LiveStream['caps'] = []) => {
    const reader = new Reader(streams, venueId, caps);
    const sink = new Sink();
    await streams.open(reader.live, () => sink);
    return { reader, sink, stream: reader.live };
  };
  return { clock, writes, streams, open };
}

/** Lets the scheduled reads run (a read is due on the next turn after a wake, and takes a few). */
async function settle(): Promise<void> {
  for (let i = 0; i < 40; i += 1) await nextTurn();
}

describe('a live stream', () => {
  it('reads once for every write of a turn, and reads on while a read finds a full batch', async () => {
    const { writes, open } = setUp();
    const { reader, sink } = await open();
    await settle();
    assert.equal(reader.reads, 1, 'a first read as it starts');
    assert.ok(sink.text.startsWith('retry: 2000\n\n'));
    for (let i = 0; i < 5; i += 1) commitEvent(writes, 'v1');
    await settle();
    // Five writes in one turn: one read of 2, then 2, then 1 (a batch short of full ends it).
    assert.equal(reader.reads, 4);
    assert.deepEqual(
      sink.ids(),
      [1, 2, 3, 4, 5].map((n) => n + log.length - 5),
    );
    commitEvent(writes, 'v2');
    await settle();
    assert.equal(reader.reads, 4, "another venue's write wakes no stream of this one");
  });

  it('reads once more after a read that a write came during, never two reads at once', async () => {
    const { writes, open } = setUp();
    const { reader, sink } = await open();
    await settle();
    commitEvent(writes, 'v1');
    await nextTurn();
    assert.equal(reader.reading, 1, 'a read is out');
    commitEvent(writes, 'v1');
    commitEvent(writes, 'v1');
    await settle();
    assert.equal(reader.reads, 3, 'the first read, and one after it for the two writes made during it');
    assert.equal(reader.mostAtOnce, 1);
    assert.equal(sink.ids().length, 3);
  });

  it('reads nothing while its reader holds what it was sent, and reads on from its cursor once it drains', async () => {
    const { writes, open } = setUp();
    const { reader, sink, stream } = await open();
    await settle();
    sink.full = true;
    commitEvent(writes, 'v1');
    await settle();
    assert.equal(stream.held, true);
    const reads = reader.reads;
    commitEvent(writes, 'v1');
    commitEvent(writes, 'v1');
    await settle();
    assert.equal(reader.reads, reads, 'no read while held');
    sink.drain();
    await settle();
    assert.equal(stream.held, false);
    assert.deepEqual(sink.ids(), [log.length - 2, log.length - 1, log.length]);
    assert.equal(reader.missedCalls, 0, 'nothing was dropped');
  });

  it('drops a write that comes while held (behind), and tells the reader to read again once it drains', async () => {
    const { open } = setUp();
    const { reader, sink, stream } = await open();
    await settle();
    sink.full = true;
    assert.equal(stream.write('id: 1\n\n'), true, 'written: the sink takes it and answers false');
    assert.equal(stream.held, true);
    assert.equal(stream.write('id: 2\n\n'), false, 'dropped');
    assert.equal(stream.behind, true);
    assert.deepEqual(sink.ids(), [1]);
    const reads = reader.reads;
    sink.drain();
    assert.equal(reader.missedCalls, 1);
    assert.equal(stream.behind, false);
    await settle();
    assert.equal(reader.reads, reads + 1, 'a read from its cursor');
  });

  it('cuts a reader that holds what it was sent for slowReaderMs, and not one that drains before', async () => {
    const { clock, streams, open } = setUp();
    const { sink, stream } = await open();
    sink.full = true;
    stream.write('x');
    clock.advance(SLOW - 1);
    sink.drain();
    clock.advance(SLOW);
    assert.equal(sink.destroyed, false, 'drained in time');
    sink.full = true;
    stream.write('y');
    clock.advance(SLOW);
    assert.equal(sink.destroyed, true);
    assert.equal(stream.closed, true);
    assert.equal(streams.count('v1'), 0, 'its place given back');
  });

  it('beats every heartbeatMs on each open stream (a comment line unless held) and ends one whose right is gone', async () => {
    const { clock, open } = setUp();
    const a = await open();
    const b = await open();
    clock.advance(HEARTBEAT);
    assert.deepEqual([a.sink.beats, b.sink.beats], [1, 1]);
    a.sink.full = true;
    a.stream.write('x');
    clock.advance(HEARTBEAT);
    assert.deepEqual([a.sink.beats, b.sink.beats], [1, 2], 'no comment line to a held reader');
    a.sink.drain();
    b.reader.allowed = false;
    clock.advance(HEARTBEAT);
    await settle();
    assert.equal(b.sink.ended, true, 'its right checked at the heartbeat');
    assert.equal(a.stream.closed, false);
  });

  it('ends at once when a check finds its right gone, and runs a check asked while one is out after it', async () => {
    const { open } = setUp();
    const { reader, sink, stream } = await open();
    stream.verify();
    reader.allowed = false;
    // The first check may have read the right before it went: the second runs after it.
    stream.verify();
    await settle();
    assert.equal(sink.ended, true);
    assert.equal(stream.closed, true);
  });

  it('ends with a warning when a read fails (the client reconnects from its cursor)', async () => {
    const { writes, streams, open } = setUp();
    const { reader, sink } = await open();
    await settle();
    reader.failing = true;
    commitEvent(writes, 'v1');
    await settle();
    assert.equal(sink.ended, true);
    assert.deepEqual(reader.warnings, ['test stream read failed; ending the stream']);
    assert.equal(streams.count(), 0);
  });

  it('polls while the database cannot tell of every write, and only then', async () => {
    const { clock, writes, open } = setUp();
    const { reader } = await open();
    await settle();
    const reads = reader.reads;
    clock.advance(POLL * 3);
    await settle();
    assert.equal(reader.reads, reads);
    writes.tellsAll = false;
    clock.advance(POLL);
    await settle();
    assert.equal(reader.reads, reads + 1);
  });
});

describe('live streams of one kind', () => {
  it("admits a venue's cap of streams opening at once, counted before the first await, and takes the connection of those only", async () => {
    const { streams } = setUp();
    const sinks: Sink[] = [];
    const opened = await Promise.allSettled(
      [1, 2, 3, 4].map(() =>
        streams.open(
          new Reader(streams).live,
          () => {
            const sink = new Sink();
            sinks.push(sink);
            return sink;
          },
          nextTurn,
        ),
      ),
    );
    assert.deepEqual(
      opened.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'rejected'],
    );
    const refused = (opened[2] as PromiseRejectedResult).reason;
    assert.ok(refused instanceof AppError);
    assert.equal(refused.code, 'STREAM_LIMIT_REACHED');
    assert.equal(sinks.length, 2);
    assert.equal(streams.count('v1'), 2);
  });

  it('gives a place back on every path: refused by another cap, failed as it prepared, ended, cut', async () => {
    const { clock, streams, open } = setUp();
    const address = [{ key: 'address:a', limit: 1, refuse: () => new Error('this address has its streams') }];
    const first = await open('v1', address);
    await assert.rejects(open('v2', address), /this address has its streams/);
    assert.equal(streams.count('v2'), 0, 'refused by the shared cap: no place taken under the venue');
    first.stream.end();
    assert.equal(first.sink.ended, true);
    await open('v2', address);

    let taken = false;
    const take = () => {
      taken = true;
      return new Sink();
    };
    const failed = streams.open(new Reader(streams, 'v3').live, take, async () => {
      throw new Error('no clock');
    });
    assert.equal(streams.count('v3'), 1, 'counted while it prepares');
    await assert.rejects(failed, /no clock/);
    assert.equal(taken, false, 'its connection never taken');
    assert.equal(streams.count('v3'), 0);

    const cut = await open('v3');
    cut.sink.full = true;
    cut.stream.write('x');
    clock.advance(SLOW);
    assert.equal(streams.count('v3'), 0);
    await open('v3');
    await open('v3');
    assert.equal(streams.count('v3'), 2);
  });

  it('ends every stream at shutdown, and one that opens meanwhile at once; stops listening with its last stream', async () => {
    const { clock, writes, streams, open } = setUp();
    const a = await open('v1');
    const b = await open('v2');
    assert.equal(writes.listeners.size, 1);
    assert.equal(clock.pending, 2, 'heartbeat and poll');
    const sink = new Sink();
    const opening = streams.open(new Reader(streams, 'v3').live, () => sink, nextTurn);
    streams.closeAll();
    await opening;
    assert.equal(sink.ended, true, 'ended as it was handed its connection');
    assert.equal((await open('v4')).sink.ended, true, 'opened after: ended at once');
    assert.deepEqual([a.sink.ended, b.sink.ended], [true, true]);
    assert.equal(streams.count(), 0);
    assert.equal(writes.listeners.size, 0);
    assert.equal(clock.pending, 0);
  });
});

describe("a venue's shared reader", () => {
  /** Streams that follow the shared reader (as boards and guest pages do), and the reads it made. */
  function shared() {
    const clock = new ManualClock();
    const writes = new Writes();
    let reads = 0;
    let clocks = 0;
    const streams: LiveStreams<Reader> = new LiveStreams(
      writes,
      { name: 'shared', perVenue: 100, onWrite: (scope) => feeds.wake(scope), onEmpty: (venueId) => feeds.drop(venueId) },
      { clock, batch: BATCH },
    );
    const feeds = new VenueFeeds(
      streams,
      {
        orderClock: async () => {
          clocks += 1;
          return new Date(log.length);
        },
        changedAfter: async (venueId: string, after: Date, limit: number) => {
          reads += 1;
          return eventsAfter(venueId, after.getTime(), limit);
        },
      },
      (events) => events,
      (venueId, events) => {
        for (const stream of streams.of(venueId)) stream.write(text(events));
      },
    );
    const open = async (venueId = 'v1') => {
      const reader = new Reader(streams, venueId);
      const sink = new Sink();
      // A stream that follows: nothing of its own to read.
      reader.read = async () => false;
      await streams.open(
        reader.live,
        () => sink,
        () => feeds.of(venueId).ready,
      );
      return sink;
    };
    return { writes, open, feeds, streams, reads: () => reads, clocks: () => clocks };
  }

  it('reads a write once for all the streams of the venue, however many are open', async () => {
    const cost = async (open: number) => {
      const { writes, reads, ...s } = shared();
      const sinks = await Promise.all(Array.from({ length: open }, () => s.open('v1')));
      for (let i = 0; i < 3; i += 1) commitEvent(writes, 'v1');
      await settle();
      assert.ok(sinks.every((sink) => sink.ids().length === 3));
      return reads();
    };
    assert.equal(await cost(1), await cost(50));
    assert.equal(await cost(1), 2, 'three writes in one turn: a full batch, then the rest');
  });

  it('stops with the last stream of its venue, and a new one starts from the order clock then', async () => {
    const { open, streams, clocks } = shared();
    const sink = await open('v1');
    await open('v1');
    assert.equal(clocks(), 1, 'one reader for the venue');
    sink.end();
    for (const stream of [...streams.of('v1')]) stream.end();
    await open('v1');
    assert.equal(clocks(), 2);
  });

  it('ends the streams of its venue when a read fails', async () => {
    const { writes, open, feeds } = shared();
    const sinks = [await open('v1'), await open('v1')];
    const other = await open('v2');
    feeds.source.changedAfter = async () => {
      throw new Error('the database is gone');
    };
    commitEvent(writes, 'v1');
    await settle();
    assert.deepEqual(
      sinks.map((s) => s.ended),
      [true, true],
    );
    assert.equal(other.ended, false);
  });
});
