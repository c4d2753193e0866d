import { errors } from '../../errors.js';
import { ownerOf, type ImageTarget } from '../media/image-targets.js';
import { findBanner, setBannerImage } from './banners.repository.js';

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
