import { Type, type Static } from 'typebox';

/**
 * An image as every read shows it, and the 201 of an upload:
 * `{ imageUrl, variants, width, height, bytes }`. `imageUrl` is the largest variant.
 */
export const MediaImage = Type.Object({
  imageUrl: Type.String({ description: 'The largest variant' }),
  width: Type.Integer(),
  height: Type.Integer(),
  bytes: Type.Integer({ description: 'Size of the largest variant in bytes' }),
  variants: Type.Array(Type.Object({ url: Type.String(), width: Type.Integer(), height: Type.Integer(), bytes: Type.Integer() }), {
    description: 'Every stored size, largest first (for srcset)',
  }),
});
export type MediaImageView = Static<typeof MediaImage>;

/**
 * Exactly one of the two is required; that rule is the service's (400 INVALID_IMAGE_SOURCE, not a
 * schema error), while types and unknown properties are the validator's.
 */
export const ImageSourceBody = Type.Object(
  {
    base64: Type.Optional(
      Type.String({ description: 'The image bytes in base64 (a data: URL prefix is accepted); at most 15 MB decoded' }),
    ),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'An http(s) URL to fetch the image from; at most 15 MB' })),
  },
  { additionalProperties: false },
);
export type ImageSourceInput = Static<typeof ImageSourceBody>;

export const ImageUploadQuery = Type.Object({
  preoptimized: Type.Optional(
    Type.Boolean({ description: 'Fast lane: the bytes are already a WebP of the largest size, at most 1 MB, stored as sent' }),
  ),
});

export const ImageDeleted = Type.Object({
  deleted: Type.Boolean({ description: 'false when there was no image to delete' }),
});

export const MediaFileParams = Type.Object({
  venueId: Type.String({ minLength: 1, maxLength: 64 }),
  file: Type.String({ minLength: 1, maxLength: 80 }),
});
