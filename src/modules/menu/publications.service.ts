import type { Database } from '../../db/port.js';
import { lockMenu } from '../../db/venue-locks.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { audit, type Actor } from '../audit/index.js';
import { type AvailabilityService, scheduledCategories, withAvailability } from '../availability/index.js';
import type { MediaService } from '../media/index.js';
import * as menu from './menu.repository.js';
import type { MenuDocumentValue } from './menu.schemas.js';
import type { MenuRef, MenuService } from './menu.service.js';
import { withReadDefaults } from './menu.views.js';
import type { WebhookEvents } from '../webhooks/index.js';
import type { VenueContext } from '../venues/index.js';
import { diffSerialized } from './menu-diff.js';
import * as publications from './publications.repository.js';
import type { MenuDiffValue, RestoreInput, RestoreResult } from './publications.schemas.js';
import { restorePlan } from './restore-plan.js';

/** A menu a diff names: `draft`, `published` or a publication id. */
function menuRef(value: string): MenuRef {
  return value === 'draft' || value === 'published' ? value : { publicationId: value };
}

/** Publication history, diffs between menus, and restore. */
export class PublicationsService {
  constructor(
    private readonly db: Database,
    private readonly menu: MenuService,
    private readonly availability: AvailabilityService,
    private readonly media: MediaService,
    private readonly events: WebhookEvents,
  ) {}

  async list(venueId: string, query: { page?: number; limit?: number }) {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await publications.listPublications(this.db, venueId, { limit, offset });
    const items = rows.map((r) => ({
      id: r.id,
      publishedAt: r.published_at.toISOString(),
      counts: r.counts,
      restoredFrom: r.restored_from,
    }));
    return listEnvelope(items, total, page, limit);
  }

  /** One publication in the menu read shape, with live availability as the published read has. */
  async read(venue: VenueContext, id: string): Promise<MenuDocumentValue> {
    const doc = await this.menu.documentOf(venue, { publicationId: id });
    const marks = await this.availability.marks(venue.venueId);
    return withAvailability(doc, this.availability.stateNow(marks, scheduledCategories(doc)));
  }

  async diff(venue: VenueContext, from = 'published', to = 'draft'): Promise<MenuDiffValue> {
    // One after the other: when both are missing, the answer names `from`'s.
    const before = await this.menu.serializedOf(venue, menuRef(from));
    const after = await this.menu.serializedOf(venue, menuRef(to));
    return { from, to, ...diffSerialized(before, after) };
  }

  /**
   * In one transaction the draft becomes the publication's content: its items are written with its
   * values (hidden products shown again as it had them), draft items it lacks are cleaned up, and,
   * with `publish`, the result is published as a publication whose restoredFrom is `id`.
   */
  async restore(actor: Actor, ref: string, input: RestoreInput): Promise<RestoreResult> {
    const venueId = actor.venue.venueId;
    if (!isUuid(ref)) throw errors.publicationNotFound();
    // As the list shows it, whatever case it was sent in.
    const id = ref.toLowerCase();
    const notify = input.publish === true && (await this.events.wanted(venueId, 'menu.published'));
    const { result, queued, released } = await this.db.transaction(
      async (tx) => {
        await lockMenu(tx, venueId);
        const stored = await publications.findPublicationForRestore(tx, venueId, id);
        if (stored === null) throw errors.publicationNotFound();
        // The draft's keys are read while the snapshot (megabytes) is parsed: the database and this
        // thread at work at once. Awaited below whatever happens, so a failure is never left unheard.
        const draft = publications.draftKeys(tx, venueId);
        let snapshot: MenuDocumentValue;
        try {
          snapshot = withReadDefaults(JSON.parse(stored.document) as MenuDocumentValue);
        } catch (err) {
          await draft.catch(() => undefined);
          throw err;
        }
        const plan = restorePlan(snapshot, await draft, stored.productVersions);
        // Cleaned up first: products they referred to are written whole again just after.
        if (plan.drop.categories.length > 0) await menu.deleteCategories(tx, venueId, plan.drop.categories);
        if (plan.drop.ingredients.length > 0) await menu.deleteIngredients(tx, venueId, plan.drop.ingredients);
        await menu.upsertCategories(tx, venueId, plan.categories);
        await menu.upsertIngredients(tx, venueId, plan.ingredients);
        await menu.upsertProducts(tx, venueId, plan.products);
        await publications.setProductImages(tx, venueId, plan.images);
        if (plan.drop.products.length > 0) await menu.hideProducts(tx, venueId, plan.drop.products);
        let released = await this.media.release(tx, venueId, plan.replacedImageKeys);
        await menu.bumpDraftVersion(tx, venueId);
        const counts = {
          categories: snapshot.categories.length,
          ingredients: snapshot.ingredients.length,
          products: snapshot.products.length,
        };
        await audit(tx, actor, [
          {
            action: 'menu.restore',
            entityType: 'menu',
            entityRef: id,
            changes: {
              counts,
              publish: input.publish === true,
              productsWritten: plan.products.length,
              dropped: {
                categories: plan.drop.categories.length,
                ingredients: plan.drop.ingredients.length,
                products: plan.drop.products.length,
              },
            },
          },
        ]);
        let publicationId: string | null = null;
        let queued = 0;
        if (input.publish === true) {
          const published = await this.menu.publishIn(tx, actor, { notify, restoredFrom: id });
          publicationId = published.result.publicationId;
          queued = published.queued;
          released = [...released, ...published.released];
        }
        return { result: { restoredFrom: id, counts, publicationId }, queued, released };
      },
      { venueId },
    );
    this.events.queued(venueId, queued);
    await this.media.afterRelease(venueId, released);
    return result;
  }
}
