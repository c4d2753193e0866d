// Decode, check and re-encode with sharp. The work runs on libuv's threads,
// never on the event loop; how many images run at once is MediaCapacity's business.
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { errors } from '../../errors.js';
import { MEDIA_MAX_INPUT_PIXELS, PREOPTIMIZED_MAX_BYTES } from '../../limits.js';

export type ImageKind = 'product' | 'logo' | 'banner';

interface ImageSpec {
  /** width / height */
  ratio: number;
  minWidth: number;
  minHeight: number;
  /** Output sizes, largest first: the first is the image, the others its smaller variants. */
  sizes: readonly (readonly [number, number])[];
}

/** Within 2% of the ratio. */
const RATIO_TOLERANCE = 0.02;

const SQUARE: ImageSpec = {
  ratio: 1,
  minWidth: 320,
  minHeight: 320,
  sizes: [
    [1024, 1024],
    [512, 512],
    [256, 256],
  ],
};

export const IMAGE_SPECS: Readonly<Record<ImageKind, ImageSpec>> = {
  product: SQUARE,
  logo: SQUARE,
  banner: {
    ratio: 3,
    minWidth: 960,
    minHeight: 320,
    sizes: [
      [1536, 512],
      [768, 256],
    ],
  },
};

/**
 * Loaders a venue may send; every other libvips loader (SVG, PDF, JPEG XL, raw formats, ...) is
 * blocked, so hostile input never reaches a parser we did not choose.
 */
const ALLOWED_LOADERS = [
  'VipsForeignLoadJpeg',
  'VipsForeignLoadPng',
  'VipsForeignLoadWebp',
  'VipsForeignLoadNsgif',
  'VipsForeignLoadHeif',
  'VipsForeignLoadTiff',
];

const INPUT_OPTIONS = { limitInputPixels: MEDIA_MAX_INPUT_PIXELS } as const;
const WEBP_OPTIONS = { quality: 80, effort: 4 } as const;

/** The RIFF chunks a WebP needs to show its image; anything else (EXIF, XMP, ICCP, unknown) is metadata. */
const WEBP_IMAGE_CHUNKS = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH']);

/**
 * true when a WebP holds image data only: its RIFF chunks are walked (sharp reports EXIF from a
 * header flag, which a file can clear while keeping the chunk), and nothing may follow the size the
 * file declares.
 */
export function webpHasImageOnly(bytes: Buffer): boolean {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return false;
  if (bytes.readUInt32LE(4) + 8 !== bytes.length) return false;
  for (let at = 12; at < bytes.length;) {
    if (at + 8 > bytes.length) return false;
    const size = bytes.readUInt32LE(at + 4);
    if (!WEBP_IMAGE_CHUNKS.has(bytes.toString('latin1', at, at + 4))) return false;
    at += 8 + size + (size % 2);
    if (at > bytes.length) return false;
  }
  return true;
}

export interface ImageVariant {
  bytes: Buffer;
  width: number;
  height: number;
}

export interface ProcessedImage {
  /** Largest first. */
  variants: ImageVariant[];
  source: { format: string; width: number; height: number; bytes: number };
}

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;

let loading: Promise<SharpFactory> | null = null;

/**
 * sharp, loaded on the first image (a server that never sees one never pays for it), with its
 * process-wide settings: no operation cache (every upload is new bytes, and the cache would hold up
 * to 50 MB of them), one libvips thread per image (images run side by side, bounded by
 * MediaCapacity), and the input allowlist.
 */
function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({ operation: ALLOWED_LOADERS });
    return sharp;
  });
  return loading;
}

function describeSize(w: number, h: number): string {
  return `${w}x${h}`;
}

export class ImageProcessor {
  private async inspect(sharp: SharpFactory, bytes: Buffer): Promise<Metadata> {
    let meta: Metadata;
    try {
      // Headers only: the pixel count is checked below with a message of its own, and the pipelines
      // keep limitInputPixels as the backstop.
      meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    } catch {
      throw errors.invalidImage();
    }
    if ((meta.pages ?? 1) > 1) throw errors.invalidImage('Animated and multi-page images are not supported; send a single still image');
    if (meta.width * meta.height * (meta.pages ?? 1) > MEDIA_MAX_INPUT_PIXELS) {
      throw errors.invalidImage(`The image has more than ${MEDIA_MAX_INPUT_PIXELS} pixels (${describeSize(meta.width, meta.height)})`);
    }
    return meta;
  }

  /** The aspect-ratio and minimum-size checks on the image as it will be shown (after EXIF rotation). */
  private check(kind: ImageKind, width: number, height: number): void {
    const spec = IMAGE_SPECS[kind];
    const off = Math.abs(width / height - spec.ratio) / spec.ratio;
    // 2% inclusive (1e-9 absorbs floating point: 1530x500 is exactly 2% off 3:1).
    if (off > RATIO_TOLERANCE + 1e-9) {
      throw spec.ratio === 1
        ? errors.imageNotSquare(`The image must be square within 2%; it is ${describeSize(width, height)}`)
        : errors.imageWrongAspectRatio(`The image must be ${spec.ratio}:1 within 2%; it is ${describeSize(width, height)}`);
    }
    if (width < spec.minWidth || height < spec.minHeight) {
      throw errors.imageTooSmall(
        `The image must be at least ${describeSize(spec.minWidth, spec.minHeight)}; it is ${describeSize(width, height)}`,
      );
    }
  }

  /**
   * Rotated by its EXIF orientation, converted to sRGB, cropped to the exact ratio and written as
   * WebP at every size of its kind. The output carries no metadata at all (sharp keeps none unless
   * asked): no EXIF, so no GPS position, no XMP, no ICC profile.
   */
  async process(kind: ImageKind, bytes: Buffer): Promise<ProcessedImage> {
    const sharp = await loadSharp();
    const meta = await this.inspect(sharp, bytes);
    const { width, height } = meta.autoOrient;
    this.check(kind, width, height);
    const [[w, h], ...smaller] = IMAGE_SPECS[kind].sizes;
    let variants: ImageVariant[];
    try {
      // The source is decoded once, into the largest size's pixels (a few MB, raw); every variant
      // is encoded from those. Decoding a 15 MB photo once per size would hold several copies.
      const { data, info } = await sharp(bytes, INPUT_OPTIONS)
        .autoOrient()
        .toColourspace('srgb')
        .resize(w, h, { fit: 'cover', position: 'centre' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const pixels = () => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
      variants = await Promise.all([this.encode(pixels(), w, h), ...smaller.map(([sw, sh]) => this.encode(pixels(), sw, sh))]);
    } catch {
      // The header read, the pixels did not (truncated or corrupt data).
      throw errors.invalidImage();
    }
    return { variants, source: { format: meta.format, width, height, bytes: bytes.length } };
  }

  /**
   * The fast lane: a WebP already at the largest size is kept byte for byte; only its
   * smaller variants are made here. It must carry no EXIF or XMP, since it is served as sent.
   */
  async processPreoptimized(kind: ImageKind, bytes: Buffer): Promise<ProcessedImage> {
    const sharp = await loadSharp();
    const meta = await this.inspect(sharp, bytes);
    const [[w, h], ...smaller] = IMAGE_SPECS[kind].sizes;
    if (meta.format !== 'webp') throw errors.preoptimizedInvalid(`a WebP image; this is ${meta.format}`);
    if (meta.width !== w || meta.height !== h) {
      throw errors.preoptimizedInvalid(`an image of exactly ${describeSize(w, h)}; this is ${describeSize(meta.width, meta.height)}`);
    }
    if (bytes.length > PREOPTIMIZED_MAX_BYTES)
      throw errors.preoptimizedInvalid(`at most ${PREOPTIMIZED_MAX_BYTES} bytes; this is ${bytes.length}`);
    if (meta.exif || meta.xmp || !webpHasImageOnly(bytes)) {
      throw errors.preoptimizedInvalid(
        'an image without metadata: no EXIF, XMP, ICC or other chunks, nothing after its end (it is served as sent)',
      );
    }
    const base = sharp(bytes, INPUT_OPTIONS);
    let rest: ImageVariant[];
    try {
      rest = await Promise.all(smaller.map(([sw, sh]) => this.encode(base.clone(), sw, sh)));
    } catch {
      throw errors.invalidImage();
    }
    return { variants: [{ bytes, width: w, height: h }, ...rest], source: { format: 'webp', width: w, height: h, bytes: bytes.length } };
  }

  private async encode(pipeline: Sharp, width: number, height: number): Promise<ImageVariant> {
    const { data, info } = await pipeline
      .resize(width, height, { fit: 'cover', position: 'centre' })
      .webp(WEBP_OPTIONS)
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height };
  }
}
