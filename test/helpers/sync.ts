import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.js';
import { call, type Call, type VenueFixture } from './app.js';

// The calls the POST /v1/sync suites (test/sync-*.test.ts) make, bound to the app a suite starts
// in its before(): `syncCalls(() => t.app)`.

export interface SyncCalls {
  /** POST /v1/sync as the venue's key; any status. */
  sync(v: VenueFixture, body?: unknown): Promise<Call>;
  /** POST /v1/sync that must answer 201; returns the response body. */
  syncOk(v: VenueFixture, body: unknown): Promise<any>;
  /** GET /v1/products/:ref that must answer 200. */
  product(v: VenueFixture, ref: string): Promise<any>;
  /** GET /v1/menu (the draft) that must answer 200. */
  draft(v: VenueFixture): Promise<any>;
  /** planLimits.usage of GET /v1/reference. */
  usage(v: VenueFixture): Promise<{ products: number; categories: number; ingredients: number }>;
}

export function syncCalls(app: () => App): SyncCalls {
  function sync(v: VenueFixture, body?: unknown): Promise<Call> {
    return call(app(), 'POST', '/v1/sync', { key: v.key, body });
  }

  async function syncOk(v: VenueFixture, body: unknown): Promise<any> {
    const res = await sync(v, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }

  async function product(v: VenueFixture, ref: string): Promise<any> {
    const res = await call(app(), 'GET', `/v1/products/${encodeURIComponent(ref)}`, { key: v.key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }

  async function draft(v: VenueFixture): Promise<any> {
    const res = await call(app(), 'GET', '/v1/menu', { key: v.key });
    assert.equal(res.status, 200);
    return res.body;
  }

  async function usage(v: VenueFixture): Promise<{ products: number; categories: number; ingredients: number }> {
    const res = await call(app(), 'GET', '/v1/reference', { key: v.key });
    assert.equal(res.status, 200);
    return res.body.planLimits.usage;
  }

  return { sync, syncOk, product, draft, usage };
}

/** The created/updated/skipped counts of one section of a sync response. */
export function counts(section: { created: number; updated: number; skipped: number }) {
  return { created: section.created, updated: section.updated, skipped: section.skipped };
}

/** Two categories and three ingredients that products can refer to. */
export const BASE = {
  categories: [
    { externalId: 'c1', name: 'Pizza' },
    { externalId: 'c2', name: 'Drinks' },
  ],
  ingredients: [
    { externalId: 'i1', name: 'Mozzarella' },
    { externalId: 'i2', name: 'Basil' },
    { externalId: 'i3', name: 'Olives' },
  ],
};
