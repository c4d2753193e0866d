import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration: PostgreSQL change feed, read consistency and lock timeout', () => {
  const pg = { DATABASE_URL: 'postgres://carta@db:5432/carta' };

  it('listens on DATABASE_URL, reads strictly and waits 10 s for locks by default', () => {
    const config = loadConfig(pg);
    assert.equal(config.databaseListenUrl, pg.DATABASE_URL);
    assert.equal(config.readConsistency, 'strict');
    assert.equal(config.databaseLockTimeoutMs, 10_000);
  });

  it('takes a separate listen URL, or off', () => {
    assert.equal(loadConfig({ ...pg, DATABASE_LISTEN_URL: 'postgresql://carta@db-direct/carta' }).databaseListenUrl, 'postgresql://carta@db-direct/carta');
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
