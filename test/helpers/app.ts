import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { QueryListener } from '../../src/db/port.js';
import type { App } from '../../src/http/types.js';
import type { DispatcherOptions } from '../../src/modules/webhooks/dispatcher.js';
import type { LiveStreamOptions } from '../../src/shared/live-stream.js';
import type { LingeringClose } from '../../src/http/plugins/lingering-close.js';
import type { Services } from '../../src/services.js';
import type { Resolver } from '../../src/outbound/guarded-connector.js';
import { testDatabase, type TestDatabase } from './db.js';
import { injectBounded } from './inject-bounded.js';
import { loopbackResolver } from './net.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef0123456789';
export const TEST_SCRYPT_COST = Object.freeze({ N: 2 ** 14, r: 8, p: 1 });

export interface TestApp {
  app: App;
  services: Services;
  database: TestDatabase;
  config: Config;
  close(): Promise<void>;
}

/** The real app on a database of its own, driven through inject (real routing, hooks, serialisation). */
export async function startApp(
  overrides: Partial<Config> = {},
  onQuery?: QueryListener,
  deps: {
    resolve?: Resolver;
    clock?: () => number;
    webhookDispatch?: DispatcherOptions;
    orderStreams?: LiveStreamOptions;
    boardFeeds?: LiveStreamOptions;
    lingeringClose?: LingeringClose;
    /** Compile the body validators before serving, as the server does (off: on first use). */
    warmValidators?: boolean;
  } = {},
): Promise<TestApp> {
  const database = await testDatabase(onQuery);
  // Like the rate limits, load shedding is out of reach unless a test sets it: a test file's own
  // work on a busy CI machine would otherwise read as overload (test/http/load-shedding.test.ts sets it).
  // Staff passwords at a test cost (2^14, about 16 ms): suites set many. test/console/sign-in-attack.test.ts
  // runs at the production cost.
  const config = loadConfig(
    {
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN,
      DATA_DIR: '/nonexistent',
      REDIS_URL: process.env.REDIS_URL,
      OVERLOAD_DELAY_MS: '600000',
    },
    { scryptCost: TEST_SCRYPT_COST, ...overrides },
  );
  const { app, services } = await buildApp({
    config,
    db: database.db,
    resolve: deps.resolve ?? loopbackResolver,
    clock: deps.clock,
    webhookDispatch: deps.webhookDispatch,
    orderStreams: deps.orderStreams,
    boardFeeds: deps.boardFeeds,
    lingeringClose: deps.lingeringClose,
    // Off by default: compiling every route's body validator costs each test file half a second of
    // CPU for the few routes it sends bodies to (test/http/validator-compile.test.ts turns it on).
    warmValidators: deps.warmValidators ?? false,
  });
  await app.ready();
  return {
    app,
    services,
    database,
    config,
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Call {
  status: number;
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
  raw: LightMyRequestResponse;
}

export async function call(
  app: App,
  method: Method,
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const request = {
    method,
    url,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  };
  // A live stream (GET /v1/orders/stream) never ends: suites that call every route read a moment of it.
  const res = await injectBounded(app, request);
  let body: unknown = res.body;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    // not JSON; keep the text
  }
  return { status: res.statusCode, body, headers: res.headers, raw: res };
}

/** A refusal: its status and, when given, its catalogue code. */
export function assertError(res: { status: number; body: any }, status: number, code?: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  if (code) assert.equal(res.body.code, code, JSON.stringify(res.body));
}

export function admin(app: App, method: Method, url: string, body?: unknown): Promise<Call> {
  return call(app, method, `/admin/v1${url}`, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

export interface VenueFixture {
  id: string;
  slug: string;
  sandboxId: string;
  key: string;
  keyId: string;
}

let counter = 0;

/** A venue of its own for one test (isolation by tenant), with a live key. */
export async function createVenue(
  app: App,
  options: { plan?: 'free' | 'standard' | 'pro'; currency?: string; readOnly?: boolean; mode?: 'live' | 'test' } = {},
): Promise<VenueFixture> {
  counter += 1;
  const venue = await admin(app, 'POST', '/venues', {
    name: `Test Venue ${process.pid} ${counter}`,
    currency: options.currency ?? 'EUR',
    plan: options.plan ?? 'standard',
  });
  if (venue.status !== 201) throw new Error(`venue create failed: ${JSON.stringify(venue.body)}`);
  const key = await admin(app, 'POST', `/venues/${venue.body.id}/api-keys`, {
    mode: options.mode ?? 'live',
    readOnly: options.readOnly ?? false,
  });
  if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return { id: venue.body.id, slug: venue.body.slug, sandboxId: venue.body.sandbox.id, key: key.body.key, keyId: key.body.id };
}

/** POST /v1/sync that must succeed (201); returns the response body. */
export async function syncOk(app: App, v: VenueFixture, body: unknown): Promise<any> {
  const res = await call(app, 'POST', '/v1/sync', { key: v.key, body });
  if (res.status !== 201) throw new Error(`sync failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
