import type { ReadScope, WriteListener, WriteScope } from './port.js';

/**
 * Past this many venues with a write of their own remembered, the marks start over as one write
 * to everything: every memo reads once more, and the maps stay bounded however many venues write.
 */
const MAX_VENUES = 50_000;

/**
 * When data last changed, per venue: one clock, and each write stamps what it can have changed
 * with the clock's next value. A memo keeps the stamp of what it read (`of(scope)`) and is fresh
 * while that stamp has not moved, so a write in one venue (or to one venue's orders) leaves the
 * memos of every other venue (and of the venue's menu) valid. A write without a scope stamps
 * everything.
 */
export class WriteEpochs {
  private clock = 0;
  private everything = 0;
  private readonly venues = new Map<string, number>();
  private readonly orders = new Map<string, number>();
  private readonly listeners = new Set<WriteListener>();

  /** A committed write (or a moment after which nothing read before can be trusted). */
  moved(scope?: WriteScope): void {
    const stamp = ++this.clock;
    if (!scope || this.venues.size + this.orders.size >= MAX_VENUES) {
      this.everything = stamp;
      this.venues.clear();
      this.orders.clear();
    } else {
      (scope.ordersOnly ? this.orders : this.venues).set(scope.venueId, stamp);
    }
    for (const listener of this.listeners) listener(scope);
  }

  /** Told of every move, after it (live order streams wake on their venue's); returns the unsubscribe. */
  listen(listener: WriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The stamp of the last write that can have changed what `scope` reads (any write without one). */
  of(scope?: ReadScope): number {
    if (!scope) return this.clock;
    const venue = Math.max(this.everything, this.venues.get(scope.venueId) ?? 0);
    return scope.orders ? Math.max(venue, this.orders.get(scope.venueId) ?? 0) : venue;
  }
}

/** How a scope travels in a NOTIFY payload (venue ids are uuids): '' is everything. */
export function encodeScope(scope?: WriteScope): string {
  if (!scope) return '';
  return `${scope.ordersOnly ? 'o' : 'v'}:${scope.venueId}`;
}

export function decodeScope(payload: string | undefined): WriteScope | undefined {
  const match = payload ? /^([ov]):(.+)$/.exec(payload) : null;
  return match ? { venueId: match[2], ordersOnly: match[1] === 'o' } : undefined;
}
