import type { Database, WriteScope } from '../db/port.js';

/** An open live stream, as its server's registry sees it. */
export interface LiveStream {
  readonly venueId: string;
  /** A heartbeat: a comment line keeps proxies from closing it, and it may check its right again. */
  beat(): void;
  /** Ends it (the client reconnects). */
  end(): void;
}

export interface VenueStreamsOptions {
  heartbeatMs: number;
  /** How often to look for changes while the database cannot tell of every write (PostgreSQL without its change feed). */
  pollMs: number;
  /** A write committed (its scope; none: anything may have changed), here or through the change feed; also each poll. */
  onWrite: (scope?: WriteScope) => void;
  /** The venue's last stream went. */
  onEmpty?: (venueId: string) => void;
}

/**
 * The live streams of one kind open on this server, by venue (the API's order streams, the console
 * boards, the guests' order pages): it listens for writes, beats and polls only while one is open,
 * and ends them all when the server shuts down.
 */
export class VenueStreams<S extends LiveStream> {
  private readonly byVenue = new Map<string, Set<S>>();
  private unsubscribe: (() => void) | null = null;
  private timers: NodeJS.Timeout[] = [];
  /** The server is shutting down: a stream admitted now is ended at once. */
  closed = false;

  constructor(
    private readonly db: Pick<Database, 'onWrite' | 'coherent'>,
    private readonly options: VenueStreamsOptions,
  ) {}

  /** Streams open, for one venue or in all. */
  count(venueId?: string): number {
    if (venueId !== undefined) return this.byVenue.get(venueId)?.size ?? 0;
    let n = 0;
    for (const set of this.byVenue.values()) n += set.size;
    return n;
  }

  of(venueId: string): ReadonlySet<S> {
    return this.byVenue.get(venueId) ?? EMPTY;
  }

  *all(): IterableIterator<S> {
    for (const set of this.byVenue.values()) yield* set;
  }

  add(stream: S): void {
    let set = this.byVenue.get(stream.venueId);
    if (!set) this.byVenue.set(stream.venueId, (set = new Set()));
    set.add(stream);
    this.arm();
  }

  remove(stream: S): void {
    const set = this.byVenue.get(stream.venueId);
    if (!set?.delete(stream)) return;
    if (set.size === 0) {
      this.byVenue.delete(stream.venueId);
      this.options.onEmpty?.(stream.venueId);
    }
    if (this.byVenue.size === 0) this.disarm();
  }

  /** Ends every stream (the server is shutting down): clients reconnect, to another instance if there is one. */
  closeAll(): void {
    this.closed = true;
    for (const stream of [...this.all()]) stream.end();
    this.disarm();
  }

  private arm(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.db.onWrite(this.options.onWrite);
    this.timers = [
      setInterval(() => {
        for (const stream of this.all()) stream.beat();
      }, this.options.heartbeatMs).unref(),
      setInterval(() => {
        if (!this.db.coherent()) this.options.onWrite();
      }, this.options.pollMs).unref(),
    ];
  }

  private disarm(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }
}

const EMPTY: ReadonlySet<never> = new Set();
