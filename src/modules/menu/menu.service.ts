import { EpochMemo } from '../../db/epoch-memo.js';
import type { WebhookEvents } from '../webhooks/webhook-events.js';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
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

/** What the cached bytes of a menu version are keyed by: the draft's version, or the publication (none yet: null). */
function cacheKey(state: menu.MenuStateRow, version: 'draft' | 'published'): string | null {
  return version === 'draft' ? `d${state.draft_version}` : state.latest_publication_id;
}

/** A publication's stored document (JSON text), or null: the guest menu is built from it. */
export function publicationDocument(db: Queryable, venueId: string, publicationId: string): Promise<string | null> {
  return menu.findPublicationDocument(db, venueId, publicationId);
}

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

  /**
   * The menu's cached bytes while the venue's menu state and its serialised document are both
   * memoised, else undefined (then `read`): the HTTP layer answers a hot read, a 304 most of the
   * time, in the turn that read its request.
   */
  peek(venue: VenueContext, version: 'draft' | 'published'): CachedBody | undefined {
    const state = this.states.peek(venue.venueId);
    if (state === undefined) return undefined;
    const key = cacheKey(state, version);
    return key === null ? undefined : this.cache.peek(venue.venueId, version, key);
  }

  async read(venue: VenueContext, version: 'draft' | 'published'): Promise<CachedBody> {
    const state = await this.states.get(venue.venueId, { venueId: venue.venueId }, () => menu.getMenuState(this.db, venue.venueId));
    const key = cacheKey(state, version);
    if (version === 'draft') {
      return this.cache.get(venue.venueId, version, key as string, async () => {
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
    return this.cache.get(venue.venueId, version, publicationId, async () => {
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
    }, { venueId: venue.venueId });
    this.events.queued(venue.venueId, queued);
    return result;
  }
}
