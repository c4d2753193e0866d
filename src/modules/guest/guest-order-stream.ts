import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { GUEST_ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { LiveStream, LiveStreams, type LiveStreamOptions, type StreamLog, type StreamReader } from '../../shared/live-stream.js';
import { VenueFeeds, type ChangeSource } from '../../shared/venue-feed.js';
import type { GuestOrderChanges } from './guest.service.js';
import type { GuestOrderView } from './guest.schemas.js';

/** What a follower reads of its own order as it opens: its change's instant and ETag, its status and the view. */
export interface GuestOrderRead {
  at: number;
  etag: string;
  status: string;
  view: () => Promise<GuestOrderView>;
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

/** Streams one address may hold (a café's guests share one), and one order (a guest's tabs). */
const PER_ADDRESS = 50;
const PER_ORDER = 3;

const FINAL = new Set(['completed', 'cancelled']);

/** One event: the ETag as its id, and the order as the guest read answers it. */
const frame = (etag: string, view: GuestOrderView) => `id: ${etag}\nevent: order.updated\ndata: ${JSON.stringify(view)}\n\n`;

/**
 * The guest status page's live order (docs/guest-page.md): one Server-Sent Events stream per page,
 * where it polled before. A venue's followers share one reader (VenueFeeds): a write of the venue
 * makes it read the venue's guest orders changed since its cursor (the order clock) in one
 * statement, and only the followers of those orders are sent anything, so what a write costs does
 * not grow with the streams open. A follower reads its own order once as it opens; the stream ends
 * once the order is completed or cancelled.
 */
export class GuestOrderStreams {
  readonly streams: LiveStreams<Follower>;
  private readonly feeds: VenueFeeds<GuestOrderChanges, Follower>;
  /** The open followers of each order, by its token. */
  private readonly byToken = new Map<string, Set<Follower>>();

  constructor(db: Pick<Database, 'onWrite' | 'coherent'>, source: ChangeSource<GuestOrderChanges>, options: LiveStreamOptions = {}) {
    this.streams = new LiveStreams(
      db,
      {
        name: 'guest order stream',
        perVenue: GUEST_ORDER_STREAMS_PER_VENUE,
        onWrite: (scope) => this.feeds.wake(scope),
        onEmpty: (venueId) => this.feeds.drop(venueId),
      },
      options,
    );
    this.feeds = new VenueFeeds(
      this.streams,
      source,
      (batch) => batch.changes,
      (_venueId, batch) => this.deliver(batch),
    );
  }

  count(): number {
    return this.streams.count();
  }

  /**
   * Admits a follower and sends the order if the page's copy is stale: 429 STREAM_LIMIT_REACHED past
   * the venue's cap, or past an address's or an order's (the page then polls).
   */
  async open(request: GuestFollow, sink: () => EventSink): Promise<void> {
    const follower = new Follower(this, request);
    await this.streams.open(follower.live, sink, () => {
      follower.ready = this.feeds.of(request.venueId).ready;
      let set = this.byToken.get(request.token);
      if (!set) this.byToken.set(request.token, (set = new Set()));
      set.add(follower);
    });
  }

  unfollow(follower: Follower): void {
    const set = this.byToken.get(follower.request.token);
    if (set?.delete(follower) && set.size === 0) this.byToken.delete(follower.request.token);
  }

  closeAll(): void {
    this.streams.closeAll();
  }

  /** The changed orders that someone follows, their views built once, to their followers. */
  private async deliver(batch: GuestOrderChanges): Promise<void> {
    const followed = batch.changes.filter((c) => this.byToken.has(c.token));
    if (followed.length === 0) return;
    const views = await batch.views(new Set(followed.map((c) => c.token)));
    for (const change of followed) {
      const view = views.get(change.token);
      if (!view) continue;
      const text = frame(change.etag, view);
      for (const follower of [...(this.byToken.get(change.token) ?? [])]) follower.offer(change, text);
    }
  }
}

/** One guest page following its order. */
class Follower implements StreamReader {
  readonly live: LiveStream<Follower>;
  readonly log: StreamLog;
  /** Its venue's feed has fixed its cursor (set as the follower joins it). */
  ready: Promise<void> = Promise.resolve();
  /** The order clock's instant of the state the page has (sent, or its Last-Event-ID's), -1: none yet. */
  private sent = -1;

  constructor(
    private readonly owner: GuestOrderStreams,
    readonly request: GuestFollow,
  ) {
    const refuse = () => errors.guestStreamLimit();
    this.live = new LiveStream(owner.streams, request.venueId, this, [
      { key: `address:${request.address}`, limit: PER_ADDRESS, refuse },
      { key: `order:${request.token}`, limit: PER_ORDER, refuse },
    ]);
    this.log = request.log;
  }

  /** A change of the order, read by the feed: sent unless the page has it or a later state. */
  offer(change: { at: number; etag: string; status: string }, text: string): void {
    if (change.at > this.sent) this.show(change, text);
  }

  /**
   * Reads the order for this follower alone: as it opens, once the feed's cursor is fixed (a change
   * the read misses commits after it, so the feed offers it here), and after it fell behind.
   */
  async read(): Promise<boolean> {
    await this.ready;
    const read = await this.request.read();
    if (read.at <= this.sent) return false;
    const view = read.etag === this.request.etag ? null : await read.view();
    // The feed may have sent this state or a later one meanwhile.
    if (read.at > this.sent) this.show(read, view && frame(read.etag, view));
    return false;
  }

  ended(): void {
    this.owner.unfollow(this);
  }

  private show(state: { at: number; etag: string; status: string }, text: string | null): void {
    // The page has this state already (its Last-Event-ID): nothing to send. Dropped while the reader
    // is behind: it reads the order again once it drains.
    if (text !== null && state.etag !== this.request.etag && !this.live.write(text)) return;
    this.sent = state.at;
    // Finished: nothing more will come (also to a reconnect that has the last state already).
    if (FINAL.has(state.status)) this.live.end();
  }
}
