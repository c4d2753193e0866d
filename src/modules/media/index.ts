// The media module's surface: what other modules may use of it (lint: a module imports another only
// through its index.ts). Everything else in the folder is the module's own.
export { ownerOf } from './image-targets.js';
export type { ImageTarget } from './image-targets.js';
export type { ImageRoutes } from './image.routes.js';
export { MediaImage } from './media.schemas.js';
export type { MediaImageView } from './media.schemas.js';
export type { MediaService } from './media.service.js';
export { imageKeys, storedImageOf, urlFile } from './stored-image.js';
export type { MediaUrls, StoredImage } from './stored-image.js';
