import { errors } from '../../errors.js';
import { IdParams } from '../../http/schemas/common.js';
import { type ImageRoutes, ownerOf, type ImageTarget } from '../media/index.js';
import { findBanner, setBannerImage } from './banners.repository.js';

/** A banner acts live (docs/merchandising.md): its image shows at once. */
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

/** POST|DELETE /v1/banners/:id/image (media/image.routes.ts). */
export const bannerImageRoutes: ImageRoutes = {
  target: bannerImage,
  path: '/banners/:id/image',
  params: IdParams,
  refOf: (params) => params.id,
  preoptimized:
    '- `?preoptimized=true` (media-fast bucket) stores a ready 1536x512 WebP of at most 1 MB as sent; other bytes are 400 `PREOPTIMIZED_INVALID`.',
  upload: {
    operationId: 'uploadBannerImage',
    summary: "Set a banner's image",
    about:
      'Sets the image of a banner: 3:1 within 2% (`IMAGE_WRONG_ASPECT_RATIO`) and at least 960x320 (`IMAGE_TOO_SMALL`), stored as WebP 1536x512 and 768x256. ' +
      'Guests see it at once.',
    rules: ['IMAGE_WRONG_ASPECT_RATIO', 'PREOPTIMIZED_INVALID'],
    notFound: ['BANNER_NOT_FOUND'],
  },
  remove: {
    operationId: 'deleteBannerImage',
    summary: "Remove a banner's image",
    description: "Removes a banner's image; `deleted` is false when it had none. Audited as `banner.image`.",
    notFound: ['BANNER_NOT_FOUND'],
  },
};
