import { errors } from '../../errors.js';
import { type ImageRoutes, ownerOf, type ImageTarget } from '../media/index.js';
import { bumpDraftVersion, findOneByRef, setProductImage, type ProductRow } from './menu.repository.js';
import { ProductRefParams } from './menu.schemas.js';

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

/** POST|DELETE /v1/products/:ref/image (media/image.routes.ts). */
export const productImageRoutes: ImageRoutes = {
  target: productImage,
  path: '/products/:ref/image',
  params: ProductRefParams,
  refOf: (params) => params.ref,
  preoptimized:
    '- `?preoptimized=true` (media-fast bucket) stores a ready 1024x1024 WebP of at most 1 MB as sent; other bytes are 400 `PREOPTIMIZED_INVALID`.',
  upload: {
    operationId: 'uploadProductImage',
    summary: "Set a product's image",
    about:
      'Sets the image of a product of the draft (`ref`: its externalId or id): square within 2% (`IMAGE_NOT_SQUARE`) and at least 320x320 ' +
      '(`IMAGE_TOO_SMALL`), stored as WebP 1024, 512 and 256. The draft menu shows it at once, guests after a publish.',
    rules: ['IMAGE_NOT_SQUARE', 'PREOPTIMIZED_INVALID'],
    notFound: ['PRODUCT_NOT_FOUND'],
  },
  remove: {
    operationId: 'deleteProductImage',
    summary: "Remove a product's image",
    description:
      'Removes the image of a product of the draft (`ref`: its externalId or id); `deleted` is false when it had none. ' +
      'The files stay while a published snapshot shows them. Audited as `product.image`.',
    notFound: ['PRODUCT_NOT_FOUND'],
  },
};
