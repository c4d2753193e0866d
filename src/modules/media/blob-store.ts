// Where image bytes live, behind a port as narrow as the database's. `media_blobs` is always the
// index of what exists (key, type, size); the adapter decides where the bytes go. The default keeps
// them in that same row, so N instances on one PostgreSQL serve every image with nothing more to
// run; the S3 adapter (s3-blob-store.ts) is chosen when MEDIA_S3_BUCKET is set.
import type { Database, Queryable } from '../../db/port.js';
import * as media from './media.repository.js';

export interface BlobToStore {
  key: string;
  contentType: string;
  bytes: Buffer;
}

export interface BlobStore {
  readonly kind: 'database' | 's3';
  /** Stores blobs as part of `tx` (held under the venue's menu lock); a key stored twice is one blob. */
  put(tx: Queryable, venueId: string, blobs: BlobToStore[]): Promise<void>;
  /** The bytes of a stored blob, or null. */
  get(db: Queryable, venueId: string, key: string): Promise<Buffer | null>;
  /** Called in the transaction that deleted these blobs' rows. */
  deleted(tx: Queryable, venueId: string, keys: string[]): Promise<void>;
  /** After commit: finishes what the transaction could not do itself (objects in a bucket). */
  flush(db: Database, venueId: string): Promise<void>;
  close(): Promise<void>;
}

/** Bytes in the blob's own row: committed, and deleted, with the references that use them. */
export class DatabaseBlobStore implements BlobStore {
  readonly kind = 'database' as const;

  async put(tx: Queryable, venueId: string, blobs: BlobToStore[]): Promise<void> {
    await media.insertBlobs(
      tx,
      venueId,
      blobs.map((b) => ({ key: b.key, contentType: b.contentType, size: b.bytes.length, data: b.bytes })),
    );
  }

  async get(db: Queryable, venueId: string, key: string): Promise<Buffer | null> {
    const row = await media.findBlob(db, venueId, key, true);
    return row?.data_base64 ? Buffer.from(row.data_base64, 'base64') : null;
  }

  async deleted(): Promise<void> {}

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}
