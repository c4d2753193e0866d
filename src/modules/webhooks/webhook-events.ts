import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database, Queryable } from '../../db/port.js';
import { uuidv7 } from '../../ids.js';
import { recordEvent, subscribedEvents } from './deliveries.repository.js';
import type { WebhookEvent } from './webhooks.schemas.js';

/**
 * The outbox's writer (docs/events.md). A change that causes an event asks first, outside its
 * transaction, whether the venue has an endpoint for it (memoised per venue: a venue without
 * webhooks pays nothing), then writes the event in its own transaction, so the two commit
 * together; once committed it wakes the dispatcher.
 */
export class WebhookEvents {
  private readonly subscriptions: EpochMemo<readonly WebhookEvent[]>;
  /** Told after a commit that queued deliveries (the dispatcher sends them at once). */
  onQueued: (() => void) | null = null;
  /** Told when a venue turns out to have webhooks (the dispatcher starts polling). */
  onSubscribed: (() => void) | null = null;

  constructor(private readonly db: Database) {
    this.subscriptions = new EpochMemo(db);
  }

  /** Whether an event of this type would reach an endpoint of the venue: read before the transaction. */
  async wanted(venueId: string, type: WebhookEvent): Promise<boolean> {
    const types = await this.subscriptions.get(venueId, { venueId }, () => subscribedEvents(this.db, venueId));
    if (types.length > 0) this.onSubscribed?.();
    return types.includes(type);
  }

  /** An event's id and body: `{ id, type, timestamp, venueId, data }` (docs/events.md). */
  private envelope(venueId: string, type: WebhookEvent | 'ping', data: Record<string, unknown>): { id: string; payload: string } {
    const id = uuidv7();
    return { id, payload: JSON.stringify({ id, type, timestamp: new Date().toISOString(), venueId, data }) };
  }

  /** Writes the event in the caller's transaction; `data` is the event's own part of the payload. */
  async record(tx: Queryable, venueId: string, type: WebhookEvent, data: Record<string, unknown>): Promise<number> {
    return (await recordEvent(tx, venueId, { ...this.envelope(venueId, type, data), type })).length;
  }

  /** A `ping` for one endpoint alone (POST /v1/webhooks/:id/test); the delivery's id, or null for no such endpoint. */
  async ping(tx: Queryable, venueId: string, endpointId: string): Promise<string | null> {
    const [id] = await recordEvent(tx, venueId, { ...this.envelope(venueId, 'ping', { endpointId }), type: 'ping' }, endpointId);
    return id ?? null;
  }

  /** After the transaction that recorded events committed. */
  queued(count: number): void {
    if (count > 0) this.onQueued?.();
  }
}
