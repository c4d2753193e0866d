import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { uuidv7 } from '../../ids.js';
import { WEBHOOK_ENDPOINTS_PER_VENUE } from '../../limits.js';
import type { AllowedEndpoint } from '../../outbound/guarded-connector.js';
import { audit, type Actor } from '../audit/index.js';
import { assertRoom, ChangeSet } from '../../shared/writes.js';
import { endpointUrl } from './endpoint-url.js';
import { SECRET_PREFIX } from './webhook-sender.js';
import {
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  lockEndpoints,
  rotateSecret,
  updateEndpoint,
  type WebhookEndpointChanges,
  type WebhookEndpointRow,
} from './webhooks.repository.js';
import {
  WEBHOOK_EVENTS,
  type WebhookCreateInput,
  type WebhookEndpointView,
  type WebhookEndpointWithSecretView,
  type WebhookEvent,
  type WebhookListView,
  type WebhookPatchInput,
} from './webhooks.schemas.js';

/** How long a replaced signing secret keeps signing deliveries after a rotation. */
const PREVIOUS_SECRET_GRACE_HOURS = 24;

/** Standard Webhooks' secret format: `whsec_` and the base64 of 32 bytes from the CSPRNG. */
const newSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** The catalogue's order, each event once: what is stored, so equal sets compare equal. */
const canonicalEvents = (events: readonly WebhookEvent[]) => WEBHOOK_EVENTS.filter((e) => events.includes(e));

function view(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    // Stored in the catalogue's order (every write goes through canonicalEvents).
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    mode: row.mode,
    secretHint: row.secret.slice(-4),
    previousSecretExpiresAt: row.previous_secret_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const withSecret = (row: WebhookEndpointRow): WebhookEndpointWithSecretView => ({ ...view(row), secret: row.secret });

/** Webhook endpoints (docs/events.md): where a venue's events go, and their signing secrets. */
export class WebhooksService {
  constructor(
    private readonly db: Database,
    /** SSRF_TEST_ALLOW: the loopback endpoints a test may register, over plain http too. */
    private readonly allow: readonly AllowedEndpoint[],
  ) {}

  private async load(db: Queryable, venueId: string, id: string, forUpdate = false): Promise<WebhookEndpointRow> {
    const row = await findEndpoint(db, venueId, id, forUpdate);
    if (!row) throw errors.webhookNotFound();
    return row;
  }

  async list(venueId: string, query: { page?: number; limit?: number }): Promise<WebhookListView> {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await listEndpoints(this.db, venueId, limit, offset);
    return listEnvelope(rows.map(view), total, page, limit);
  }

  async get(venueId: string, id: string): Promise<WebhookEndpointView> {
    return view(await this.load(this.db, venueId, id));
  }

  /**
   * A new endpoint in the mode of the key that made it, with its signing secret (shown here and on
   * rotate only). Past the per-venue cap: 400 WEBHOOK_ENDPOINT_LIMIT_REACHED.
   */
  async create(actor: Actor, input: WebhookCreateInput): Promise<WebhookEndpointWithSecretView> {
    const { venueId, mode } = actor.venue;
    const url = endpointUrl(input.url, this.allow);
    return this.db.transaction(
      async (tx) => {
        await lockEndpoints(tx, venueId);
        assertRoom(WEBHOOK_ENDPOINTS_PER_VENUE, await countEndpoints(tx, venueId), errors.webhookEndpointLimit);
        const id = uuidv7();
        await insertEndpoint(tx, venueId, {
          id,
          url,
          events: canonicalEvents(input.events),
          description: input.description ?? null,
          mode,
          secret: newSecret(),
        });
        await audit(tx, actor, [{ action: 'webhook.create', entityType: 'webhook', entityRef: id, changes: { id } }]);
        return withSecret(await this.load(tx, venueId, id));
      },
      { venueId },
    );
  }

  /** Changes the fields sent; `enabled: true` also clears disabledReason. A PATCH that changes nothing is not audited. */
  async patch(actor: Actor, id: string, input: WebhookPatchInput): Promise<WebhookEndpointView> {
    const venueId = actor.venue.venueId;
    const url = input.url === undefined ? undefined : endpointUrl(input.url, this.allow);
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        const change = new ChangeSet(row);
        if (url !== undefined) change.set('url', 'url', url);
        if (input.events !== undefined) change.set('events', 'events', canonicalEvents(input.events));
        if (input.description !== undefined) change.set('description', 'description', input.description);
        if (input.enabled !== undefined) change.set('enabled', 'enabled', input.enabled);
        if (input.enabled === true) change.set('disabledReason', 'disabled_reason', null);
        if (change.empty) return view(row);
        await updateEndpoint(tx, venueId, row.id, change.changes as WebhookEndpointChanges);
        await audit(tx, actor, [
          { action: 'webhook.update', entityType: 'webhook', entityRef: row.id, changes: { fields: change.fields } },
        ]);
        return view(await this.load(tx, venueId, row.id));
      },
      { venueId },
    );
  }

  /**
   * A new signing secret, shown in the response; the replaced one keeps signing deliveries for
   * 24 hours, so receivers can switch without losing any. Audited as webhook.update of `secret`.
   */
  async rotateSecret(actor: Actor, id: string): Promise<WebhookEndpointWithSecretView> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        await rotateSecret(tx, venueId, row.id, newSecret(), PREVIOUS_SECRET_GRACE_HOURS);
        await audit(tx, actor, [{ action: 'webhook.update', entityType: 'webhook', entityRef: row.id, changes: { fields: ['secret'] } }]);
        return withSecret(await this.load(tx, venueId, row.id));
      },
      { venueId },
    );
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const venueId = actor.venue.venueId;
    await this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        await deleteEndpoint(tx, venueId, row.id);
        await audit(tx, actor, [{ action: 'webhook.delete', entityType: 'webhook', entityRef: row.id, changes: { id: row.id } }]);
      },
      { venueId },
    );
  }
}
