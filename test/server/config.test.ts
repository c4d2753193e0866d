import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration: PostgreSQL change feed, read consistency and lock timeout', () => {
  const pg = { DATABASE_URL: 'postgres://carta@db:5432/carta' };

  it('listens on DATABASE_URL, reads strictly and waits 10 s for locks by default', () => {
    const config = loadConfig(pg);
    assert.equal(config.databaseListenUrl, pg.DATABASE_URL);
    assert.equal(config.readConsistency, 'strict');
    assert.equal(config.databaseLockTimeoutMs, 10_000);
  });

  it('takes a separate listen URL, or off', () => {
    assert.equal(
      loadConfig({ ...pg, DATABASE_LISTEN_URL: 'postgresql://carta@db-direct/carta' }).databaseListenUrl,
      'postgresql://carta@db-direct/carta',
    );
    assert.equal(loadConfig({ ...pg, DATABASE_LISTEN_URL: 'off' }).databaseListenUrl, null);
    assert.throws(() => loadConfig({ ...pg, DATABASE_LISTEN_URL: 'mysql://db' }), ConfigError);
  });

  it('takes eventual read consistency and a lock timeout, and refuses other values', () => {
    assert.equal(loadConfig({ ...pg, READ_CONSISTENCY: 'eventual' }).readConsistency, 'eventual');
    assert.equal(loadConfig({ ...pg, DATABASE_LOCK_TIMEOUT_MS: '2500' }).databaseLockTimeoutMs, 2500);
    assert.throws(() => loadConfig({ ...pg, READ_CONSISTENCY: 'sometimes' }), ConfigError);
    assert.throws(() => loadConfig({ ...pg, DATABASE_LOCK_TIMEOUT_MS: '0' }), ConfigError);
  });
});

describe('configuration: media', () => {
  it('serves images under PUBLIC_BASE_URL/media unless MEDIA_PUBLIC_URL says otherwise', () => {
    assert.equal(loadConfig({ PORT: '8080' }).mediaPublicUrl, 'http://127.0.0.1:8080/media');
    assert.equal(loadConfig({ PUBLIC_BASE_URL: 'https://menu.example.com/' }).mediaPublicUrl, 'https://menu.example.com/media');
    assert.equal(loadConfig({ MEDIA_PUBLIC_URL: 'https://cdn.example.com/carta/' }).mediaPublicUrl, 'https://cdn.example.com/carta');
    assert.throws(() => loadConfig({ MEDIA_PUBLIC_URL: 'cdn.example.com' }), ConfigError);
  });

  it('keeps image bytes in the database unless MEDIA_S3_BUCKET is set', () => {
    assert.equal(loadConfig({}).mediaS3, null);
    const s3 = loadConfig({ MEDIA_S3_BUCKET: 'menus', MEDIA_S3_ENDPOINT: 'http://minio:9000', MEDIA_S3_PREFIX: 'carta/' }).mediaS3;
    assert.deepEqual(s3, {
      bucket: 'menus',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      accessKeyId: null,
      secretAccessKey: null,
      forcePathStyle: true,
      prefix: 'carta/',
    });
    assert.equal(loadConfig({ MEDIA_S3_BUCKET: 'menus' }).mediaS3?.forcePathStyle, false, 'AWS itself: virtual-hosted style');
    assert.throws(() => loadConfig({ MEDIA_S3_BUCKET: 'menus', MEDIA_S3_FORCE_PATH_STYLE: 'maybe' }), ConfigError);
  });

  it('takes SSRF_TEST_ALLOW for loopback endpoints only, and never in production', () => {
    assert.deepEqual(loadConfig({ SSRF_TEST_ALLOW: '127.0.0.1:8080, [::1]:9000,localhost:81' }).ssrfTestAllow, [
      { host: '127.0.0.1', port: 8080 },
      { host: '::1', port: 9000 },
      { host: 'localhost', port: 81 },
    ]);
    assert.deepEqual(loadConfig({}).ssrfTestAllow, []);
    for (const bad of ['10.0.0.1:80', 'example.com:80', '127.0.0.1', '127.0.0.1:0', '169.254.169.254:80', '[::ffff:10.0.0.1]:80']) {
      assert.throws(() => loadConfig({ SSRF_TEST_ALLOW: bad }), ConfigError, bad);
    }
    assert.throws(() => loadConfig({ SSRF_TEST_ALLOW: '127.0.0.1:8080', NODE_ENV: 'production' }), /refused when NODE_ENV=production/);
  });
});
