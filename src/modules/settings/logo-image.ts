import type { ImageTarget } from '../media/image-targets.js';
import { findLogo, setLogo } from './settings.repository.js';

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
