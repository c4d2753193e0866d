// What an image belongs to: how to find the owner (its 404), how to set its image, and how the
// audit log names the change. Each owner's module declares its target (the product's in
// menu/, the banner's in merch/, the logo's in settings/): the SQL of its table stays there.
import type { Queryable } from '../../db/port.js';
import type { AppError } from '../../errors.js';
import type { AuditAction } from '../../operations.js';
import type { ImageKind } from './image-processor.js';
import type { StoredImage } from './stored-image.js';

export interface ImageOwner {
  id: string;
  /** The audit log's entityRef. */
  ref: string | null;
  image: StoredImage | null;
}

export interface ImageTarget {
  kind: ImageKind;
  entityType: string;
  action: AuditAction;
  /** The owner, or its 404; `forUpdate` inside the write transaction. */
  find(db: Queryable, venueId: string, ref: string, forUpdate: boolean): Promise<ImageOwner>;
  set(db: Queryable, venueId: string, owner: ImageOwner, image: StoredImage | null): Promise<void>;
}

/** A row that holds an image as its owner (the audit log names it by externalId, else id), or its 404. */
export function ownerOf(
  row: { id: string; external_id: string | null; image: StoredImage | null } | null,
  notFound: () => AppError,
): ImageOwner {
  if (!row) throw notFound();
  return { id: row.id, ref: row.external_id ?? row.id, image: row.image };
}
