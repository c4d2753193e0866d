import { EpochMemo } from '../../db/epoch-memo.js';
import type { WebhookEvents } from '../webhooks/webhook-events.js';
import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { whenReady } from '../../when-ready.js';
import { uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/audit.service.js';
import { imageKeys, type MediaUrls } from '../media/stored-image.js';
import type { VenueContext } from '../venues/api-keys.service.js';
import type { CachedBody, MenuCache } from './menu-cache.js';
import * as menu from './menu.repository.js';
import type { PublishResult } from './menu.schemas.js';
import { nextTurn } from '../../next-turn.js';
import { menuDocument } from './menu.views.js';
import { lockMenu } from '../../db/venue-locks.js';

/** Draft and published menu reads (served from cached bytes) and publishing. */
export class MenuService {
  private readonly states: EpochMemo<menu.MenuStateRow>;

  constructor(
    private readonly db: Database,
    private readonly cache: MenuCache,
    private readonly urls: MediaUrls,
    private readonly events: WebhookEvents,
  ) {
    this.states = new EpochMemo(db);
  }

  read(venue: VenueContext, version: 'draft' | 'published'): CachedBody | Promise<CachedBody> {
    const state = this.states.get(venue.venueId, { venueId: venue.venueId }, () => menu.getMenuState(this.db, venue.venueId));
    // Synchronous while everything is memoised: a 304 then awaits nothing but the route's own await.
    return whenReady(state, (s) => this.readAt(venue, version, s));
  }

  private readAt(venue: VenueContext, version: 'draft' | 'published', state: menu.MenuStateRow): CachedBody | Promise<CachedBody> {
    if (version === 'draft') {
      return this.cache.get(venue.venueId, 'draft', `d${state.draft_version}`, async () => {
        const rows = await menu.loadMenu(this.db, venue.venueId);
        const doc = menuDocument(rows, {
          version: 'draft',
          publicationId: null,
          publishedAt: null,
          currency: venue.currency,
          // The same bytes for one draft version on every instance and after restarts (one ETag).
          generatedAt: state.draft_changed_at.toISOString(),
        }, (image) => this.urls.view(venue.venueId, image));
        return JSON.stringify(doc);
      });
    }
    const publicationId = state.latest_publication_id;
    if (!publicationId) throw errors.menuNotPublished();
    return this.cache.get(venue.venueId, 'published', publicationId, async () => {
      const document = await menu.findPublicationDocument(this.db, venue.venueId, publicationId);
      if (document === null) throw errors.menuNotPublished();
      return document;
    });
  }

  /** Spec 3.2: freezes the draft as an immutable snapshot; every call makes a new one. */
  async publish(actor: Actor): Promise<PublishResult> {
    const { venue } = actor;
    const notify = await this.events.wanted(venue.venueId, 'menu.published');
    let queued = 0;
    const result = await this.db.transaction(async (tx) => {
      await lockMenu(tx, venue.venueId);
      const rows = await menu.loadMenu(tx, venue.venueId);
      const publicationId = uuidv7();
      const publishedAt = new Date().toISOString();
      // Image URLs are written into the snapshot as they are now; its blobs are kept while it exists.
      const document = menuDocument(
        rows,
        { version: 'published', publicationId, publishedAt, currency: venue.currency, generatedAt: publishedAt },
        (image) => this.urls.view(venue.venueId, image),
      );
      const counts = {
        categories: document.categories.length,
        ingredients: document.ingredients.length,
        products: document.products.length,
      };
      const mediaKeys = [...new Set(rows.products.flatMap((p) => imageKeys(p.image)))];
      // A large menu's document takes tens of milliseconds to build, to serialise and to send:
      // three turns, not one (docs/security.md, "Bounded work").
      await nextTurn();
      const json = JSON.stringify(document);
      await nextTurn();
      await menu.insertPublication(tx, venue.venueId, { id: publicationId, publishedAt, json, counts, mediaKeys });
      await audit(tx, actor, [{ action: 'menu.publish', entityType: 'menu', entityRef: publicationId, changes: { counts } }]);
      if (notify) queued = await this.events.record(tx, venue.venueId, 'menu.published', { publicationId, publishedAt, counts });
      return { publicationId, publishedAt, counts };
    }, { scope: { venueId: venue.venueId } });
    this.events.queued(venue.venueId, queued);
    return result;
  }
}
