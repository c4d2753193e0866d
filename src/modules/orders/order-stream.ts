import type { Database, WriteScope } from '../../db/port.js';
import { ORDER_STREAMS_PER_VENUE } from '../../limits.js';
import type { EventSink } from '../../shared/event-sink.js';
import { LiveStream, LiveStreams, type LiveStreamOptions, type StreamLog } from '../../shared/live-stream.js';
import * as orders from './orders.repository.js';
import { loadOrderViews } from './order-reads.js';

/** Where a stream starts: after an event it sent (Last-Event-ID), from a time on (updatedSince), or from now. */
export type StreamStart = { after: Date } | { since: Date } | { now: true };

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

/** One event: the cursor as its id, created or updated, and the order as GET /v1/orders/:id shows it. */
export function frame(order: { createdAt: string; updatedAt: string }): string {
  const type = order.createdAt === order.updatedAt ? 'order.created' : 'order.updated';
  return `id: ${order.updatedAt}\nevent: ${type}\ndata: ${JSON.stringify(order)}\n\n`;
}

/**
 * The live order streams of this server (GET /v1/orders/stream, docs/events.md), each a LiveStream
 * that reads for itself. Each stream keeps a cursor, the updated_at of the last order it sent, and
 * reads the venue's orders changed after it, oldest first, whenever a write of the venue commits:
 * the database tells (db.onWrite: this process's commits, and on PostgreSQL every instance's
 * through the change feed), and while it cannot, streams poll. Nothing is pushed from the write
 * itself, so what a stream sends is always what a poll with the same cursor would read, and a
 * reconnect with Last-Event-ID resumes exactly there: the order clock gives each of a venue's order
 * writes its own updated_at, in commit order (orders.repository.ts, tickClock).
 */
export class OrderStreams {
  private readonly streams: LiveStreams;

  constructor(
    private readonly db: Database,
    options: LiveStreamOptions = {},
  ) {
    this.streams = new LiveStreams(db, { name: 'order stream', perVenue: ORDER_STREAMS_PER_VENUE, onWrite: this.woken }, options);
  }

  /** Streams open, for one venue or in all (GET /metrics, tests). */
  count(venueId?: string): number {
    return this.streams.count(venueId);
  }

  /**
   * Admits a stream (429 STREAM_LIMIT_REACHED past the venue's cap, before anything is sent), fixes
   * its cursor, then takes the connection (`sink()`: the route hijacks the response there) and sends
   * what follows the cursor at once.
   */
  async open(request: OpenStream, sink: () => EventSink): Promise<void> {
    const { db } = this;
    const { venueId, start } = request;
    const { batch } = this.streams;
    // What the next read takes: the orders changed after the last one sent (its updated_at is the
    // cursor), or, before anything was sent from updatedSince, those changed at or after that instant.
    let filter: orders.OrderFilter = { updatedAfter: new Date(0) };
    const stream: LiveStream = new LiveStream(this.streams, venueId, {
      log: request.log,
      // On PostgreSQL after a catch-up (a round trip shared by every check of this turn, whatever
      // READ_CONSISTENCY says), so a revocation committed anywhere before now has moved the key's memo.
      stillAllowed: async () => {
        await db.catchUp?.();
        return request.stillAllowed();
      },
      read: async () => {
        const rows = await orders.listOrders(db, venueId, filter, batch, 0);
        if (rows.length === 0) return false;
        const views = await loadOrderViews(db, venueId, rows);
        // The key as it is now, after the read: nothing is sent on a key revoked before it.
        if (!(await stream.allowed())) {
          stream.end();
          return false;
        }
        if (stream.write(views.map(frame).join(''))) filter = { updatedAfter: rows[rows.length - 1].updated_at };
        return rows.length === batch;
      },
    });
    await this.streams.open(stream, sink, async () => {
      if ('after' in start) filter = { updatedAfter: start.after };
      else if ('since' in start) filter = { updatedSince: start.since.toISOString() };
      // No clock yet: the venue has no order, so every order is after the start.
      else filter = { updatedAfter: (await orders.readOrderClock(db, venueId)) ?? new Date(0) };
    });
  }

  /** Ends every stream (the server is shutting down): clients reconnect, to another instance if there is one. */
  closeAll(): void {
    this.streams.closeAll();
  }

  private readonly woken = (scope?: WriteScope): void => {
    if (scope) {
      for (const stream of this.streams.of(scope.venueId)) stream.wake();
      return;
    }
    // A write without a scope may have been a key's revocation or regeneration, or a venue's
    // subscription or plan (operator writes have none), here or, through the change feed, on
    // another instance: every stream checks its key again at once (a reader that is behind
    // reads nothing until it drains), and ends when it lost its right.
    for (const stream of this.streams.all()) {
      stream.verify();
      stream.wake();
    }
  };
}
