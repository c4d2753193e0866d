import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { GUEST_ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { VenueStreams } from '../../shared/venue-streams.js';
import type { StreamLog } from '../orders/order-stream.js';
import { STREAM_RETRY_MS } from '../orders/order-stream.js';
import type { GuestOrderChanges } from './guest.service.js';
import type { GuestOrderView } from './guest.schemas.js';

/** What a follower reads of its own order as it opens: its change's instant and ETag, its status and the view. */
export interface GuestOrderRead {
  at: number;
  etag: string;
  status: string;
  view: () => Promise<GuestOrderView>;
}

/** Where the streams read the venue's orders (GuestService). */
export interface GuestOrderSource {
  orderClock(venueId: string): Promise<Date | null>;
  changedAfter(venueId: string, after: Date, limit: number): Promise<GuestOrderChanges>;
}

export interface GuestFollow {
  venueId: string;
  /** The order's token, and the client's rate-limit key (an IPv6 address by its /64): each holds a few streams at most. */
  token: string;
  address: string;
  /** The order as the guest page last showed it (its ETag), or null: send it at once. */
  etag: string | null;
  read: () => Promise<GuestOrderRead>;
  log: StreamLog;
}

export interface GuestOrderStreamOptions {
  perVenue?: number;
  heartbeatMs?: number;
  slowReaderMs?: number;
  /** How often to look for changes while the database cannot tell of every write. */
  pollMs?: number;
  /** Orders read per round. */
  batch?: number;
}

/** Streams one address may hold (a café's guests share one), and one order (a guest's tabs). */
const PER_ADDRESS = 50;
const PER_ORDER = 3;

const FINAL = new Set(['completed', 'cancelled']);

/** One event: the ETag as its id, and the order as the guest read answers it. */
const frame = (etag: string, view: GuestOrderView) => `id: ${etag}\nevent: order.updated\ndata: ${JSON.stringify(view)}\n\n`;

/**
 * The guest status page's live order (docs/guest-page.md): one Server-Sent Events stream per page,
 * where it polled before. A venue's followers share one reader: a write of the venue makes it read
 * the venue's guest orders changed since its cursor (the order clock) in one statement, and only
 * the followers of those orders are sent anything, so what a write costs does not grow with the
 * streams open. A follower reads its own order once as it opens; the stream ends once the order
 * is completed or cancelled.
 */
export class GuestOrderStreams {
  private readonly followers: VenueStreams<Follower>;
  private readonly feeds = new Map<string, GuestFeed>();
  private readonly perVenue: number;
  readonly slowReaderMs: number;
  readonly batch: number;
  /** Open streams by `address:<key>` and `order:<token>`. */
  private readonly holders = new Map<string, number>();

  constructor(
    db: Pick<Database, 'onWrite' | 'coherent'>,
    readonly source: GuestOrderSource,
    options: GuestOrderStreamOptions = {},
  ) {
    this.perVenue = options.perVenue ?? GUEST_ORDER_STREAMS_PER_VENUE;
    this.slowReaderMs = options.slowReaderMs ?? 30_000;
    this.batch = options.batch ?? 100;
    this.followers = new VenueStreams(db, {
      heartbeatMs: options.heartbeatMs ?? 15_000,
      pollMs: options.pollMs ?? 1000,
      onWrite: (scope) => {
        if (scope) this.feeds.get(scope.venueId)?.wake();
        else for (const feed of this.feeds.values()) feed.wake();
      },
      onEmpty: (venueId) => this.feeds.delete(venueId),
    });
  }

  count(): number {
    return this.followers.count();
  }

  /** The venue's shared reader, while it is the current one (a reader whose followers all left stops). */
  current(feed: GuestFeed): boolean {
    return this.feeds.get(feed.venueId) === feed;
  }

  /**
   * Admits a follower and sends the order if the page's copy is stale: 429 STREAM_LIMIT_REACHED past
   * the venue's cap, or past an address's or an order's (the page then polls). Everything up to
   * the follower's joining is synchronous, so concurrent opens cannot overrun a cap.
   */
  async open(request: GuestFollow, sink: () => EventSink): Promise<void> {
    if (this.followers.count(request.venueId) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    const keys = holderKeys(request);
    if ((this.holders.get(keys[0]) ?? 0) >= PER_ADDRESS || (this.holders.get(keys[1]) ?? 0) >= PER_ORDER) throw errors.guestStreamLimit();
    for (const key of keys) this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
    let feed = this.feeds.get(request.venueId);
    if (!feed) this.feeds.set(request.venueId, (feed = new GuestFeed(this, request.venueId)));
    const follower = new Follower(this, feed, request, sink());
    this.followers.add(follower);
    feed.follow(follower);
    follower.start();
    if (this.followers.closed) follower.end();
  }

  closeAll(): void {
    this.followers.closeAll();
  }

  remove(follower: Follower): void {
    follower.feed.unfollow(follower);
    this.followers.remove(follower);
    for (const key of holderKeys(follower.request)) {
      const held = (this.holders.get(key) ?? 1) - 1;
      if (held > 0) this.holders.set(key, held);
      else this.holders.delete(key);
    }
  }
}

const holderKeys = (request: GuestFollow) => [`address:${request.address}`, `order:${request.token}`];

/**
 * A venue's shared reader: from the order clock when it opened, it reads the venue's guest orders
 * changed since its cursor, once per turn for every write of that turn, and hands each changed
 * order (its view built once) to that order's followers.
 */
class GuestFeed {
  /** The venue's order clock when the feed opened: a follower reads its own order only after it. */
  readonly ready: Promise<void>;
  private cursor = new Date(0);
  private readonly byToken = new Map<string, Set<Follower>>();
  private dirty = false;
  private reading = false;
  private scheduled = false;

  constructor(
    private readonly streams: GuestOrderStreams,
    readonly venueId: string,
  ) {
    this.ready = streams.source.orderClock(venueId).then((at) => {
      if (at) this.cursor = at;
    });
    // A failure is each follower's (it awaits `ready`) and the read's: not an unhandled rejection here.
    this.ready.catch(() => {});
  }

  follow(follower: Follower): void {
    let set = this.byToken.get(follower.token);
    if (!set) this.byToken.set(follower.token, (set = new Set()));
    set.add(follower);
  }

  unfollow(follower: Follower): void {
    const set = this.byToken.get(follower.token);
    if (set?.delete(follower) && set.size === 0) this.byToken.delete(follower.token);
  }

  /** A write may have committed: one read on the next turn, for every write of this turn. */
  wake(): void {
    this.dirty = true;
    if (this.scheduled || this.reading) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.read();
    });
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      await this.ready;
      while (this.dirty && this.streams.current(this)) {
        this.dirty = false;
        const batch = await this.streams.source.changedAfter(this.venueId, this.cursor, this.streams.batch);
        if (batch.changes.length === this.streams.batch) this.dirty = true;
        if (batch.changes.length === 0 || !this.streams.current(this)) continue;
        this.cursor = new Date(batch.changes[batch.changes.length - 1].at);
        const followed = batch.changes.filter((c) => this.byToken.has(c.token));
        if (followed.length === 0) continue;
        const views = await batch.views(new Set(followed.map((c) => c.token)));
        for (const change of followed) {
          const view = views.get(change.token);
          if (!view) continue;
          const text = frame(change.etag, view);
          for (const follower of [...(this.byToken.get(change.token) ?? [])]) follower.offer(change, text);
        }
      }
    } catch (err) {
      // The pages reconnect (or poll) and read their order again: nothing is lost.
      for (const set of [...this.byToken.values()]) {
        for (const follower of [...set]) {
          follower.request.log.warn({ err, venueId: this.venueId }, 'guest order stream read failed; ending the stream');
          follower.end();
        }
      }
    } finally {
      this.reading = false;
    }
  }
}

class Follower {
  readonly venueId: string;
  readonly token: string;
  /** The order clock's instant of the state the page has (sent, or its Last-Event-ID's), -1: none yet. */
  private sent = -1;
  private reading = false;
  /** A change came while the reader was behind: the order is read again once it drains. */
  private dirty = false;
  /** The reader has not taken what was written: nothing more is sent until it drains. */
  private blocked = false;
  private slowTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly streams: GuestOrderStreams,
    readonly feed: GuestFeed,
    readonly request: GuestFollow,
    private readonly sink: EventSink,
  ) {
    this.venueId = request.venueId;
    this.token = request.token;
    sink.onClose(() => this.finish());
    sink.onDrain(() => {
      this.blocked = false;
      if (this.slowTimer) clearTimeout(this.slowTimer);
      this.slowTimer = null;
      if (this.dirty) void this.look();
    });
  }

  /**
   * Sends the order as it is now, read once the feed's cursor is fixed: a change the read misses
   * commits after it, so the feed reads it and offers it here.
   */
  start(): void {
    this.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    this.dirty = true;
    void this.feed.ready.then(
      () => this.look(),
      (err) => this.fail(err),
    );
  }

  /** A change of the order, read by the feed: sent unless the page has it or a later state. */
  offer(change: { at: number; etag: string; status: string }, text: string): void {
    if (this.closed || change.at <= this.sent) return;
    if (this.blocked) {
      this.dirty = true;
      return;
    }
    this.show(change, text);
  }

  private show(state: { at: number; etag: string; status: string }, text: string | null): void {
    // The page has this state already (its Last-Event-ID): nothing to send.
    if (text !== null && state.etag !== this.request.etag) this.write(text);
    this.sent = state.at;
    // Finished: nothing more will come (also to a reconnect that has the last state already).
    if (FINAL.has(state.status)) this.end();
  }

  /** Reads the order for this follower alone: as it opens, and after it drained having missed a change. */
  private async look(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      while (this.dirty && !this.blocked && !this.closed) {
        this.dirty = false;
        const read = await this.request.read();
        if (this.closed || read.at <= this.sent) continue;
        const view = read.etag === this.request.etag ? null : await read.view();
        // The feed may have sent this state or a later one meanwhile, or the reader fell behind.
        if (this.closed || read.at <= this.sent) continue;
        if (this.blocked) {
          this.dirty = true;
          continue;
        }
        this.show(read, view === null ? null : frame(read.etag, view));
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.reading = false;
    }
  }

  /** The order is gone (its venue removed) or the database failed: the page reconnects. */
  private fail(err: unknown): void {
    this.request.log.warn({ err, venueId: this.venueId }, 'guest order stream read failed; ending the stream');
    this.end();
  }

  beat(): void {
    if (!this.closed && !this.blocked) this.write(':\n\n');
  }

  /**
   * Queues the text. False from the sink means it holds more than its high-water mark, not that the
   * reader is gone: nothing more is written until 'drain', and a reader that stays behind is let go.
   */
  private write(text: string): void {
    if (this.sink.write(text)) return;
    this.blocked = true;
    this.slowTimer ??= setTimeout(() => this.sink.destroy(), this.streams.slowReaderMs).unref();
  }

  end(): void {
    if (this.closed) return;
    this.sink.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.slowTimer) clearTimeout(this.slowTimer);
    this.streams.remove(this);
  }
}
