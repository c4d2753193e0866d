import type { Database } from '../../db/port.js';
import { BOARD_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { LiveStream, LiveStreams, type LiveStreamOptions, type StreamLog, type StreamReader } from '../../shared/live-stream.js';
import { VenueFeeds } from '../../shared/venue-feed.js';
import { frame, type OrdersService } from '../orders/index.js';

export interface OpenBoard {
  venueId: string;
  /** The last change the board has (its Last-Event-ID or the board's cursor), or null: from now on. */
  after: Date | null;
  /** Whether the board's session still holds (sign-out, a disabled, removed or reset member end it). */
  stillAllowed: () => Promise<boolean>;
  log: StreamLog;
}

type Changes = Awaited<ReturnType<OrdersService['changedAfter']>>;

/** One event as sent, and the order clock's instant it carries (its id). */
interface Frame {
  at: number;
  text: string;
}

const framesOf = (changes: Changes): Frame[] => changes.map(({ at, view }) => ({ at, text: frame(view) }));

/**
 * The console boards' order events (docs/console.md), in the frames of GET /v1/orders/stream.
 * Unlike an API stream, which reads for itself, a venue's boards share one reader (VenueFeeds): a
 * write of the venue is read, turned into views and serialised once, however many boards are open
 * (a kitchen, a bar and a counter each hold one, and a busy venue may hold dozens). A board that
 * opens, or fell behind, catches up with reads of its own from its cursor, then follows the shared
 * reader again; the order clock's instants tell it which of the shared events it has already sent.
 */
export class BoardFeeds {
  readonly streams: LiveStreams<Board>;
  readonly feeds: VenueFeeds<Changes, Board>;

  constructor(
    db: Database,
    readonly orders: Pick<OrdersService, 'orderClock' | 'changedAfter'>,
    options: LiveStreamOptions = {},
  ) {
    this.streams = new LiveStreams(
      db,
      {
        name: 'board',
        perVenue: BOARD_STREAMS_PER_VENUE,
        onWrite: (scope) => this.feeds.wake(scope),
        onEmpty: (venueId) => this.feeds.drop(venueId),
      },
      options,
    );
    this.feeds = new VenueFeeds(
      this.streams,
      orders,
      (changes) => changes,
      (venueId, changes) => {
        const frames = framesOf(changes);
        const joined = frames.map((f) => f.text).join('');
        for (const board of this.streams.of(venueId)) board.reader.push(frames, joined);
      },
    );
  }

  /** Boards open, for one venue or in all (GET /metrics, tests). */
  count(venueId?: string): number {
    return this.streams.count(venueId);
  }

  /**
   * Admits a board (429 STREAM_LIMIT_REACHED past the venue's cap) and starts its events; `sink()`
   * is called only once it is admitted and its feed is ready (the route hijacks the response there,
   * so a failure before that is an ordinary error response).
   */
  async open(request: OpenBoard, sink: () => EventSink): Promise<void> {
    const board = new Board(this, request);
    await this.streams.open(board.live, sink, () => board.prepare());
  }

  /**
   * Every board of the venue checks its session now: a member was disabled, removed or reset, or
   * signed out, on this server (StaffService.onMembersChanged, the sign-out route). Elsewhere (another
   * server, the CLI) the heartbeat's check ends the board.
   */
  recheck(venueId: string): void {
    for (const stream of this.streams.of(venueId)) stream.verify();
  }

  /** Ends every board (the server is shutting down): they reconnect, to another instance if there is one. */
  closeAll(): void {
    this.streams.closeAll();
  }
}

/**
 * One open board. Catching up (as it opens, and after it fell behind), it reads for itself from its
 * cursor and keeps the shared events in a buffer; then it sends the shared events it lacks.
 */
class Board implements StreamReader {
  readonly live: LiveStream<Board>;
  readonly log: StreamLog;
  private catching = true;
  private buffer: Frame[] = [];
  /** The order clock's instant of the last event sent (ms). */
  private cursor = 0;

  constructor(
    private readonly boards: BoardFeeds,
    private readonly request: OpenBoard,
  ) {
    this.live = new LiveStream(boards.streams, request.venueId, this);
    this.log = request.log;
  }

  stillAllowed(): Promise<boolean> {
    return this.request.stillAllowed();
  }

  /**
   * Where it starts: its cursor, or now (the venue's order clock; none yet: every order is after the
   * start), read before it may join a new feed; then it waits for its feed's cursor.
   */
  async prepare(): Promise<void> {
    const { venueId, after } = this.request;
    this.cursor = (after ?? (await this.boards.orders.orderClock(venueId)) ?? new Date(0)).getTime();
    await this.boards.feeds.of(venueId).ready;
  }

  /** The shared reader's events: kept while catching up, dropped while behind (read again from the cursor once it drains). */
  push(frames: Frame[], joined: string): void {
    if (this.live.behind) return;
    if (this.catching) this.buffer.push(...frames);
    else this.send(frames, joined);
  }

  missed(): void {
    this.catching = true;
    this.buffer = [];
  }

  /** One read of the catch-up from the cursor; once nothing is left, the buffered shared events, and it follows them. */
  async read(): Promise<boolean> {
    const { venueId } = this.request;
    const { batch } = this.boards.streams;
    const frames = framesOf(await this.boards.orders.changedAfter(venueId, new Date(this.cursor), batch));
    this.send(frames);
    if (frames.length === batch) return true;
    if (this.live.behind) return false;
    this.catching = false;
    const buffered = this.buffer;
    this.buffer = [];
    this.send(buffered);
    return false;
  }

  /** Sends the events after the cursor, the shared text as it is when none was sent already; the cursor moves once written. */
  private send(frames: Frame[], joined?: string): void {
    if (frames.length === 0 || frames[frames.length - 1].at <= this.cursor) return;
    const fresh = frames[0].at > this.cursor ? frames : frames.filter((f) => f.at > this.cursor);
    if (this.live.write(fresh === frames && joined !== undefined ? joined : fresh.map((f) => f.text).join(''))) {
      this.cursor = fresh[fresh.length - 1].at;
    }
  }
}
