import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { assertIfMatch } from '../../shared/etag.js';
import { uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { type MediaService, imageKeys, type MediaUrls } from '../media/index.js';
import { lockMenu } from '../../db/venue-locks.js';
import { checkTranslations, mergeTranslations } from '../menu/index.js';
import { readSettings } from '../settings/index.js';
import { findBanner, listBanners, type BannerRow } from './banners.repository.js';
import type { BannerCreateInput, BannerPatchInput, BannerView } from './banners.schemas.js';
import { countRows, deleteRow, insertRow, updateRow } from '../../db/keyed-rows.js';
import { lockMerch } from '../../db/venue-locks.js';
import { assertRoom, ChangeSet } from '../../shared/writes.js';
import { assertHttpsLink, mapViolations, nextSchedule, productIdOf } from './merch-rules.js';
import { etagged, type Etagged } from '../../shared/etag.js';

export function bannerView(row: BannerRow, urls: MediaUrls, venueId: string): BannerView {
  const image = urls.view(venueId, row.image);
  return {
    id: row.id,
    externalId: row.external_id,
    title: row.title,
    subtitle: row.subtitle,
    linkUrl: row.link_url,
    productId: row.product_id,
    productExternalId: row.product_external_id,
    isActive: row.is_active,
    sortOrder: row.sort_order,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    translations: row.translations,
    imageUrl: image ? image.imageUrl : null,
    image,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Columns a PATCH sets from a field of the same meaning (the others need a rule of their own). */
const PLAIN_FIELDS = {
  externalId: 'external_id',
  title: 'title',
  subtitle: 'subtitle',
  linkUrl: 'link_url',
  isActive: 'is_active',
  sortOrder: 'sort_order',
} as const;

/** Banners: CRUD, plan limit, translations; images through the media routes. */
export class BannersService {
  constructor(
    private readonly db: Database,
    private readonly urls: MediaUrls,
    /** Lets go of a deleted banner's image blobs. */
    private readonly media: Pick<MediaService, 'release' | 'afterRelease'>,
  ) {}

  private read(row: BannerRow, venueId: string): Etagged<BannerView> {
    return etagged(bannerView(row, this.urls, venueId));
  }

  private async load(db: Queryable, venueId: string, id: string, forUpdate = false): Promise<BannerRow> {
    const row = await findBanner(db, venueId, id, forUpdate);
    if (!row) throw errors.bannerNotFound();
    return row;
  }

  async list(venueId: string, query: { page?: number; limit?: number }) {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await listBanners(this.db, venueId, limit, offset);
    return listEnvelope(
      rows.map((r) => bannerView(r, this.urls, venueId)),
      total,
      page,
      limit,
    );
  }

  async get(venueId: string, id: string): Promise<Etagged<BannerView>> {
    return this.read(await this.load(this.db, venueId, id), venueId);
  }

  async create(actor: Actor, input: BannerCreateInput): Promise<Etagged<BannerView>> {
    const { venue } = actor;
    const venueId = venue.venueId;
    assertHttpsLink(input.linkUrl);
    return this.db.transaction(
      async (tx) => {
        const settings = await readSettings(tx, venueId);
        const problem = checkTranslations(input.translations, new Set(settings.enabledLanguages));
        if (problem) throw errors.translation(problem.code, `Banner: ${problem.message}`);
        const schedule = nextSchedule(input, null, settings.timezone);
        // The plan limit before the work (resolving the product is part of the work).
        await lockMerch(tx, venueId);
        assertRoom(venue.planDefinition.limits.maxBanners, await countRows(tx, venueId, 'banners'), (d) =>
          errors.merchLimit('BANNER_LIMIT_REACHED', 'banners', d),
        );
        const productId = input.productRef ? await productIdOf(tx, venueId, input.productRef) : null;
        const id = uuidv7();
        await mapViolations({ externalId: input.externalId }, () =>
          insertRow(tx, venueId, 'banners', {
            id,
            external_id: input.externalId ?? null,
            title: input.title,
            subtitle: input.subtitle ?? null,
            link_url: input.linkUrl ?? null,
            product_id: productId,
            is_active: input.isActive ?? true,
            sort_order: input.sortOrder ?? 0,
            ...schedule,
            translations: mergeTranslations({}, input.translations),
          }),
        );
        await audit(tx, actor, [
          {
            action: 'banner.create',
            entityType: 'banner',
            entityRef: input.externalId ?? id,
            changes: { id, externalId: input.externalId ?? null },
          },
        ]);
        return this.read(await this.load(tx, venueId, id), venueId);
      },
      { venueId },
    );
  }

  /** Omitted keeps, null clears, a value sets; If-Match guards against lost updates (412). */
  async patch(actor: Actor, id: string, input: BannerPatchInput, ifMatch: string | undefined): Promise<Etagged<BannerView>> {
    const venueId = actor.venue.venueId;
    assertHttpsLink(input.linkUrl);
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        assertIfMatch(ifMatch, this.read(row, venueId).etag);
        const settings = await readSettings(tx, venueId);
        const change = new ChangeSet(row).plain(input, PLAIN_FIELDS);
        if (input.productRef !== undefined)
          change.set('productRef', 'product_id', input.productRef === null ? null : await productIdOf(tx, venueId, input.productRef));
        const schedule = nextSchedule(input, row, settings.timezone);
        change.set('startsAt', 'starts_at', schedule.starts_at);
        change.set('endsAt', 'ends_at', schedule.ends_at);
        if (input.translations !== undefined) {
          const problem = checkTranslations(input.translations, new Set(settings.enabledLanguages));
          if (problem) throw errors.translation(problem.code, `Banner ${row.external_id ?? row.id}: ${problem.message}`);
          change.set('translations', 'translations', mergeTranslations(row.translations, input.translations));
        }
        if (change.empty) return this.read(row, venueId);
        await mapViolations({ externalId: input.externalId }, () => updateRow(tx, venueId, 'banners', row.id, change.changes));
        await audit(tx, actor, [
          { action: 'banner.update', entityType: 'banner', entityRef: row.external_id ?? row.id, changes: { fields: change.fields } },
        ]);
        return this.read(await this.load(tx, venueId, row.id), venueId);
      },
      { venueId },
    );
  }

  async delete(actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    const venueId = actor.venue.venueId;
    const released = await this.db.transaction(
      async (tx) => {
        // The menu lock: its image's blobs are let go under the lock every image change takes.
        await lockMenu(tx, venueId);
        const row = await this.load(tx, venueId, id, true);
        await deleteRow(tx, venueId, 'banners', row.id);
        const gone = await this.media.release(tx, venueId, imageKeys(row.image));
        await audit(tx, actor, [
          {
            action: 'banner.delete',
            entityType: 'banner',
            entityRef: row.external_id ?? row.id,
            changes: { id: row.id, externalId: row.external_id },
          },
        ]);
        return gone;
      },
      { venueId },
    );
    await this.media.afterRelease(venueId, released);
    return { id, deleted: true };
  }
}
