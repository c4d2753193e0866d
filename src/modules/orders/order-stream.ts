import type { Database, WriteScope } from '../../db/port.js';
import { errors } from '../../errors.js';
import type { EventSink } from '../../shared/event-sink.js';
import { ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import * as orders from './orders.repository.js';
import { loadOrderViews } from './order-reads.js';
import { VenueStreams } from '../../shared/venue-streams.js';

export interface OrderStreamOptions {
  /** Streams one venue may hold open on this server. */
  perVenue?: number;
  /** A comment line this often keeps proxies from closing an idle stream (and re-checks the key, a backstop). */
  heartbeatMs?: number;
  /** How long a reader may leave what was written unread before it is disconnected. */
  slowReaderMs?: number;
  /** How often streams look for changes while the database cannot tell them (PostgreSQL without its change feed). */
  pollMs?: number;
  /** Orders read and written per round. */
  batch?: number;
}

/** Where a stream starts: after an event it sent (Last-Event-ID), from a time on (updatedSince), or from now. */
export type StreamStart = { after: Date } | { since: Date } | { now: true };

export interface StreamLog {
  warn(obj: object, msg: string): void;
}

export interface OpenStream {
  venueId: string;
  start: StreamStart;
  /**
   * Whether the stream's key may still follow the venue: false (or a throw) ends the stream (the key
   * was revoked or regenerated, the subscription went inactive, the plan lost the Orders API).
   * Asked before every batch of events is sent, after any write that may have changed a key or a
   * venue, and at every heartbeat. Plain while the key's look-up is memoised (no round trip).
   */
  stillAllowed: () => Promise<boolean>;
  log: StreamLog;
}

/** The `retry:` a client waits before reconnecting (EventSource's field), in ms. */
export const STREAM_RETRY_MS = 2000;

/** One event: the cursor as its id, created or updated, and the order as GET /v1/orders/:id shows it. */
export function frame(order: { createdAt: string; updatedAt: string }): string {
  const type = order.createdAt === order.updatedAt ? 'order.created' : 'order.updated';
  return `id: ${order.updatedAt}\nevent: ${type}\ndata: ${JSON.stringify(order)}\n\n`;
}

/**
 * The live order streams of this server (GET /v1/orders/stream, docs/events.md). Each stream keeps
 * a cursor, the updated_at of the last order it sent, and reads the venue's orders changed after it,
 * oldest first, whenever a write of the venue commits: the database tells (db.onWrite: this
 * process's commits, and on PostgreSQL every instance's through the change feed), and while it
 * cannot, streams poll. Nothing is pushed from the write itself, so what a stream sends is always
 * what a poll with the same cursor would read, and a reconnect with Last-Event-ID resumes exactly
 * there: the order clock gives each of a venue's order writes its own updated_at, in commit order
 * (orders.repository.ts, tickClock).
 */
export class OrderStreams {
  private readonly streams: VenueStreams<OrderStream>;
  private readonly perVenue: number;
  readonly slowReaderMs: number;
  readonly batch: number;

  constructor(
    readonly db: Database,
    options: OrderStreamOptions = {},
  ) {
    this.perVenue = options.perVenue ?? ORDER_STREAMS_PER_VENUE;
    this.slowReaderMs = options.slowReaderMs ?? 30_000;
    this.batch = options.batch ?? 100;
    this.streams = new VenueStreams(db, {
      heartbeatMs: options.heartbeatMs ?? 15_000,
      pollMs: options.pollMs ?? 1000,
      onWrite: this.woken,
    });
  }

  /** Streams open, for one venue or in all (GET /metrics, tests). */
  count(venueId?: string): number {
    return this.streams.count(venueId);
  }

  /**
   * Admits a stream (429 STREAM_LIMIT_REACHED past the venue's cap, before anything is sent) and
   * resolves where it starts; `sink()` is called only once it is admitted (the route hijacks the
   * response there). The first events follow at once.
   */
  async open(request: OpenStream, sink: () => EventSink): Promise<void> {
    if (this.count(request.venueId) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    // Registered before the first read, so a write that commits meanwhile wakes it.
    const stream = new OrderStream(this, request);
    this.streams.add(stream);
    try {
      await stream.begin();
    } catch (err) {
      this.remove(stream);
      throw err;
    }
    if (stream.closed) return;
    stream.attach(sink());
    // Opened while the server shuts down: ended at once, so the client reconnects elsewhere.
    if (this.streams.closed) stream.end();
  }

  /** Ends every stream (the server is shutting down): clients reconnect, to another instance if there is one. */
  closeAll(): void {
    this.streams.closeAll();
  }

  remove(stream: OrderStream): void {
    this.streams.remove(stream);
  }

  private readonly woken = (scope?: WriteScope): void => {
    // A write without a scope may have been a key's revocation or regeneration, or a venue's
    // subscription or plan (operator writes have none), here or, through the change feed, on
    // another instance: every stream checks its key again before it reads on, and ends at once
    // when it lost its right.
    if (!scope) {
      for (const stream of this.streams.all()) stream.wake(true);
      return;
    }
    for (const stream of this.streams.of(scope.venueId)) stream.wake();
  };
}

class OrderStream {
  readonly venueId: string;
  /**
   * What the next read takes: the orders changed after the last one sent (its updated_at is the
   * cursor), or, before anything was sent from updatedSince, those changed at or after that instant.
   */
  private filter: orders.OrderFilter = { updatedAfter: new Date(0) };
  private sink: EventSink | null = null;
  /** A write may have committed since the last read. */
  private dirty = true;
  /** A write since the last check may have taken the key's right away (see woken). */
  private recheck = false;
  private reading = false;
  /** A read is scheduled for the next turn of the event loop. */
  private scheduled = false;
  /** The reader has not taken what was written yet (a 'drain' is awaited). */
  private blocked = false;
  private slowTimer: NodeJS.Timeout | null = null;
  private checking = false;
  closed = false;

  constructor(
    private readonly streams: OrderStreams,
    private readonly request: OpenStream,
  ) {
    this.venueId = request.venueId;
  }

  /** Fixes the cursor: an event id, a time, or the venue's order clock now (a later write is after it). */
  async begin(): Promise<void> {
    const start = this.request.start;
    if ('after' in start) this.filter = { updatedAfter: start.after };
    else if ('since' in start) this.filter = { updatedSince: start.since.toISOString() };
    // No clock yet: the venue has no order, so every order is after the start.
    else this.filter = { updatedAfter: (await orders.readOrderClock(this.streams.db, this.venueId)) ?? new Date(0) };
  }

  attach(sink: EventSink): void {
    this.sink = sink;
    sink.onClose(() => this.finish());
    sink.onDrain(() => {
      this.blocked = false;
      if (this.slowTimer) clearTimeout(this.slowTimer);
      this.slowTimer = null;
      if (this.dirty) void this.read();
    });
    this.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    void this.read();
  }

  /**
   * A write may have committed. The read runs on the next turn of the event loop, outside the
   * writer's call, and once for every write of that turn: a burst of orders is one read per stream.
   */
  wake(recheck = false): void {
    this.dirty = true;
    if (recheck) {
      this.recheck = true;
      // A reader that is behind reads nothing until it drains: its key is checked on its own.
      if (this.blocked) this.verify();
    }
    if (this.scheduled || !this.sink || this.reading || this.blocked) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.read();
    });
  }

  /** Reads and sends what changed after the cursor until nothing is left, or the reader is behind. */
  private async read(): Promise<void> {
    if (this.reading || this.closed) return;
    this.reading = true;
    try {
      while (this.dirty && !this.blocked && !this.closed) {
        this.dirty = false;
        const recheck = this.recheck;
        this.recheck = false;
        const rows = await orders.listOrders(this.streams.db, this.venueId, this.filter, this.streams.batch, 0);
        if (rows.length === this.streams.batch) this.dirty = true;
        if (this.closed) return;
        if (rows.length === 0) {
          if (recheck && !(await this.allowed())) this.end();
          continue;
        }
        const views = await loadOrderViews(this.streams.db, this.venueId, rows);
        // The key as it is now, after the read: nothing is sent on a key revoked before it.
        if (this.closed || !(await this.allowed())) {
          this.end();
          return;
        }
        this.filter = { updatedAfter: rows[rows.length - 1].updated_at };
        this.write(views.map(frame).join(''));
      }
    } catch (err) {
      // The client reconnects with its Last-Event-ID and loses nothing.
      this.request.log.warn({ err, venueId: this.venueId }, 'order stream read failed; ending the stream');
      this.end();
    } finally {
      this.reading = false;
    }
  }

  private write(text: string): void {
    if (!this.sink || this.closed) return;
    if (this.sink.write(text)) return;
    // Behind: nothing more is read for this reader until it takes what it has (so at most one
    // batch waits in memory), and a reader that stays behind is let go.
    this.blocked = true;
    this.slowTimer ??= setTimeout(() => this.sink?.destroy(), this.streams.slowReaderMs).unref();
  }

  /**
   * Whether the key may still follow the venue, as of now on every instance: on PostgreSQL a
   * catch-up first (a round trip shared by every read of this turn, whatever READ_CONSISTENCY
   * says), so a revocation committed anywhere before this moment has moved the key's memo.
   */
  private async allowed(): Promise<boolean> {
    try {
      await this.streams.db.catchUp?.();
      return await this.request.stillAllowed();
    } catch {
      return false;
    }
  }

  /**
   * A heartbeat: a comment line (unless the reader is behind), and the key checked again: a
   * backstop for a database that cannot tell of every write (PostgreSQL without its change feed,
   * between polls).
   */
  beat(): void {
    if (!this.sink || this.closed) return;
    if (!this.blocked) this.write(':\n\n');
    this.verify();
  }

  /** Checks the key now (unless a check is out already) and ends the stream if it lost its right. */
  private verify(): void {
    if (this.checking || this.closed) return;
    this.checking = true;
    void this.allowed()
      .then((allowed) => {
        if (!allowed) this.end();
      })
      .finally(() => {
        this.checking = false;
      });
  }

  end(): void {
    if (this.closed) return;
    if (this.sink) this.sink.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.slowTimer) clearTimeout(this.slowTimer);
    this.streams.remove(this);
  }
}
