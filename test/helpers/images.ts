import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** A solid (or noisy, so it does not compress to nothing) image in the given format. */
export async function makeImage(
  width: number,
  height: number,
  format: 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'avif' = 'jpeg',
  options: { noise?: boolean; colour?: string } = {},
): Promise<Buffer> {
  const base = options.noise
    ? sharp({
        create: { width, height, channels: 3, background: options.colour ?? '#c0392b', noise: { type: 'gaussian', mean: 128, sigma: 40 } },
      })
    : sharp({ create: { width, height, channels: 3, background: options.colour ?? '#c0392b' } });
  return base.toFormat(format).toBuffer();
}

/**
 * A JPEG whose pixels are stored sideways with EXIF orientation 6 (rotate 90° clockwise to show),
 * and a GPS position in its EXIF: red in the stored top-left quadrant, blue elsewhere. Shown
 * upright, the red quadrant is the top-right one.
 */
export async function makeRotatedJpegWithGps(size: number): Promise<Buffer> {
  const half = Math.floor(size / 2);
  const red = await sharp({ create: { width: half, height: half, channels: 3, background: '#ff0000' } })
    .png()
    .toBuffer();
  return sharp({ create: { width: size, height: size, channels: 3, background: '#0000ff' } })
    .composite([{ input: red, left: 0, top: 0 }])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'CartaTestCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2405/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 795/100' },
    })
    .toBuffer();
}

/** The colour of one pixel of an image, as [r, g, b]. */
export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

export async function animatedGif(width: number, height: number): Promise<Buffer> {
  const a = await makeImage(width, height, 'png', { colour: '#ff0000' });
  const b = await makeImage(width, height, 'png', { colour: '#0000ff' });
  return sharp([a, b], { join: { animated: true } })
    .gif()
    .toBuffer();
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: a few hundred bytes of PNG that declare a `width` x `height` canvas (one
 * compressed row of zeros stands for all of them). Decoding it would take width x height x 3 bytes.
 */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const idat = deflateSync(Buffer.alloc(1 + width * 3));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function toBase64(bytes: Buffer): string {
  return bytes.toString('base64');
}
