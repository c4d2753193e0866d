import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { isUuid } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { findDelivery, listDeliveries, redeliver, type DeliveryRow } from './deliveries.repository.js';
import type { WebhookEvents } from './webhook-events.js';
import { findEndpoint } from './webhooks.repository.js';
import type { WebhookDeliveryListView, WebhookDeliveryView } from './webhooks.schemas.js';

function view(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    attemptLog: row.attempt_log.map((a) => ({
      attempt: a.attempt,
      startedAt: new Date(a.started_at).toISOString(),
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
    })),
  };
}

/** An endpoint's delivery log, a manual retry, and the test ping (docs/events.md). */
export class WebhookDeliveriesService {
  constructor(
    private readonly db: Database,
    private readonly events: WebhookEvents,
  ) {}

  private async endpoint(db: Queryable, venueId: string, id: string): Promise<void> {
    if (!(await findEndpoint(db, venueId, id))) throw errors.webhookNotFound();
  }

  async list(venueId: string, endpointId: string, query: { page?: number; limit?: number }): Promise<WebhookDeliveryListView> {
    await this.endpoint(this.db, venueId, endpointId);
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await listDeliveries(this.db, venueId, endpointId, limit, offset);
    return listEnvelope(rows.map(view), total, page, limit);
  }

  /** Sends a delivery's event to its endpoint again, as a new delivery; audited as webhook.retry. */
  async retry(actor: Actor, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const venueId = actor.venue.venueId;
    // Checked in the transaction: an endpoint deleted meanwhile is a 404, not a foreign-key failure.
    // Its bookkeeping writes only order-side tables: its commit leaves the venue's other memos (write-scope.ts).
    const id = await this.db.transaction(
      async (tx) => {
        await this.endpoint(tx, venueId, endpointId);
        if (!isUuid(deliveryId)) throw errors.webhookDeliveryNotFound();
        const created = await redeliver(tx, venueId, endpointId, deliveryId);
        if (!created) throw errors.webhookDeliveryNotFound();
        await audit(tx, actor, [
          { action: 'webhook.retry', entityType: 'webhook', entityRef: endpointId, changes: { deliveryId, retriedAs: created } },
        ]);
        return created;
      },
      { venueId },
    );
    this.events.queued(venueId, 1);
    return this.read(venueId, endpointId, id);
  }

  /** A `ping` event to this endpoint only, whatever it subscribes to; audited as webhook.test. */
  async test(actor: Actor, endpointId: string): Promise<WebhookDeliveryView> {
    const venueId = actor.venue.venueId;
    const id = await this.db.transaction(
      async (tx) => {
        const created = isUuid(endpointId) ? await this.events.ping(tx, venueId, endpointId) : null;
        if (!created) throw errors.webhookNotFound();
        await audit(tx, actor, [
          { action: 'webhook.test', entityType: 'webhook', entityRef: endpointId, changes: { deliveryId: created } },
        ]);
        return created;
      },
      { venueId },
    );
    this.events.queued(venueId, 1);
    return this.read(venueId, endpointId, id);
  }

  private async read(venueId: string, endpointId: string, id: string): Promise<WebhookDeliveryView> {
    const found = await findDelivery(this.db, venueId, endpointId, id);
    if (!found) throw errors.webhookDeliveryNotFound();
    return view(found);
  }
}
