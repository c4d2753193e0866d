import { EpochMemo } from '../../db/epoch-memo.js';
import type { WebhookEvents } from '../webhooks/index.js';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { isUuid, uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { imageKeys, type MediaUrls, type MediaService } from '../media/index.js';
import type { VenueContext } from '../venues/index.js';
import type { CachedBody, MenuCache } from './menu-cache.js';
import * as menu from './menu.repository.js';
import type { MenuDocumentValue, PublishResult } from './menu.schemas.js';
import { nextTurn } from '../../next-turn.js';
import { menuDocumentInTurns, stringifyInTurns, withReadDefaults } from './menu.views.js';
import { lockMenu } from '../../db/venue-locks.js';
import { remember } from '../../lru.js';
import { DAY_MS, PUBLICATION_RETENTION } from '../../limits.js';
import * as publications from './publications.repository.js';
import {
  type AvailabilityService,
  scheduledCategories,
  withAvailability,
  type AvailabilityState,
  type ScheduledCategory,
} from '../availability/index.js';

/** What a menu version is: the draft's version, or the publication (none yet: null). */
function documentKey(state: menu.MenuStateRow, version: 'draft' | 'published'): string | null {
  return version === 'draft' ? `d${state.draft_version}` : state.latest_publication_id;
}

/** A publication's stored document (JSON text), or null: the guest menu is built from it. */
export function publicationDocument(db: Queryable, venueId: string, publicationId: string): Promise<string | null> {
  return publications.findPublicationDocument(db, venueId, publicationId);
}

/** A menu a diff or a read names: the draft, the latest publication, or a publication by id. */
export type MenuRef = 'draft' | 'published' | { publicationId: string };

interface ReadVersion {
  key: string;
  categories: ScheduledCategory[];
  state: AvailabilityState | null;
  version: string;
}

/** Draft and published menu reads (served from cached bytes) and publishing. */
export class MenuService {
  private readonly states: EpochMemo<menu.MenuStateRow>;
  /** Per venue and kind (draft, published): the version last read, its scheduled categories and its cache version. */
  private readonly versions = new Map<string, Partial<Record<'draft' | 'published', ReadVersion>>>();

  constructor(
    private readonly db: Database,
    private readonly cache: MenuCache,
    private readonly urls: MediaUrls,
    private readonly events: WebhookEvents,
    private readonly availability: AvailabilityService,
    private readonly media: MediaService,
    private readonly clock: () => number,
  ) {
    this.states = new EpochMemo(db);
  }

  /**
   * The menu's cached bytes while the venue's menu state, its marks and its serialised document
   * are all memoised, else undefined (then `read`): the HTTP layer answers a hot read, a 304 most
   * of the time, in the turn that read its request.
   */
  peek(venue: VenueContext, version: 'draft' | 'published'): CachedBody | undefined {
    const state = this.states.peek(venue.venueId);
    if (state === undefined) return undefined;
    const key = documentKey(state, version);
    if (key === null) return undefined;
    const marks = this.availability.peekMarks(venue.venueId);
    const read = this.versions.get(venue.venueId)?.[version];
    if (marks === undefined || read === undefined || read.key !== key) return undefined;
    return this.cache.peek(venue.venueId, version, this.cacheVersion(read, this.availability.stateNow(marks, read.categories)));
  }

  /** The cache version of a menu version in an availability state, built once per state (the 304 path builds no string). */
  private cacheVersion(read: ReadVersion, live: AvailabilityState): string {
    if (read.state !== live) {
      read.state = live;
      read.version = `${read.key}:${live.key}`;
    }
    return read.version;
  }

  /**
   * A menu's document as GET /v1/menu reads it (with availability): the draft, the latest
   * publication, or the publication with that id. 404 MENU_NOT_PUBLISHED or
   * PUBLICATION_NOT_FOUND. The draft and the latest publication are parsed from the read's cached
   * bytes, a fraction of the cost of building the document again from its rows.
   */
  async documentOf(venue: VenueContext, which: MenuRef): Promise<MenuDocumentValue> {
    const found = await this.locate(venue, which);
    const text = typeof found === 'object' ? found.text : (await this.read(venue, found)).body.toString('utf8');
    return withReadDefaults(JSON.parse(text) as MenuDocumentValue);
  }

  /**
   * A menu's document serialised: the draft and the latest publication as their cached reads send
   * them (with availability), an older publication as stored (without).
   */
  async serializedOf(venue: VenueContext, which: MenuRef): Promise<Buffer> {
    const found = await this.locate(venue, which);
    return typeof found === 'object' ? Buffer.from(found.text, 'utf8') : (await this.read(venue, found)).body;
  }

  /** The draft or the latest publication, read through the cache; or an older publication's stored text. */
  private async locate(venue: VenueContext, which: MenuRef): Promise<'draft' | 'published' | { text: string }> {
    if (typeof which !== 'object') return which;
    if (!isUuid(which.publicationId)) throw errors.publicationNotFound();
    const state = await this.states.get(venue.venueId, { venueId: venue.venueId }, () => menu.getMenuState(this.db, venue.venueId));
    if (which.publicationId.toLowerCase() === state.latest_publication_id) return 'published';
    const text = await publications.findPublicationDocument(this.db, venue.venueId, which.publicationId);
    if (text === null) throw errors.publicationNotFound();
    return { text };
  }

  /** A menu version's document as stored or built, without availability. */
  private async document(venue: VenueContext, state: menu.MenuStateRow, version: 'draft' | 'published'): Promise<MenuDocumentValue> {
    if (version === 'draft') {
      const rows = await menu.loadMenu(this.db, venue.venueId);
      return menuDocumentInTurns(
        rows,
        {
          version: 'draft',
          publicationId: null,
          publishedAt: null,
          currency: venue.currency,
          // The same bytes for one draft version on every instance and after restarts (one ETag).
          generatedAt: state.draft_changed_at.toISOString(),
        },
        (image) => this.urls.view(venue.venueId, image),
      );
    }
    const document = await publications.findPublicationDocument(this.db, venue.venueId, state.latest_publication_id as string);
    if (document === null) throw errors.menuNotPublished();
    return withReadDefaults(JSON.parse(document) as MenuDocumentValue);
  }

  /**
   * A menu version with live availability on it: cached by the version and the
   * availability state, which moves when a mark is set, cleared or ends, or a category opens or closes.
   */
  async read(venue: VenueContext, version: 'draft' | 'published'): Promise<CachedBody> {
    const state = await this.states.get(venue.venueId, { venueId: venue.venueId }, () => menu.getMenuState(this.db, venue.venueId));
    const key = documentKey(state, version);
    if (key === null) throw errors.menuNotPublished();
    const marks = await this.availability.marks(venue.venueId);
    let doc: MenuDocumentValue | undefined;
    let read = this.versions.get(venue.venueId)?.[version];
    if (read === undefined || read.key !== key) {
      doc = await this.document(venue, state, version);
      read = { key, categories: scheduledCategories(doc), state: null, version: '' };
      remember(this.versions, venue.venueId, { ...this.versions.get(venue.venueId), [version]: read }, 2000);
    }
    const live = this.availability.stateNow(marks, read.categories);
    return this.cache.get(venue.venueId, version, this.cacheVersion(read, live), async () =>
      stringifyInTurns(withAvailability(doc ?? (await this.document(venue, state, version)), live)),
    );
  }

  /** Freezes the draft as an immutable snapshot; every call makes a new one. */
  async publish(actor: Actor): Promise<PublishResult> {
    const venueId = actor.venue.venueId;
    const notify = await this.events.wanted(venueId, 'menu.published');
    const { result, queued, released } = await this.db.transaction(
      async (tx) => {
        await lockMenu(tx, venueId);
        return this.publishIn(tx, actor, { notify, restoredFrom: null });
      },
      { venueId },
    );
    this.events.queued(venueId, queued);
    await this.media.afterRelease(venueId, released);
    return result;
  }

  /**
   * Publishes the draft in `tx`, which holds the venue's menu lock, and prunes the publications
   * past retention (the last 90 days, and always the latest 20). Returns the webhook
   * events queued and the image keys released, for after commit.
   */
  async publishIn(
    tx: Queryable,
    actor: Actor,
    options: { notify: boolean; restoredFrom: string | null },
  ): Promise<{ result: PublishResult; queued: number; released: string[] }> {
    const { venue } = actor;
    const rows = await menu.loadMenu(tx, venue.venueId);
    const publicationId = uuidv7();
    const now = this.clock();
    const publishedAt = new Date(now).toISOString();
    // Image URLs are written into the snapshot as they are now; its blobs are kept while it exists.
    const document = await menuDocumentInTurns(
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
    // A large menu's document takes tens of milliseconds to build, to serialise and to send: turns
    // of their own (docs/security.md, "Bounded work").
    const json = await stringifyInTurns(document);
    await nextTurn();
    const { restoredFrom } = options;
    const productVersions = Object.fromEntries(rows.products.map((p) => [p.id, publications.productVersion(p)]));
    await publications.insertPublication(tx, venue.venueId, {
      id: publicationId,
      publishedAt,
      json,
      counts,
      mediaKeys,
      restoredFrom,
      productVersions,
    });
    const pruned = await publications.prunePublications(
      tx,
      venue.venueId,
      new Date(now - PUBLICATION_RETENTION.days * DAY_MS),
      PUBLICATION_RETENTION.latest,
    );
    const released = await this.media.release(tx, venue.venueId, pruned);
    await audit(tx, actor, [{ action: 'menu.publish', entityType: 'menu', entityRef: publicationId, changes: { counts } }]);
    const queued = options.notify
      ? await this.events.record(tx, venue.venueId, 'menu.published', { publicationId, publishedAt, counts })
      : 0;
    return { result: { publicationId, publishedAt, counts }, queued, released };
  }
}
