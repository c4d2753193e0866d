import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { GUEST_ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { VenueStreams } from '../../shared/venue-streams.js';
import type { StreamLog } from '../orders/order-stream.js';
import { STREAM_RETRY_MS } from '../orders/order-stream.js';
import type { GuestOrderView } from './guest.schemas.js';

/** What a follower reads of its order: the ETag (the order's updatedAt) and, when it moved, the view. */
export interface GuestOrderRead {
  etag: string;
  view: () => Promise<GuestOrderView>;
}

export interface GuestFollow {
  venueId: string;
  /** The order as the guest page last showed it (its ETag), or null: send it at once. */
  etag: string | null;
  read: () => Promise<GuestOrderRead>;
  log: StreamLog;
}

export interface GuestOrderStreamOptions {
  perVenue?: number;
  heartbeatMs?: number;
}

const FINAL = new Set(['completed', 'cancelled']);

/**
 * The guest status page's live order (docs/guest-page.md): one Server-Sent Events stream per page,
 * where it polled before. A write of the venue's orders wakes the venue's followers, each reading its
 * own order's ETag with one indexed look-up and sending the order only when it moved; the stream ends
 * once the order is completed or cancelled. Guests of one café share an address, and their pages
 * now hold one request each instead of a poll every 1.5 s against the per-IP budget.
 */
export class GuestOrderStreams {
  private readonly followers: VenueStreams<Follower>;
  private readonly perVenue: number;

  constructor(db: Pick<Database, 'onWrite' | 'coherent'>, options: GuestOrderStreamOptions = {}) {
    this.perVenue = options.perVenue ?? GUEST_ORDER_STREAMS_PER_VENUE;
    this.followers = new VenueStreams(db, {
      heartbeatMs: options.heartbeatMs ?? 15_000,
      pollMs: 1000,
      onWrite: (scope) => {
        for (const follower of scope ? this.followers.of(scope.venueId) : this.followers.all()) follower.wake();
      },
    });
  }

  count(): number {
    return this.followers.count();
  }

  /** Admits a follower (429 STREAM_LIMIT_REACHED past the venue's cap) and sends the order if the page's copy is stale. */
  async open(request: GuestFollow, sink: () => EventSink): Promise<void> {
    if (this.followers.count(request.venueId) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    const follower = new Follower(this, request, sink());
    this.followers.add(follower);
    follower.start();
    if (this.followers.closed) follower.end();
  }

  closeAll(): void {
    this.followers.closeAll();
  }

  remove(follower: Follower): void {
    this.followers.remove(follower);
  }
}

class Follower {
  readonly venueId: string;
  private etag: string | null;
  private scheduled = false;
  private reading = false;
  private dirty = false;
  private closed = false;

  constructor(
    private readonly streams: GuestOrderStreams,
    private readonly request: GuestFollow,
    private readonly sink: EventSink,
  ) {
    this.venueId = request.venueId;
    this.etag = request.etag;
    sink.onClose(() => this.finish());
  }

  start(): void {
    this.sink.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    this.wake();
  }

  /** A write of the venue may have moved the order: one look on the next turn. */
  wake(): void {
    this.dirty = true;
    if (this.scheduled || this.reading || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.look();
    });
  }

  private async look(): Promise<void> {
    this.reading = true;
    try {
      while (this.dirty && !this.closed) {
        this.dirty = false;
        const read = await this.request.read();
        if (read.etag === this.etag || this.closed) continue;
        const view = await read.view();
        this.etag = read.etag;
        // A slow reader's page polls again on its own once it reconnects: it is let go.
        if (!this.sink.write(`id: ${read.etag}\nevent: order.updated\ndata: ${JSON.stringify(view)}\n\n`)) this.sink.destroy();
        if (FINAL.has(view.status)) this.end();
      }
    } catch (err) {
      // The order is gone (its venue removed) or the database failed: the page reconnects.
      this.request.log.warn({ err, venueId: this.venueId }, 'guest order stream read failed; ending the stream');
      this.end();
    } finally {
      this.reading = false;
    }
  }

  beat(): void {
    if (!this.closed) this.sink.write(':\n\n');
  }

  end(): void {
    if (this.closed) return;
    this.sink.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.remove(this);
  }
}
