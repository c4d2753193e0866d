import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { BOARD_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { VenueStreams } from '../../shared/venue-streams.js';
import { frame, STREAM_RETRY_MS, type StreamLog } from '../orders/order-stream.js';
import type { OrdersService } from '../orders/orders.service.js';

export interface BoardFeedOptions {
  /** Boards one venue may hold open on this server. */
  perVenue?: number;
  /** A comment line this often, and the session checked again. */
  heartbeatMs?: number;
  /** How long a board may leave what was written unread before it is disconnected. */
  slowReaderMs?: number;
  /** How often feeds look for changes while the database cannot tell them (PostgreSQL without its change feed). */
  pollMs?: number;
  /** Orders read per round. */
  batch?: number;
}

export interface OpenBoard {
  venueId: string;
  /** The last change the board has (its Last-Event-ID or the board's cursor), or null: from now on. */
  after: Date | null;
  /** Whether the board's session still holds (sign-out, a disabled, removed or reset member end it). */
  stillAllowed: () => Promise<boolean>;
  log: StreamLog;
}

/** One event as sent, and the order clock's instant it carries (its id). */
interface Frame {
  at: number;
  text: string;
}

/**
 * The console boards' order events (docs/console.md), in the frames of GET /v1/orders/stream.
 * Unlike an API stream, which reads for itself, a venue's boards share one reader: a write of the
 * venue is read, turned into views and serialised once, however many boards are open (a kitchen,
 * a bar and a counter each hold one, and a busy venue may hold dozens). A board that opens, or
 * fell behind, catches up with reads of its own from its cursor, then follows the shared reader
 * again; the order clock's instants (each write of a venue its own, in commit order) tell it
 * which of the shared events it has already sent.
 */
export class BoardFeeds {
  readonly boards: VenueStreams<Board>;
  private readonly feeds = new Map<string, VenueFeed>();
  /** Boards past the cap's check and not yet joined (reading where they start), by venue: they count against it. */
  private readonly admitting = new Map<string, number>();
  readonly perVenue: number;
  readonly slowReaderMs: number;
  readonly batch: number;

  constructor(
    readonly db: Database,
    readonly orders: Pick<OrdersService, 'orderClock' | 'changedAfter'>,
    options: BoardFeedOptions = {},
  ) {
    this.perVenue = options.perVenue ?? BOARD_STREAMS_PER_VENUE;
    this.slowReaderMs = options.slowReaderMs ?? 30_000;
    this.batch = options.batch ?? 100;
    this.boards = new VenueStreams(db, {
      heartbeatMs: options.heartbeatMs ?? 15_000,
      pollMs: options.pollMs ?? 1000,
      onWrite: (scope) => {
        if (scope) this.feeds.get(scope.venueId)?.wake();
        else for (const feed of this.feeds.values()) feed.wake();
      },
      onEmpty: (venueId) => this.feeds.delete(venueId),
    });
  }

  /** Boards open, for one venue or in all (GET /metrics, tests). */
  count(venueId?: string): number {
    return this.boards.count(venueId);
  }

  /**
   * Admits a board (429 STREAM_LIMIT_REACHED past the venue's cap) and starts its events; `sink()`
   * is called only once it is admitted and its feed is ready (the route hijacks the response there,
   * so a failure before that is an ordinary error response). A board is counted from the cap's
   * check on, before its first await, so boards opening together cannot overrun the cap.
   */
  async open(request: OpenBoard, sink: () => EventSink): Promise<void> {
    const { venueId } = request;
    if (this.count(venueId) + (this.admitting.get(venueId) ?? 0) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    this.admitting.set(venueId, (this.admitting.get(venueId) ?? 0) + 1);
    let board: Board;
    try {
      // From now on: the venue's order clock (none yet: every order is after the start). Read before
      // the board joins its feed, so the feed and the board's catch-up both read from their cursors on.
      const after = request.after ?? (await this.orders.orderClock(venueId)) ?? new Date(0);
      let feed = this.feeds.get(venueId);
      if (!feed) this.feeds.set(venueId, (feed = new VenueFeed(this, venueId)));
      board = new Board(feed, request, after);
    } finally {
      const admitting = (this.admitting.get(venueId) ?? 1) - 1;
      if (admitting > 0) this.admitting.set(venueId, admitting);
      else this.admitting.delete(venueId);
    }
    // Counted by the registry from here, in the same turn as its admission ended; joined before its
    // first read, what the shared reader reads meanwhile waits in its buffer.
    this.boards.add(board);
    try {
      await board.feed.ready;
    } catch (err) {
      board.end();
      throw err;
    }
    board.start(sink());
    if (this.boards.closed) board.end();
  }

  /** The venue's shared reader, while it is the current one: a feed whose boards all left stops reading. */
  current(feed: VenueFeed): boolean {
    return this.feeds.get(feed.venueId) === feed;
  }

  /**
   * Every board of the venue checks its session now: a member was disabled, removed or reset, or
   * signed out, on this server (StaffService.onMembersChanged, the sign-out route). Elsewhere (another
   * server, the CLI) the heartbeat's check ends the board.
   */
  recheck(venueId: string): void {
    for (const board of this.boards.of(venueId)) board.verify();
  }

  /** Ends every board (the server is shutting down): they reconnect, to another instance if there is one. */
  closeAll(): void {
    this.boards.closeAll();
  }
}

/** A venue's shared reader: its cursor, and the boards following it. */
class VenueFeed {
  /** The boards following this feed: the venue's open boards. */
  get boards(): ReadonlySet<Board> {
    return this.feeds.boards.of(this.venueId);
  }
  /** The venue's order clock when the feed opened: the shared reader reads what changes after it. */
  readonly ready: Promise<void>;
  private cursor = new Date(0);
  private dirty = false;
  private reading = false;
  private scheduled = false;

  constructor(
    readonly feeds: BoardFeeds,
    readonly venueId: string,
  ) {
    this.ready = feeds.orders.orderClock(venueId).then((at) => {
      if (at) this.cursor = at;
    });
    // A failure is the opening boards' (each awaits `ready`) and the read's: not an unhandled rejection here.
    this.ready.catch(() => {});
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
      // A feed whose boards all left (a newer one may follow the venue now) reads and sends no more.
      while (this.dirty && this.feeds.current(this)) {
        this.dirty = false;
        const frames = await readFrames(this.feeds, this.venueId, this.cursor);
        if (frames.length === this.feeds.batch) this.dirty = true;
        if (frames.length === 0 || !this.feeds.current(this)) continue;
        this.cursor = new Date(frames[frames.length - 1].at);
        const joined = frames.map((f) => f.text).join('');
        for (const board of this.boards) board.push(frames, joined);
      }
    } catch (err) {
      // Each board catches up from its own cursor when it reconnects: nothing is lost.
      for (const board of this.feeds.current(this) ? [...this.boards] : []) {
        board.log.warn({ err, venueId: this.venueId }, 'board feed read failed; ending the board');
        board.end();
      }
    } finally {
      this.reading = false;
    }
  }
}

/** The venue's orders changed after `after`, oldest first, as events (one batch). */
async function readFrames(feeds: BoardFeeds, venueId: string, after: Date): Promise<Frame[]> {
  const changed = await feeds.orders.changedAfter(venueId, after, feeds.batch);
  return changed.map(({ at, view }) => ({ at, text: frame(view) }));
}

/**
 * One open board. `catching` up, it reads for itself and keeps the shared events in a buffer;
 * `live`, it sends the shared events it lacks; `behind` (its reader has not taken what was sent),
 * it drops them and catches up again once the reader drains.
 */
class Board {
  readonly venueId: string;
  readonly log: StreamLog;
  private state: 'catching' | 'live' | 'behind' = 'catching';
  private buffer: Frame[] = [];
  /** The order clock's instant of the last event sent (ms). */
  private cursor: number;
  private slowTimer: NodeJS.Timeout | null = null;
  /** The sink holds a write its reader has not taken yet (write() answered false): the next write waits for 'drain'. */
  private unflushed = false;
  private checking = false;
  private closed = false;
  /** The connection: none until the board is admitted and its feed ready (start). */
  private sink: EventSink | null = null;

  constructor(
    readonly feed: VenueFeed,
    private readonly request: OpenBoard,
    after: Date,
  ) {
    this.venueId = request.venueId;
    this.log = request.log;
    this.cursor = after.getTime();
  }

  /** Takes the connection and starts: a catch-up from the cursor, then the shared events (ended meanwhile: ended at once). */
  start(sink: EventSink): void {
    this.sink = sink;
    if (this.closed) {
      sink.end();
      return;
    }
    sink.onClose(() => this.finish());
    sink.onDrain(() => {
      this.unflushed = false;
      if (this.state !== 'behind' || this.closed) return;
      if (this.slowTimer) clearTimeout(this.slowTimer);
      this.slowTimer = null;
      void this.catchUp();
    });
    this.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    void this.catchUp();
  }

  push(frames: Frame[], joined: string): void {
    if (this.state === 'live') this.send(frames, joined);
    else if (this.state === 'catching') this.buffer.push(...frames);
  }

  /** Sends the events after the cursor; the shared text as it is when none was sent already. */
  private send(frames: Frame[], joined?: string): void {
    if (frames.length === 0 || frames[frames.length - 1].at <= this.cursor) return;
    const fresh = frames[0].at > this.cursor ? frames : frames.filter((f) => f.at > this.cursor);
    if (!this.write(fresh === frames && joined !== undefined ? joined : fresh.map((f) => f.text).join(''))) return;
    this.cursor = fresh[fresh.length - 1].at;
  }

  /** Reads from the cursor until nothing is left, then sends the buffered shared events and follows them. */
  private async catchUp(): Promise<void> {
    this.state = 'catching';
    this.buffer = [];
    try {
      for (;;) {
        const frames = await readFrames(this.feed.feeds, this.venueId, new Date(this.cursor));
        if (this.closed) return;
        this.send(frames);
        if (this.state !== 'catching') return;
        if (frames.length < this.feed.feeds.batch) break;
      }
      const buffered = this.buffer;
      this.buffer = [];
      this.state = 'live';
      this.send(buffered);
    } catch (err) {
      this.log.warn({ err, venueId: this.venueId }, 'board catch-up failed; ending the board');
      this.end();
    }
  }

  /**
   * Writes the text unless the sink still holds an earlier write; returns whether it was written.
   * The sink answers false once what it holds reaches its high-water mark (16 KB), which one batch
   * of a few orders does even when the kernel takes it at once: that is not yet behind (a board
   * behind reads for itself, and at 50 boards every batch was read 50 times), but the next write
   * waits for 'drain'. A write that comes before it finds the board behind.
   */
  private write(text: string): boolean {
    const { sink } = this;
    if (this.closed || !sink) return false;
    if (!this.unflushed) {
      this.unflushed = !sink.write(text);
      return true;
    }
    // Behind: the shared events are dropped for this board (it reads them again from its cursor
    // once it drains), so at most one batch waits in memory; a board that stays behind is let go.
    this.state = 'behind';
    this.buffer = [];
    this.slowTimer ??= setTimeout(() => sink.destroy(), this.feed.feeds.slowReaderMs).unref();
    return false;
  }

  /** A heartbeat: a comment line (unless behind), and the session checked again. */
  beat(): void {
    if (this.closed || !this.sink) return;
    if (this.state !== 'behind') this.write(':\n\n');
    this.verify();
  }

  /** Checks the session now (unless a check is out already) and ends the board if it lost its right. */
  verify(): void {
    if (this.checking || this.closed) return;
    this.checking = true;
    void this.request
      .stillAllowed()
      .catch(() => false)
      .then((allowed) => {
        if (!allowed) this.end();
      })
      .finally(() => {
        this.checking = false;
      });
  }

  end(): void {
    if (this.closed) return;
    this.sink?.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.slowTimer) clearTimeout(this.slowTimer);
    this.feed.feeds.boards.remove(this);
  }
}
