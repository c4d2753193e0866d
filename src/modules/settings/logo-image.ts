import type { ImageRoutes, ImageTarget } from '../media/index.js';
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

/** POST|DELETE /v1/logo (media/image.routes.ts). */
export const logoImageRoutes: ImageRoutes = {
  target: logoImage,
  path: '/logo',
  refOf: () => '',
  upload: {
    operationId: 'uploadLogo',
    summary: "Set the venue's logo",
    about:
      "Sets the venue's logo: square within 2% (`IMAGE_NOT_SQUARE`) and at least 320x320 (`IMAGE_TOO_SMALL`), stored as WebP 1024, 512 and 256. " +
      'Settings and the guest menu show it at once, without a publish.',
    rules: ['IMAGE_NOT_SQUARE'],
    notFound: [],
  },
  remove: {
    operationId: 'deleteLogo',
    summary: "Remove the venue's logo",
    description: "Removes the venue's logo; `deleted` is false when it had none. Audited as `logo.image`.",
    notFound: [],
  },
};
