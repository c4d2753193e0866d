import { errors } from '../../errors.js';
import { ownerOf, type ImageTarget } from '../media/image-targets.js';
import { bumpDraftVersion, findOneByRef, setProductImage, type ProductRow } from './menu.repository.js';

/** A product's image is part of the draft: the draft menu shows it at once, guests after publish. */
export const productImage: ImageTarget = {
  kind: 'product',
  entityType: 'product',
  action: 'product.image',
  async find(db, venueId, ref, forUpdate) {
    return ownerOf(await findOneByRef<ProductRow>(db, venueId, 'products', ref, { forUpdate }), errors.productNotFound);
  },
  async set(db, venueId, owner, image) {
    await setProductImage(db, venueId, owner.id, image);
    await bumpDraftVersion(db, venueId);
  },
};
