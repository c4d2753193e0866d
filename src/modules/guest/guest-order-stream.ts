import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { GUEST_ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { VenueStreams } from '../../shared/venue-streams.js';
import type { StreamLog } from '../orders/order-stream.js';
import { STREAM_RETRY_MS } from '../orders/order-stream.js';
import type { GuestOrderView } from './guest.schemas.js';

/** What a follower reads of its order: the ETag (the order's updatedAt), its status and, when it moved, the view. */
export interface GuestOrderRead {
  etag: string;
  status: string;
  view: () => Promise<GuestOrderView>;
}

export interface GuestFollow {
  venueId: string;
  /** The order's token and the client's address: each holds a few streams at most. */
  token: string;
  ip: string;
  /** The order as the guest page last showed it (its ETag), or null: send it at once. */
  etag: string | null;
  read: () => Promise<GuestOrderRead>;
  log: StreamLog;
}

export interface GuestOrderStreamOptions {
  perVenue?: number;
  heartbeatMs?: number;
  slowReaderMs?: number;
}

/** Streams one address may hold (a café's guests share one), and one order (a guest's tabs). */
const PER_ADDRESS = 50;
const PER_ORDER = 3;

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
  readonly slowReaderMs: number;
  /** Open streams by `ip:<address>` and `order:<token>`. */
  private readonly holders = new Map<string, number>();

  constructor(db: Pick<Database, 'onWrite' | 'coherent'>, options: GuestOrderStreamOptions = {}) {
    this.perVenue = options.perVenue ?? GUEST_ORDER_STREAMS_PER_VENUE;
    this.slowReaderMs = options.slowReaderMs ?? 30_000;
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

  /**
   * Admits a follower and sends the order if the page's copy is stale: 429 STREAM_LIMIT_REACHED past
   * the venue's cap, or past an address's or an order's (the page then polls).
   */
  async open(request: GuestFollow, sink: () => EventSink): Promise<void> {
    if (this.followers.count(request.venueId) >= this.perVenue) throw errors.streamLimit(this.perVenue);
    const keys = [`ip:${request.ip}`, `order:${request.token}`];
    if ((this.holders.get(keys[0]) ?? 0) >= PER_ADDRESS || (this.holders.get(keys[1]) ?? 0) >= PER_ORDER) throw errors.guestStreamLimit();
    for (const key of keys) this.holders.set(key, (this.holders.get(key) ?? 0) + 1);
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
    for (const key of [`ip:${follower.ip}`, `order:${follower.token}`]) {
      const held = (this.holders.get(key) ?? 1) - 1;
      if (held > 0) this.holders.set(key, held);
      else this.holders.delete(key);
    }
  }
}

class Follower {
  readonly venueId: string;
  readonly ip: string;
  readonly token: string;
  private etag: string | null;
  private scheduled = false;
  private reading = false;
  private dirty = false;
  /** The reader has not taken what was written: nothing more is sent until it drains. */
  private blocked = false;
  private slowTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly streams: GuestOrderStreams,
    private readonly request: GuestFollow,
    private readonly sink: EventSink,
  ) {
    this.venueId = request.venueId;
    this.ip = request.ip;
    this.token = request.token;
    this.etag = request.etag;
    sink.onClose(() => this.finish());
    sink.onDrain(() => {
      this.blocked = false;
      if (this.slowTimer) clearTimeout(this.slowTimer);
      this.slowTimer = null;
      if (this.dirty) this.wake();
    });
  }

  start(): void {
    this.sink.write(`retry: ${STREAM_RETRY_MS}\n\n`);
    this.wake();
  }

  /** A write of the venue may have moved the order: one look on the next turn. */
  wake(): void {
    this.dirty = true;
    if (this.scheduled || this.reading || this.blocked || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.look();
    });
  }

  private async look(): Promise<void> {
    this.reading = true;
    try {
      while (this.dirty && !this.blocked && !this.closed) {
        this.dirty = false;
        const read = await this.request.read();
        if (this.closed) return;
        if (read.etag !== this.etag) {
          const view = await read.view();
          this.etag = read.etag;
          this.write(`id: ${read.etag}\nevent: order.updated\ndata: ${JSON.stringify(view)}\n\n`);
        }
        // Finished: nothing more will come (also to a reconnect that has the last state already).
        if (FINAL.has(read.status)) this.end();
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
