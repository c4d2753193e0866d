import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { AppError } from '../../src/errors.js';
import { ImageProcessor } from '../../src/modules/media/image-processor.js';
import { makeImage } from '../helpers/images.js';

// The image rules by kind, on the processor itself: the banner sizes and
// ratio here, since banners' routes come with merchandising; products and the logo through the
// API in media.test.ts.

const processor = new ImageProcessor();

async function code(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
    return undefined;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err.code;
  }
}

describe('ImageProcessor: banners', () => {
  it('writes 1536x512 and 768x256 WebP from a 3:1 image', async () => {
    const out = await processor.process('banner', await makeImage(1500, 500));
    assert.deepEqual(
      out.variants.map((v) => [v.width, v.height]),
      [
        [1536, 512],
        [768, 256],
      ],
    );
    for (const v of out.variants) {
      const meta = await sharp(v.bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', v.width, v.height]);
    }
    assert.deepEqual(out.source, { format: 'jpeg', width: 1500, height: 500, bytes: out.source.bytes });
  });

  it('accepts 3:1 within 2% and refuses beyond with IMAGE_WRONG_ASPECT_RATIO', async () => {
    assert.equal(await code(processor.process('banner', await makeImage(1530, 500))), undefined);
    assert.equal(await code(processor.process('banner', await makeImage(1600, 500))), 'IMAGE_WRONG_ASPECT_RATIO');
    assert.equal(await code(processor.process('banner', await makeImage(1000, 1000))), 'IMAGE_WRONG_ASPECT_RATIO');
  });

  it('refuses a banner under 960x320 with IMAGE_TOO_SMALL', async () => {
    assert.equal(await code(processor.process('banner', await makeImage(900, 300))), 'IMAGE_TOO_SMALL');
    assert.equal(await code(processor.process('banner', await makeImage(960, 320))), undefined);
  });

  it('takes a preoptimized 1536x512 WebP as sent, and nothing else', async () => {
    const webp = await sharp({ create: { width: 1536, height: 512, channels: 3, background: '#333' } })
      .webp()
      .toBuffer();
    const out = await processor.processPreoptimized('banner', webp);
    assert.ok(out.variants[0].bytes.equals(webp));
    assert.deepEqual(
      out.variants.map((v) => [v.width, v.height]),
      [
        [1536, 512],
        [768, 256],
      ],
    );
    const square = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#333' } })
      .webp()
      .toBuffer();
    assert.equal(await code(processor.processPreoptimized('banner', square)), 'PREOPTIMIZED_INVALID');
  });
});

describe('ImageProcessor: what survives', () => {
  it('keeps transparency and writes sRGB WebP', async () => {
    const png = await sharp({ create: { width: 400, height: 400, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const out = await processor.process('product', png);
    const meta = await sharp(out.variants[0].bytes).metadata();
    assert.equal(meta.hasAlpha, true);
    assert.equal(meta.space, 'srgb');
  });

  it('converts a CMYK JPEG to sRGB', async () => {
    const cmyk = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#c0392b' } })
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer();
    assert.equal((await sharp(cmyk).metadata()).space, 'cmyk');
    const out = await processor.process('logo', cmyk);
    const meta = await sharp(out.variants[2].bytes).metadata();
    assert.equal(meta.space, 'srgb');
    assert.equal(meta.channels, 3);
  });
});
