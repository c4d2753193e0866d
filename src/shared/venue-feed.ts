import type { WriteScope } from '../db/port.js';
import { ReadLoop, type LiveStreams, type StreamReader } from './live-stream.js';

/** Where a venue's shared reader reads: the venue's order clock, and what changed after an instant on it. */
export interface ChangeSource<B> {
  orderClock(venueId: string): Promise<Date | null>;
  changedAfter(venueId: string, after: Date, limit: number): Promise<B>;
}

/**
 * The shared readers of one kind of stream, one per venue with a stream open (the console boards,
 * the guests' order pages). A write of the venue is read once, from the reader's cursor on the order
 * clock (each write of a venue has an instant of its own, in commit order), and handed to `deliver`,
 * which sends it to the streams it concerns: what a write costs does not grow with the streams open.
 * A stream that opens, or fell behind, reads for itself from its own cursor meanwhile.
 */
export class VenueFeeds<B, R extends StreamReader> {
  private readonly feeds = new Map<string, VenueFeed<B, R>>();

  constructor(
    readonly streams: LiveStreams<R>,
    readonly source: ChangeSource<B>,
    /** A batch's changes, oldest first, each with its instant on the order clock (ms). */
    readonly changes: (batch: B) => readonly { at: number }[],
    readonly deliver: (venueId: string, batch: B) => void | Promise<void>,
  ) {}

  /** The venue's reader, made as its first stream is admitted. */
  of(venueId: string): VenueFeed<B, R> {
    let feed = this.feeds.get(venueId);
    if (!feed) this.feeds.set(venueId, (feed = new VenueFeed(this, venueId)));
    return feed;
  }

  /** For LiveStreams' `onWrite`: a write may have committed. */
  wake(scope?: WriteScope): void {
    if (scope) this.feeds.get(scope.venueId)?.loop.wake();
    else for (const feed of this.feeds.values()) feed.loop.wake();
  }

  /** For LiveStreams' `onEmpty`: the venue's last stream went, its reader stops (a new one starts with the next stream). */
  drop(venueId: string): void {
    this.feeds.delete(venueId);
  }

  current(feed: VenueFeed<B, R>): boolean {
    return this.feeds.get(feed.venueId) === feed;
  }
}

class VenueFeed<B, R extends StreamReader> {
  /** The venue's order clock when the feed opened, its cursor's start: a stream reads for itself only after it. */
  readonly ready: Promise<void>;
  readonly loop: ReadLoop;
  private cursor = new Date(0);

  constructor(
    private readonly feeds: VenueFeeds<B, R>,
    readonly venueId: string,
  ) {
    this.ready = feeds.source.orderClock(venueId).then((at) => {
      if (at) this.cursor = at;
    });
    // A failure is the opening streams' (each awaits `ready`) and the read's: not an unhandled rejection here.
    this.ready.catch(() => {});
    // A feed whose streams all left (a newer one may follow the venue now) reads and sends no more.
    this.loop = new ReadLoop(
      () => this.read(),
      () => feeds.current(this),
      (err) => this.failed(err),
    );
  }

  private async read(): Promise<boolean> {
    await this.ready;
    const { batch } = this.feeds.streams;
    const read = await this.feeds.source.changedAfter(this.venueId, this.cursor, batch);
    const changes = this.feeds.changes(read);
    if (changes.length === 0 || !this.feeds.current(this)) return false;
    this.cursor = new Date(changes[changes.length - 1].at);
    await this.feeds.deliver(this.venueId, read);
    return changes.length === batch;
  }

  /** Each stream reads from its own cursor when it reconnects: nothing is lost. */
  private failed(err: unknown): void {
    if (this.feeds.current(this)) for (const stream of [...this.feeds.streams.of(this.venueId)]) stream.fail(err);
  }
}
