import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { makeImage, toBase64 } from '../helpers/images.js';
import { freePort } from '../helpers/net.js';

// The S3 blob store (MEDIA_S3_*) against a real S3-compatible server the test starts on loopback
// (s3rver), not a mock of the SDK: objects are written with their rows, served through /media and
// straight from the bucket (MEDIA_PUBLIC_URL), and deleted after commit, or by the sweep when the
// bucket was unreachable at the time.

const BUCKET = 'carta-media';
const PREFIX = 'images/';

let directory: string;
let port: number;
let s3: S3rver;
let t: TestApp;
let client: S3Client;
let settings: S3Settings;

async function startS3(): Promise<void> {
  s3 = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  await s3.run();
}

before(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-s3-'));
  port = await freePort();
  await startS3();
  settings = {
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    prefix: PREFIX,
  };
  client = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  t = await startApp({ mediaS3: settings, mediaPublicUrl: `http://127.0.0.1:${port}/${BUCKET}/${PREFIX.replace(/\/$/, '')}` });
});
after(async () => {
  await t.close();
  client.destroy();
  await s3.close().catch(() => undefined);
  fs.rmSync(directory, { recursive: true, force: true });
});

async function object(key: string): Promise<Buffer | null> {
  try {
    const res = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return Buffer.from(await res.Body!.transformToByteArray());
  } catch (err) {
    if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
    throw err;
  }
}

/** The object key and /media path of an image URL (`<base>/<venueId>/<key>.webp`). */
function locate(v: VenueFixture, imageUrl: string) {
  const file = imageUrl.split('/').pop() as string;
  return { objectKey: `${PREFIX}${v.id}/${file}`, mediaPath: `/media/${v.id}/${file}` };
}

function httpGet(url: string): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('the S3 blob store', () => {
  let v: VenueFixture;
  before(async () => {
    v = await createVenue(t.app);
    await syncOk(t.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
  });

  it('writes every variant to the bucket, keeps only the index row in the database, and serves it', async () => {
    const res = await call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64: toBase64(await makeImage(500, 500)) } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(res.body.imageUrl.startsWith(`http://127.0.0.1:${port}/${BUCKET}/images/${v.id}/`), res.body.imageUrl);
    for (const variant of res.body.variants) {
      const { objectKey, mediaPath } = locate(v, variant.url);
      const stored = await object(objectKey);
      assert.ok(stored, `${objectKey} is in the bucket`);
      assert.equal(stored.length, variant.bytes);
      const served = await t.app.inject({ method: 'GET', url: mediaPath });
      assert.equal(served.statusCode, 200);
      assert.ok(served.rawPayload.equals(stored), '/media serves the bucket object');
      // MEDIA_PUBLIC_URL points straight at the bucket: the URL itself works.
      const direct = await httpGet(variant.url);
      assert.equal(direct.status, 200);
      assert.equal(direct.type, 'image/webp');
      assert.ok(direct.body.equals(stored));
    }
    const { rows } = await t.database.db.query<{ n: number; with_data: number }>(
      'select count(*)::int as n, count(data)::int as with_data from media_blobs where venue_id = $1',
      [v.id],
    );
    assert.deepEqual(rows[0], { n: 3, with_data: 0 });
  });

  it('deletes the objects once nothing refers to them', async () => {
    const res = await call(t.app, 'POST', '/v1/products/p1/image', {
      key: v.key,
      body: { base64: toBase64(await makeImage(500, 500, 'png', { colour: '#2c3e50' })) },
    });
    assert.equal(res.status, 201);
    assert.equal((await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key })).status, 200);
    for (const variant of res.body.variants) {
      const { objectKey, mediaPath } = locate(v, variant.url);
      assert.equal(await object(objectKey), null, `${objectKey} was deleted`);
      assert.equal((await t.app.inject({ method: 'GET', url: mediaPath })).statusCode, 404);
    }
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from media_deletions where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, 0);
  });

  it('keeps a deletion the bucket could not take, and the sweep finishes it', async () => {
    const res = await call(t.app, 'POST', '/v1/products/p1/image', {
      key: v.key,
      body: { base64: toBase64(await makeImage(500, 500, 'png', { colour: '#d35400' })) },
    });
    assert.equal(res.status, 201);
    await s3.close();
    try {
      const removed = await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key });
      assert.equal(removed.status, 200, 'the change commits even with the bucket down');
      assert.equal((await call(t.app, 'GET', '/v1/products/p1', { key: v.key })).body.imageUrl, null);
      const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from media_deletions where venue_id = $1', [
        v.id,
      ]);
      assert.equal(rows[0].n, 3, 'three objects wait for deletion');
    } finally {
      await startS3();
    }
    for (const variant of res.body.variants) assert.ok(await object(locate(v, variant.url).objectKey), 'still in the bucket');
    assert.ok((await t.services.media.sweep()) >= 1);
    for (const variant of res.body.variants) assert.equal(await object(locate(v, variant.url).objectKey), null);
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from media_deletions where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, 0);
  });

  it('deletes a backlog of more than 1000 objects in batches S3 takes', async () => {
    const keys = Array.from({ length: 1500 }, (_, i) => i.toString(16).padStart(64, '0'));
    await t.database.db.query(`insert into media_deletions (venue_id, key) select $1, k from unnest($2::text[]) k`, [v.id, keys]);
    await t.services.media.sweep();
    const { rows } = await t.database.db.query<{ n: number }>('select count(*)::int as n from media_deletions where venue_id = $1', [v.id]);
    assert.equal(rows[0].n, 0);
  });

  it('never deletes an object that is wanted again before the sweep', async () => {
    const base64 = toBase64(await makeImage(500, 500, 'png', { colour: '#7f8c8d' }));
    const first = await call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64 } });
    await s3.close();
    try {
      assert.equal((await call(t.app, 'DELETE', '/v1/products/p1/image', { key: v.key })).status, 200);
    } finally {
      await startS3();
    }
    // The same bytes again: the pending deletion is cancelled with the upload.
    const again = await call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { base64 } });
    assert.equal(again.body.imageUrl, first.body.imageUrl);
    await t.services.media.sweep();
    for (const variant of again.body.variants) assert.ok(await object(locate(v, variant.url).objectKey));
    assert.equal((await t.app.inject({ method: 'GET', url: locate(v, again.body.imageUrl).mediaPath })).statusCode, 200);
  });
});
