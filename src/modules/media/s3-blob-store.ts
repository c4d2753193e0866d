// Image bytes in an S3-compatible bucket (MEDIA_S3_*), for deployments that outgrow keeping them in
// the database. Objects are named `<prefix><venueId>/<key>.webp`, the same path as GET /media, so
// MEDIA_PUBLIC_URL can point straight at the bucket or a CDN in front of it.
//
// Ordering against the database, which is the index of what exists:
// - put: objects are written inside the upload's transaction, under the venue's menu lock, before
//   their rows; a rolled-back upload can leave an object without a row (harmless, never served),
//   never a row without its object.
// - delete: the transaction that drops a blob's row records a pending deletion; after commit, flush()
//   takes the venue's lock again, deletes the objects still unreferenced and clears the record. A
//   deletion that fails stays recorded for the next flush or sweep. An upload of the same bytes in
//   between cancels the deletion (it runs under the same lock), so an object in use is never deleted.
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Database, Queryable } from '../../db/port.js';
import { lockMenu } from '../../db/venue-locks.js';
import type { BlobStore, BlobToStore } from './blob-store.js';
import * as media from './media.repository.js';
import type { S3Settings } from '../../config.js';

/** The most keys one DeleteObjects request takes. */
const DELETE_BATCH = 1000;

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // A stalled bucket must not hold the venue's lock (puts run inside the upload's transaction).
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
      // Checksums only where S3 requires them: S3-compatible servers differ in the optional ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(venueId: string, key: string): string {
    return `${this.settings.prefix}${venueId}/${key}.webp`;
  }

  async put(tx: Queryable, venueId: string, blobs: BlobToStore[]): Promise<void> {
    for (const b of blobs) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(venueId, b.key),
          Body: b.bytes,
          ContentType: b.contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    }
    const keys = blobs.map((b) => b.key);
    await media.cancelDeletions(tx, venueId, keys);
    await media.insertBlobs(
      tx,
      venueId,
      blobs.map((b) => ({ key: b.key, contentType: b.contentType, size: b.bytes.length, data: null })),
    );
  }

  async get(db: Queryable, venueId: string, key: string): Promise<Buffer | null> {
    // The row decides whether the blob exists; an object awaiting deletion is not served.
    if (!(await media.findBlob(db, venueId, key, false))) return null;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(venueId, key) }));
      return object.Body ? Buffer.from(await object.Body.transformToByteArray()) : null;
    } catch (err) {
      if (err instanceof NoSuchKey) return null;
      throw err;
    }
  }

  async deleted(tx: Queryable, venueId: string, keys: string[]): Promise<void> {
    await media.insertDeletions(tx, venueId, keys);
  }

  async flush(db: Database, venueId: string): Promise<void> {
    // S3 takes at most 1000 keys per DeleteObjects: a backlog goes in batches, each its own transaction.
    while (await this.flushBatch(db, venueId)) {
      // next batch
    }
  }

  /** Deletes one batch; true when there may be more. */
  private flushBatch(db: Database, venueId: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      await lockMenu(tx, venueId);
      const { gone: keys, taken } = await media.takeDeletions(tx, venueId, DELETE_BATCH);
      if (keys.length === 0) return taken === DELETE_BATCH;
      const result = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.settings.bucket,
          Delete: { Objects: keys.map((k) => ({ Key: this.objectKey(venueId, k) })), Quiet: true },
        }),
      );
      // Throwing rolls the take back: the deletions stay pending for the next flush.
      if (result.Errors && result.Errors.length > 0)
        throw new Error(`S3 deletion failed: ${result.Errors[0].Code} ${result.Errors[0].Message}`);
      return taken === DELETE_BATCH;
    });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
