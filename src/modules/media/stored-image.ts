import type { MediaImageView } from './media.schemas.js';

/** One stored size of an image: a blob key (the sha256 of its bytes) and its dimensions. */
export interface StoredVariant {
  key: string;
  width: number;
  height: number;
  bytes: number;
}

/** An image as a product, banner or logo column holds it: keys, never URLs. */
export interface StoredImage {
  width: number;
  height: number;
  bytes: number;
  /** Largest first. */
  variants: StoredVariant[];
}

export const MEDIA_CONTENT_TYPE = 'image/webp';

/** The blob keys an image holds on to. */
export function imageKeys(image: StoredImage | null | undefined): string[] {
  return image ? image.variants.map((v) => v.key) : [];
}

/** A blob key is the lowercase hex sha256 of its bytes; the file name adds the extension. */
export const BLOB_FILE = /^([0-9a-f]{64})\.webp$/;

/** The file name an image URL ends in (`<key>.webp`), whatever its base and any query. */
export function urlFile(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.slice(path.lastIndexOf('/') + 1);
}

/** An image view (MediaUrls.view) back as stored keys: each variant's URL ends in `<key>.webp`. */
export function storedImageOf(view: MediaImageView | null | undefined): StoredImage | null {
  if (!view) return null;
  const variants = view.variants.flatMap((v) => {
    const key = BLOB_FILE.exec(urlFile(v.url))?.[1];
    return key === undefined ? [] : [{ key, width: v.width, height: v.height, bytes: v.bytes }];
  });
  return variants.length === 0 ? null : { width: view.width, height: view.height, bytes: view.bytes, variants };
}

/**
 * Public addresses of stored images: `<base>/<venueId>/<key>.webp`, where the base is
 * MEDIA_PUBLIC_URL (a CDN or the bucket) or this server's `/media`. Made when a view is built,
 * from the key, so the stored rows never hold a host name.
 */
export class MediaUrls {
  constructor(private readonly base: string) {}

  url(venueId: string, key: string): string {
    return `${this.base}/${venueId}/${key}.webp`;
  }

  view(venueId: string, image: StoredImage | null | undefined): MediaImageView | null {
    if (!image) return null;
    const variants = image.variants.map((v) => ({ url: this.url(venueId, v.key), width: v.width, height: v.height, bytes: v.bytes }));
    return { imageUrl: variants[0].url, width: image.width, height: image.height, bytes: image.bytes, variants };
  }
}
