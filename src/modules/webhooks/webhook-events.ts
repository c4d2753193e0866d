import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database, Queryable } from '../../db/port.js';
import { uuidv7 } from '../../ids.js';
import { recordEvent, subscribedEvents } from './deliveries.repository.js';
import type { EventHead, OutboxEvent } from './outbox-sql.js';
import type { WebhookEvent } from './webhooks.schemas.js';

/**
 * The outbox's writer (docs/events.md). A change that causes an event asks first, outside its
 * transaction, whether the venue has an endpoint for it (memoised per venue: a venue without
 * webhooks pays nothing), then writes the event in its own transaction, so the two commit
 * together; once committed it wakes the dispatcher.
 */
export class WebhookEvents {
  private readonly subscriptions: EpochMemo<readonly WebhookEvent[]>;
  /** Told after a commit that queued deliveries of the venue (the dispatcher sends them at once). */
  onQueued: ((venueId: string) => void) | null = null;
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

  /**
   * A new event's id and time, for a change whose statement writes the outbox and builds the body
   * from the rows it writes (outboxCall with payloadSql), as a guest order does.
   */
  head(type: WebhookEvent | 'ping'): EventHead {
    return { id: uuidv7(), type, timestamp: new Date().toISOString() };
  }

  /**
   * An event as the outbox stores it: its body is `{ id, type, timestamp, venueId, data }`
   * (docs/events.md), `data` the event's own part.
   */
  draft(venueId: string, type: WebhookEvent | 'ping', data: Record<string, unknown>): OutboxEvent {
    const { id, timestamp } = this.head(type);
    return { id, type, payload: JSON.stringify({ id, type, timestamp, venueId, data }) };
  }

  /** Writes the event in the caller's transaction; returns how many deliveries it queued. */
  async record(tx: Queryable, venueId: string, type: WebhookEvent, data: Record<string, unknown>): Promise<number> {
    return (await recordEvent(tx, venueId, this.draft(venueId, type, data))).length;
  }

  /** A `ping` for one endpoint alone (POST /v1/webhooks/:id/test); the delivery's id, or null for no such endpoint. */
  async ping(tx: Queryable, venueId: string, endpointId: string): Promise<string | null> {
    const [id] = await recordEvent(tx, venueId, this.draft(venueId, 'ping', { endpointId }), endpointId);
    return id ?? null;
  }

  /** After the transaction that recorded events committed. */
  queued(venueId: string, count: number): void {
    if (count > 0) this.onQueued?.(venueId);
  }
}
