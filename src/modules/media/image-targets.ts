// What an image belongs to: how to find the owner (its 404), how to set its image, and how the
// audit log names the change (spec 4.6).
import type { Queryable } from '../../db/port.js';
import { type AppError, errors } from '../../errors.js';
import type { AuditAction } from '../../operations.js';
import { bumpDraftVersion } from '../menu/menu.repository.js';
import { findProductByRef } from '../menu/products.service.js';
import { findBanner } from '../merch/banners.repository.js';
import type { ImageKind } from './image-processor.js';
import { findLogo, setBannerImage, setLogo, setProductImage } from './media.repository.js';
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
function ownerOf(row: { id: string; external_id: string | null; image: StoredImage | null } | null, notFound: () => AppError): ImageOwner {
  if (!row) throw notFound();
  return { id: row.id, ref: row.external_id ?? row.id, image: row.image };
}

/** A product's image is part of the draft: the draft menu shows it at once, guests after publish. */
export const productImage: ImageTarget = {
  kind: 'product',
  entityType: 'product',
  action: 'product.image',
  async find(db, venueId, ref, forUpdate) {
    return ownerOf(await findProductByRef(db, venueId, ref, forUpdate), errors.productNotFound);
  },
  async set(db, venueId, owner, image) {
    await setProductImage(db, venueId, owner.id, image);
    await bumpDraftVersion(db, venueId);
  },
};

/** A banner acts live (decisions 8 as docs/merchandising.md reads it): its image shows at once. */
export const bannerImage: ImageTarget = {
  kind: 'banner',
  entityType: 'banner',
  action: 'banner.image',
  async find(db, venueId, ref, forUpdate) {
    return ownerOf(await findBanner(db, venueId, ref, forUpdate), errors.bannerNotFound);
  },
  async set(db, venueId, owner, image) {
    await setBannerImage(db, venueId, owner.id, image);
  },
};

/** The venue's logo is a setting: settings and the guest menu show it at once, without a publish. */
export const logoImage: ImageTarget = {
  kind: 'logo',
  entityType: 'logo',
  action: 'logo.image',
  async find(db, venueId) {
    return { id: venueId, ref: null, image: await findLogo(db, venueId) };
  },
  async set(db, venueId, _owner, image) {
    await setLogo(db, venueId, image);
  },
};
