import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { isUuid } from '../../ids.js';
import type { OutboundFetcher } from '../../outbound/fetch-bytes.js';
import { audit, type Actor } from '../audit/index.js';
import { lockMenu } from '../../db/venue-locks.js';
import type { BlobStore, BlobToStore } from './blob-store.js';
import type { ImageProcessor, ProcessedImage } from './image-processor.js';
import { readImageSource } from './image-source.js';
import type { DecodedUpload } from './media-body.js';
import type { ImageTarget } from './image-targets.js';
import type { MediaCache } from './media-cache.js';
import type { MediaCapacity } from './media-capacity.js';
import { MediaMisses } from './media-misses.js';
import { deleteUnreferencedBlobs, venuesWithDeletions } from './media.repository.js';
import type { ImageSourceInput, MediaImageView } from './media.schemas.js';
import { BLOB_FILE, imageKeys, MEDIA_CONTENT_TYPE, type MediaUrls, type StoredImage } from './stored-image.js';

export interface MediaDeps {
  db: Database;
  store: BlobStore;
  processor: ImageProcessor;
  capacity: MediaCapacity;
  cache: MediaCache;
  urls: MediaUrls;
  fetcher: OutboundFetcher;
}

export interface ServedBlob {
  key: string;
  bytes: Buffer;
}

function toStored(processed: ProcessedImage): { image: StoredImage; blobs: BlobToStore[] } {
  const blobs = processed.variants.map((v) => ({
    key: createHash('sha256').update(v.bytes).digest('hex'),
    contentType: MEDIA_CONTENT_TYPE,
    bytes: v.bytes,
  }));
  const variants = processed.variants.map((v, i) => ({ key: blobs[i].key, width: v.width, height: v.height, bytes: v.bytes.length }));
  const [main] = variants;
  return { image: { width: main.width, height: main.height, bytes: main.bytes, variants }, blobs };
}

/**
 * Image ingest, removal and serving. An upload is read and processed outside
 * any transaction; only storing the blobs, pointing the owner at them and letting go of the blobs
 * nothing else uses is one transaction, under the venue's menu lock.
 */
export class MediaService {
  private readonly misses: MediaMisses;

  constructor(private readonly deps: MediaDeps) {
    this.misses = new MediaMisses(deps.db);
  }

  get capacity(): MediaCapacity {
    return this.deps.capacity;
  }

  async upload(
    actor: Actor,
    target: ImageTarget,
    ref: string,
    input: ImageSourceInput,
    options: { preoptimized: boolean; decoded?: DecodedUpload },
  ): Promise<MediaImageView> {
    const { db, processor, capacity, store, urls, fetcher } = this.deps;
    const venueId = actor.venue.venueId;
    // An unknown owner is a 404 before any byte is decoded or fetched.
    await target.find(db, venueId, ref, false);
    const source = await readImageSource(input, fetcher, options.decoded);
    const processed = await capacity.run(() =>
      options.preoptimized ? processor.processPreoptimized(target.kind, source.bytes) : processor.process(target.kind, source.bytes),
    );
    const { image, blobs } = toStored(processed);

    const released = await db.transaction(async (tx) => {
      await lockMenu(tx, venueId);
      const owner = await target.find(tx, venueId, ref, true);
      await store.put(tx, venueId, blobs);
      await target.set(tx, venueId, owner, image);
      const kept = new Set(imageKeys(image));
      const gone = await this.release(
        tx,
        venueId,
        imageKeys(owner.image).filter((k) => !kept.has(k)),
      );
      await audit(tx, actor, [
        {
          action: target.action,
          entityType: target.entityType,
          entityRef: owner.ref,
          // Sizes only: never the bytes, nor the source URL's query string.
          changes: {
            ...source.audit,
            preoptimized: options.preoptimized,
            sourceFormat: processed.source.format,
            sourceWidth: processed.source.width,
            sourceHeight: processed.source.height,
            sourceBytes: processed.source.bytes,
            width: image.width,
            height: image.height,
            bytes: image.bytes,
            variants: image.variants.map((v) => ({ width: v.width, height: v.height, bytes: v.bytes })),
          },
        },
      ]);
      return gone;
    });
    this.misses.forget(
      venueId,
      blobs.map((b) => b.key),
    );
    await this.afterRelease(venueId, released);
    return urls.view(venueId, image) as MediaImageView;
  }

  /** Removes the owner's image; `deleted` is false when it had none (nothing changes, no audit entry). */
  async remove(actor: Actor, target: ImageTarget, ref: string): Promise<{ deleted: boolean }> {
    const venueId = actor.venue.venueId;
    const released = await this.deps.db.transaction(async (tx) => {
      await lockMenu(tx, venueId);
      const owner = await target.find(tx, venueId, ref, true);
      if (!owner.image) return null;
      await target.set(tx, venueId, owner, null);
      const gone = await this.release(tx, venueId, imageKeys(owner.image));
      await audit(tx, actor, [
        {
          action: target.action,
          entityType: target.entityType,
          entityRef: owner.ref,
          changes: { deleted: true, bytes: owner.image.bytes },
        },
      ]);
      return gone;
    });
    if (released === null) return { deleted: false };
    await this.afterRelease(venueId, released);
    return { deleted: true };
  }

  /**
   * In the transaction that dropped references to `keys`: deletes the blobs nothing refers to any
   * more and returns their keys (for afterRelease once committed).
   */
  async release(tx: Queryable, venueId: string, keys: string[]): Promise<string[]> {
    const gone = await deleteUnreferencedBlobs(tx, venueId, keys);
    if (gone.length > 0) await this.deps.store.deleted(tx, venueId, gone);
    return gone;
  }

  /** After commit: evicts the released blobs here and finishes their deletion in the store. */
  async afterRelease(venueId: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    this.deps.cache.evict(venueId, keys);
    // A failure leaves the deletion recorded for the next sweep; the change itself has committed.
    await this.deps.store.flush(this.deps.db, venueId).catch(() => undefined);
  }

  /** Deletions an earlier flush could not finish (S3 unreachable); returns the venues swept. */
  async sweep(): Promise<number> {
    if (this.deps.store.kind === 'database') return 0;
    const venues = await venuesWithDeletions(this.deps.db, 1000);
    for (const venueId of venues) await this.deps.store.flush(this.deps.db, venueId);
    return venues.length;
  }

  /** GET /media/<venueId>/<key>.webp when this instance holds the bytes in memory (no look-up), else undefined. */
  hot(venueId: string, file: string): ServedBlob | undefined {
    const key = BLOB_FILE.exec(file)?.[1];
    const bytes = key === undefined ? undefined : this.deps.cache.get(venueId, key);
    return key !== undefined && bytes ? { key, bytes } : undefined;
  }

  /** GET /media/<venueId>/<key>.webp: the bytes, from memory when hot; 404 for anything else (a recent miss from memory too). */
  async read(venueId: string, file: string): Promise<ServedBlob> {
    const match = BLOB_FILE.exec(file);
    if (!match || !isUuid(venueId)) throw errors.imageNotFound();
    const hot = this.hot(venueId, file);
    if (hot) return hot;
    const key = match[1];
    if (this.misses.has(venueId, key)) throw errors.imageNotFound();
    const mark = this.misses.mark(venueId);
    const bytes = await this.deps.store.get(this.deps.db, venueId, key);
    if (!bytes) {
      this.misses.remember(venueId, key, mark);
      throw errors.imageNotFound();
    }
    this.deps.cache.set(venueId, key, bytes);
    return { key, bytes };
  }

  async close(): Promise<void> {
    await this.deps.fetcher.close();
    await this.deps.store.close();
  }
}
