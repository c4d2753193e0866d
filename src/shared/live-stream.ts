import type { Database, WriteListener } from '../db/port.js';
import { errors } from '../errors.js';
import type { EventSink } from './event-sink.js';

/** The `retry:` a client waits before reconnecting (EventSource's field), in ms. */
export const STREAM_RETRY_MS = 2000;

export interface StreamLog {
  warn(obj: object, msg: string): void;
}

/** The timers of the live streams, passed in so that a test moves time by hand. */
export interface StreamClock {
  /** Calls `fn` once after `ms`; returns its cancel. */
  after(ms: number, fn: () => void): () => void;
  /** Calls `fn` every `ms`; returns its cancel. */
  every(ms: number, fn: () => void): () => void;
}

/** Node's timers, unref'd: an open stream never keeps the process alive. */
export const nodeClock: StreamClock = {
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms).unref();
    return () => clearTimeout(timer);
  },
  every: (ms, fn) => {
    const timer = setInterval(fn, ms).unref();
    return () => clearInterval(timer);
  },
};

/**
 * A read that runs on the next turn after a wake, outside the waker's call and once for every wake
 * of that turn (a burst of writes is one read), then again while a wake came meanwhile or the last
 * read found a full batch. Its states: `stale` (something may have changed since the last read),
 * `scheduled` (a read is due next turn), `reading`. It reads only while `canRead()`; `resume()`
 * picks up a stale read once it may.
 */
export class ReadLoop {
  private stale = false;
  private scheduled = false;
  private reading = false;

  constructor(
    /** Reads once; true when there is more to read. */
    private readonly read: () => Promise<boolean>,
    private readonly canRead: () => boolean,
    private readonly failed: (err: unknown) => void,
  ) {}

  wake(): void {
    this.stale = true;
    this.resume();
  }

  resume(): void {
    if (!this.stale || this.scheduled || this.reading || !this.canRead()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run(): Promise<void> {
    this.reading = true;
    try {
      while (this.stale && this.canRead()) {
        this.stale = false;
        if (await this.read()) this.stale = true;
      }
    } catch (err) {
      this.failed(err);
    } finally {
      this.reading = false;
    }
  }
}

/** What one kind of stream supplies to the lifecycle: what it reads and sends, and whether it may go on. */
export interface StreamReader {
  log: StreamLog;
  /** Reads what the stream lacks from its cursor and writes it; true when there is more (a full batch). */
  read(): Promise<boolean>;
  /** Whether the stream may go on (its key, its session): false or a throw ends it. */
  stillAllowed?(): Promise<boolean>;
  /** The reader drained after writes were dropped for it: called before it reads again. */
  missed?(): void;
  ended?(): void;
}

/** A cap beyond the venue's: the streams that share `key` (an address, an order) hold `limit` places at most. */
export interface StreamCap {
  key: string;
  limit: number;
  refuse: () => Error;
}

/**
 * One open stream, from its admission to its end: the lifecycle that the API's order streams, the
 * console boards and the guests' order pages share (docs/architecture.md, "Live streams"). Its states:
 * - admitted: counted under its caps and woken by writes, not started until `LiveStreams.open`
 *   has fixed where it starts and handed it the connection;
 * - stale, scheduled, reading (its ReadLoop): a wake makes it stale, and `reader.read()` runs on
 *   the next turn, once for every wake of that turn;
 * - held: the sink holds a write its reader has not taken (write() answered false, past its 16 KB
 *   high-water mark). Nothing more is read until 'drain', and a reader held for `slowReaderMs` is
 *   cut. Held is not yet behind: one batch of a few orders fills the mark even when the kernel
 *   takes it at once, and a stream behind reads for itself (at 50 boards, every batch 50 times);
 * - behind: a write came while held and was dropped; once the reader drains, `reader.missed()`
 *   and a read from the stream's own cursor, so at most one batch waits in memory;
 * - closed: ended by the server (shutdown, a right lost, a failed read, the end of what it
 *   follows) or by the client; its places are given back.
 */
export class LiveStream<R extends StreamReader = StreamReader> {
  held = false;
  behind = false;
  closed = false;
  private sink: EventSink | null = null;
  private readonly loop: ReadLoop;
  private cancelCut: (() => void) | null = null;
  private checking = false;
  private checkAgain = false;

  constructor(
    private readonly streams: LiveStreams<R>,
    readonly venueId: string,
    readonly reader: R,
    readonly caps: readonly StreamCap[] = [],
  ) {
    this.loop = new ReadLoop(
      () => reader.read(),
      () => this.sink !== null && !this.held && !this.closed,
      (err) => this.fail(err),
    );
  }

  /** Takes the connection: the retry hint, then a first read (ended meanwhile: the connection is ended at once). */
  start(sink: EventSink): void {
    this.sink = sink;
    if (this.closed) {
      sink.end();
      return;
    }
    sink.onClose(() => this.finish());
    sink.onDrain(() => this.drained());
    this.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    this.loop.wake();
  }

  /** A write may have committed: the reader reads on the next turn (or once it drains, or starts). */
  wake(): void {
    this.loop.wake();
  }

  /** Writes the text unless the stream is closed, or held (then the text is dropped: behind); answers whether it was written. */
  write(text: string): boolean {
    const { sink } = this;
    if (this.closed || !sink) return false;
    if (this.held) {
      this.behind = true;
      return false;
    }
    if (!sink.write(text)) {
      this.held = true;
      this.cancelCut = this.streams.clock.after(this.streams.slowReaderMs, () => sink.destroy());
    }
    return true;
  }

  private drained(): void {
    this.held = false;
    this.cancelCut?.();
    this.cancelCut = null;
    if (!this.behind) return this.loop.resume();
    this.behind = false;
    this.reader.missed?.();
    this.loop.wake();
  }

  /** A heartbeat: a comment line keeps proxies from closing an idle stream (unless held), and the stream's right is checked. */
  beat(): void {
    if (this.closed || !this.sink) return;
    if (!this.held) this.write(':\n\n');
    if (this.reader.stillAllowed) this.verify();
  }

  /** Whether the stream may go on, as of now (a throw is a no). */
  async allowed(): Promise<boolean> {
    try {
      return (await this.reader.stillAllowed?.()) ?? true;
    } catch {
      return false;
    }
  }

  /**
   * Checks the stream's right now and ends it if it lost it. A check asked while one is out runs
   * after it: the one out may have read the right before what changed it.
   */
  verify(): void {
    if (this.closed) return;
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    void this.allowed().then((allowed) => {
      this.checking = false;
      if (!allowed) this.end();
      else if (this.checkAgain) {
        this.checkAgain = false;
        this.verify();
      }
    });
  }

  /** A read failed (the database is gone, the order too): the client reconnects and resumes from its cursor. */
  fail(err: unknown): void {
    this.reader.log.warn({ err, venueId: this.venueId }, `${this.streams.kind.name} read failed; ending the stream`);
    this.end();
  }

  end(): void {
    if (this.closed) return;
    this.sink?.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancelCut?.();
    this.streams.remove(this);
    this.reader.ended?.();
  }
}

export interface LiveStreamOptions {
  /** Streams one venue may hold open on this server. */
  perVenue?: number;
  /** A comment line this often keeps proxies from closing an idle stream, and checks its right again. */
  heartbeatMs?: number;
  /** How long a reader may leave what was written unread before it is cut. */
  slowReaderMs?: number;
  /** How often streams look for changes while the database cannot tell of every write (PostgreSQL without its change feed). */
  pollMs?: number;
  /** Orders read per round. */
  batch?: number;
  clock?: StreamClock;
}

/** What one kind of stream sets for its registry. */
export interface StreamKind {
  /** Its name in logs. */
  name: string;
  /** The venue's cap unless the options set one. */
  perVenue: number;
  /** A write committed (its scope; none: anything may have changed), here or through the change feed; also each poll. */
  onWrite: WriteListener;
  /** The venue's last stream went. */
  onEmpty?: (venueId: string) => void;
}

/**
 * The live streams of one kind open on this server, by venue: it admits them under their caps,
 * listens for writes, beats and polls only while one is open, and ends them all at shutdown.
 */
export class LiveStreams<R extends StreamReader = StreamReader> {
  readonly perVenue: number;
  readonly slowReaderMs: number;
  readonly batch: number;
  readonly clock: StreamClock;
  /** The server is shutting down: a stream admitted now is ended at once. */
  closed = false;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly byVenue = new Map<string, Set<LiveStream<R>>>();
  /** Places held under each cap beyond the venue's, by its key. */
  private readonly held = new Map<string, number>();
  private stopListening: (() => void) | null = null;

  constructor(
    private readonly db: Pick<Database, 'onWrite' | 'coherent'>,
    readonly kind: StreamKind,
    options: LiveStreamOptions = {},
  ) {
    this.perVenue = options.perVenue ?? kind.perVenue;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.slowReaderMs = options.slowReaderMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1000;
    this.batch = options.batch ?? 100;
    this.clock = options.clock ?? nodeClock;
  }

  /** Streams open, for one venue or in all (GET /metrics, tests). */
  count(venueId?: string): number {
    if (venueId !== undefined) return this.byVenue.get(venueId)?.size ?? 0;
    let n = 0;
    for (const set of this.byVenue.values()) n += set.size;
    return n;
  }

  of(venueId: string): ReadonlySet<LiveStream<R>> {
    return this.byVenue.get(venueId) ?? EMPTY;
  }

  *all(): IterableIterator<LiveStream<R>> {
    for (const set of this.byVenue.values()) yield* set;
  }

  /**
   * Admits a stream and starts it. Its places (the venue's, and one under each of its caps) are
   * checked and taken in this turn, before any await, so streams opening together cannot pass a cap
   * (429 STREAM_LIMIT_REACHED); it is counted and woken by writes from here. Then `prepare` fixes
   * where it starts: a failure ends it, gives its places back and is thrown before `sink()` takes
   * the connection (the route hijacks the response there), so it is an ordinary error response.
   */
  async open(stream: LiveStream<R>, sink: () => EventSink, prepare?: () => Promise<void> | void): Promise<void> {
    if (this.count(stream.venueId) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    const full = stream.caps.find((cap) => (this.held.get(cap.key) ?? 0) >= cap.limit);
    if (full) throw full.refuse();
    for (const { key } of stream.caps) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    this.add(stream);
    try {
      await prepare?.();
    } catch (err) {
      stream.end();
      throw err;
    }
    stream.start(sink());
    // Opened while the server shuts down: ended at once, so the client reconnects elsewhere.
    if (this.closed) stream.end();
  }

  /** Takes an ended stream out and gives its places back (LiveStream.end). */
  remove(stream: LiveStream<R>): void {
    const set = this.byVenue.get(stream.venueId);
    if (!set?.delete(stream)) return;
    for (const { key } of stream.caps) {
      const held = (this.held.get(key) ?? 1) - 1;
      if (held > 0) this.held.set(key, held);
      else this.held.delete(key);
    }
    if (set.size === 0) {
      this.byVenue.delete(stream.venueId);
      this.kind.onEmpty?.(stream.venueId);
    }
    if (this.byVenue.size === 0) this.stop();
  }

  /** Ends every stream (the server is shutting down): clients reconnect, to another instance if there is one. */
  closeAll(): void {
    this.closed = true;
    for (const stream of [...this.all()]) stream.end();
    this.stop();
  }

  private add(stream: LiveStream<R>): void {
    let set = this.byVenue.get(stream.venueId);
    if (!set) this.byVenue.set(stream.venueId, (set = new Set()));
    set.add(stream);
    if (this.stopListening) return;
    const { onWrite } = this.kind;
    const unsubscribe = this.db.onWrite(onWrite);
    const beats = this.clock.every(this.heartbeatMs, () => {
      for (const each of this.all()) each.beat();
    });
    const polls = this.clock.every(this.pollMs, () => {
      if (!this.db.coherent()) onWrite();
    });
    this.stopListening = () => {
      unsubscribe();
      beats();
      polls();
    };
  }

  private stop(): void {
    this.stopListening?.();
    this.stopListening = null;
  }
}

const EMPTY: ReadonlySet<never> = new Set();
