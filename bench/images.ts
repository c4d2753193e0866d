import sharp from 'sharp';

/**
 * A square JPEG of `size` pixels whose noise (`sigma`) sets how photo-like it compresses: sigma 13 at
 * 2000 px gives a 1.4 MB JPEG whose 1024 WebP is about 60 KB; sigma 50 at 4000 px, quality 95, about 14.5 MB.
 */
export function makeBenchImage(size: number, sigma: number, quality: number): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: '#88aa55', noise: { type: 'gaussian', mean: 128, sigma } } })
    .jpeg({ quality })
    .toBuffer();
}
