// The only reader of process.env: the environment is validated once at start into a frozen,
// typed Config that is passed to everything else.
import path from 'node:path';
import { MB, SYNC_WINDOW_MS } from './limits.js';
import { isLoopback } from './outbound/address-policy.js';
import type { AllowedEndpoint } from './outbound/guarded-connector.js';

/** scrypt's cost parameters (N a power of two). */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's scrypt baseline (Password Storage Cheat Sheet): N=2^17, r=8, p=1, 128 MiB per hash. */
export const SCRYPT_COST: ScryptCost = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** An S3-compatible bucket for image bytes (MEDIA_S3_*). */
export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, ...); AWS when null. */
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  prefix: string;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PostgreSQL connection string; null means the embedded PGlite database under dataDir. */
  readonly databaseUrl: string | null;
  readonly databasePoolSize: number;
  /**
   * The change feed's connection (LISTEN needs a session of its own, so not through a
   * transaction pooler): DATABASE_URL by default; null turns the feed off (every read queries).
   */
  readonly databaseListenUrl: string | null;
  /** How long a statement waits for a row or advisory lock before the request fails with 503. */
  readonly databaseLockTimeoutMs: number;
  /**
   * strict: a request sees every write committed before it arrived, through any instance (one
   * shared round trip per batch of requests). eventual: memos trust the change feed alone.
   */
  readonly readConsistency: 'strict' | 'eventual';
  readonly redisUrl: string | null;
  /** Prefix of every Redis key (several deployments or test runs can share one Redis). */
  readonly redisKeyPrefix: string;
  /** How long a Redis rate-limit call may take before the in-memory fallback answers. */
  readonly redisTimeoutMs: number;
  /** Operator token for /admin; null = the operator routes answer 404. */
  readonly adminToken: string | null;
  readonly rateLimits: boolean;
  /** GET /metrics is collected and served (METRICS, on by default). */
  readonly metrics: boolean;
  readonly logLevel: LogLevel;
  /** Value for Fastify's trustProxy: false, true, a hop count, or a list of addresses/CIDRs. */
  readonly trustProxy: boolean | number | string[];
  readonly publicBaseUrl: string;
  /**
   * The server the OpenAPI document names: PUBLIC_BASE_URL, or `/` when it is unset, which tools
   * resolve against wherever they fetched the document (docs/decisions.md).
   */
  readonly apiServerUrl: string;
  readonly syncTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  /** A request's headers must arrive within this, from its first byte. */
  readonly headersTimeoutMs: number;
  /** A JSON body must have arrived this long after its headers (uploads: uploadTimeoutMs). */
  readonly bodyTimeoutMs: number;
  readonly uploadTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Event-loop delay (the median over a second) past which new requests are answered 503 at once. */
  readonly overloadDelayMs: number;
  /** Share of the heap limit in use past which new requests are answered 503 at once. */
  readonly overloadHeapPercent: number;
  /** Base of image URLs: MEDIA_PUBLIC_URL, or this server's /media under PUBLIC_BASE_URL. */
  readonly mediaPublicUrl: string;
  /** Where image bytes live: an S3-compatible bucket, or (null) the database. */
  readonly mediaS3: S3Settings | null;
  /** Images processed side by side; ingest requests waiting beyond them (then 503 MEDIA_BUSY). */
  readonly mediaConcurrency: number;
  readonly mediaQueue: number;
  /** Bytes of hot images kept in memory for GET /media. */
  readonly mediaCacheBytes: number;
  /** Total time a remote image source may take, every redirect included. */
  readonly mediaFetchTimeoutMs: number;
  /** Tests only: loopback endpoints the outbound guard lets through (refused in production). */
  readonly ssrfTestAllow: readonly AllowedEndpoint[];
  /** Console sign-in hashes (128 MiB each at the production cost) running at once; more wait for none (503). */
  readonly signInHashes: number;
  /**
   * The scrypt cost new staff passwords are hashed at: OWASP's baseline. No environment variable
   * sets it; tests lower it through the config they pass in, to keep the suite quick.
   */
  readonly scryptCost: ScryptCost;
}

/** Every environment variable the service reads, with its default, for the README table. */
export const ENVIRONMENT = {
  PORT: { default: '3000', doc: 'HTTP port' },
  HOST: { default: '127.0.0.1', doc: 'Interface to listen on (0.0.0.0 in containers)' },
  DATA_DIR: { default: './data', doc: 'Embedded PGlite database and the generated admin token' },
  DATABASE_URL: { default: '(unset)', doc: 'postgres://... switches from PGlite to a PostgreSQL 15+ server' },
  DATABASE_POOL_SIZE: { default: '10', doc: 'Connections per instance when DATABASE_URL is set' },
  DATABASE_LISTEN_URL: {
    default: 'DATABASE_URL',
    doc: "PostgreSQL: the connection that listens for other instances' writes (direct, not through a transaction pooler); `off` reads every request from the database",
  },
  DATABASE_LOCK_TIMEOUT_MS: { default: '10000', doc: 'PostgreSQL: a lock wait longer than this answers 503 LOCK_TIMEOUT' },
  READ_CONSISTENCY: {
    default: 'strict',
    doc: 'PostgreSQL: `strict` reads every write committed through any instance; `eventual` skips the per-request catch-up (see docs/performance.md)',
  },
  REDIS_URL: { default: '(unset)', doc: 'redis://... shares rate-limit counters between instances' },
  REDIS_KEY_PREFIX: { default: 'carta:rl:', doc: 'Prefix of the rate-limit keys in Redis' },
  REDIS_TIMEOUT_MS: { default: '250', doc: 'A slower Redis answer falls back to in-memory limiting for that request' },
  ADMIN_TOKEN: { default: '(unset)', doc: 'Operator token (>= 32 chars) for /admin/v1; unset with PGlite: generated on first start' },
  RATE_LIMITS: { default: 'on', doc: '`off` disables every rate limiter (local runs and functional tests only)' },
  METRICS: { default: 'on', doc: '`off` stops collecting GET /metrics (Prometheus text, operator token)' },
  LOG_LEVEL: { default: 'info', doc: 'pino level: fatal, error, warn, info, debug, trace, silent' },
  TRUST_PROXY: {
    default: '(unset)',
    doc: 'Proxies whose X-Forwarded-For is trusted: a hop count, `true`, or comma-separated addresses/CIDRs',
  },
  PUBLIC_BASE_URL: {
    default: 'http://HOST:PORT',
    doc: "Base of public links (QR table URLs, media) and the OpenAPI document's server (`/` when unset)",
  },
  SYNC_TIMEOUT_MS: { default: '30000', doc: 'The sync transaction window' },
  SHUTDOWN_TIMEOUT_MS: { default: '10000', doc: 'How long a graceful shutdown waits for in-flight requests' },
  HEADERS_TIMEOUT_MS: { default: '10000', doc: "A request's headers must arrive within this (else 408 and the connection closes)" },
  BODY_TIMEOUT_MS: { default: '30000', doc: 'A JSON body must arrive within this after its headers (else 408 and the connection closes)' },
  UPLOAD_TIMEOUT_MS: { default: '120000', doc: "An image upload's body must arrive within this after its headers" },
  IDLE_TIMEOUT_MS: { default: '120000', doc: 'A connection with no traffic either way for this long is closed' },
  OVERLOAD_DELAY_MS: {
    default: '500',
    doc: 'Median event-loop delay, two seconds in a row, past which new requests get 503 SERVER_BUSY with Retry-After (GET /health is still answered)',
  },
  OVERLOAD_HEAP_PERCENT: { default: '90', doc: 'Share of the heap limit past which new requests get 503 SERVER_BUSY' },
  MEDIA_PUBLIC_URL: {
    default: 'PUBLIC_BASE_URL/media',
    doc: 'Base of image URLs (a CDN or the bucket); images are `<base>/<venueId>/<sha256>.webp`',
  },
  MEDIA_S3_BUCKET: { default: '(unset)', doc: 'Keep image bytes in this S3-compatible bucket instead of the database' },
  MEDIA_S3_REGION: { default: 'us-east-1', doc: "The bucket's region" },
  MEDIA_S3_ENDPOINT: { default: '(unset)', doc: 'An S3-compatible endpoint (MinIO, R2, ...); AWS when unset' },
  MEDIA_S3_ACCESS_KEY_ID: { default: '(unset)', doc: "Credentials for the bucket (else the AWS SDK's default chain)" },
  MEDIA_S3_SECRET_ACCESS_KEY: { default: '(unset)', doc: 'Credentials for the bucket' },
  MEDIA_S3_FORCE_PATH_STYLE: { default: 'true with an endpoint', doc: 'Path-style bucket addressing (most S3-compatible servers need it)' },
  MEDIA_S3_PREFIX: { default: '(empty)', doc: 'Prefix of every object key in the bucket' },
  MEDIA_CONCURRENCY: { default: '2', doc: 'Images processed at once' },
  MEDIA_QUEUE: { default: '2', doc: 'Image uploads that may wait for a slot; beyond them 503 MEDIA_BUSY' },
  MEDIA_CACHE_MB: { default: '64', doc: 'Memory for hot images served by GET /media (0 turns the cache off)' },
  MEDIA_FETCH_TIMEOUT_MS: { default: '15000', doc: 'Total time to download a remote image source, redirects included' },
  SIGN_IN_HASHES: {
    default: '3',
    doc: 'Console sign-in password hashes at once (128 MiB of memory each); one more gets 503 with Retry-After',
  },
  CARTA_URL: {
    default: 'http://127.0.0.1:3000',
    doc: 'Integrator commands (`carta push`, `pull`, `orders tail`): the Carta server they talk to',
  },
  CARTA_API_KEY: { default: '(unset)', doc: 'Integrator commands: the API key they use (the venue it belongs to is the one pushed to)' },
  NODE_ENV: { default: '(unset)', doc: '`production` refuses test-only settings (SSRF_TEST_ALLOW)' },
  SSRF_TEST_ALLOW: {
    default: '(unset)',
    doc: 'Tests only: loopback `host:port` endpoints the outbound guard lets through; refused when NODE_ENV=production',
  },
} as const;

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

function int(env: Env, name: keyof typeof ENVIRONMENT, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return value;
}

function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function bool(env: Env, name: keyof typeof ENVIRONMENT, fallback: boolean): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '') return fallback;
  if (['on', 'true', '1'].includes(raw)) return true;
  if (['off', 'false', '0'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function mediaS3(env: Env): S3Settings | null {
  const bucket = env.MEDIA_S3_BUCKET || null;
  if (bucket === null) return null;
  const endpoint = env.MEDIA_S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\//.test(endpoint)) throw new ConfigError('MEDIA_S3_ENDPOINT must start with http:// or https://');
  return {
    bucket,
    region: env.MEDIA_S3_REGION || 'us-east-1',
    endpoint,
    accessKeyId: env.MEDIA_S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.MEDIA_S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: bool(env, 'MEDIA_S3_FORCE_PATH_STYLE', endpoint !== null),
    prefix: env.MEDIA_S3_PREFIX ?? '',
  };
}

/**
 * SSRF_TEST_ALLOW: `host:port` entries, each a loopback address or localhost, so a test server can
 * stand in for a remote host. Never in production: it opens a hole in the guard.
 */
function ssrfTestAllow(env: Env): AllowedEndpoint[] {
  const raw = env.SSRF_TEST_ALLOW || '';
  if (raw === '') return [];
  if (env.NODE_ENV === 'production') throw new ConfigError('SSRF_TEST_ALLOW is for tests only and is refused when NODE_ENV=production');
  return raw.split(',').map((entry) => {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry.trim());
    const port = match ? Number(match[2]) : NaN;
    const host = match ? match[1].replace(/^\[|\]$/g, '') : '';
    if (!match || port < 1 || port > 65535 || (host !== 'localhost' && !isLoopback(host))) {
      throw new ConfigError(
        `SSRF_TEST_ALLOW entries must be loopback host:port (127.0.0.1:8080, [::1]:8080, localhost:8080), got '${entry}'`,
      );
    }
    return { host, port };
  });
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const adminToken = env.ADMIN_TOKEN || null;
  if (adminToken !== null && adminToken.length < 32) {
    throw new ConfigError('ADMIN_TOKEN must be at least 32 characters');
  }
  const rateLimitsRaw = (env.RATE_LIMITS ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(rateLimitsRaw)) {
    throw new ConfigError(`RATE_LIMITS must be 'on' or 'off', got '${env.RATE_LIMITS}'`);
  }
  const metricsRaw = (env.METRICS ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(metricsRaw))
    throw new ConfigError(`METRICS must be 'on' or 'off', got '${env.METRICS}'`);
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const listenRaw = env.DATABASE_LISTEN_URL || null;
  if (listenRaw !== null && listenRaw !== 'off' && !/^postgres(ql)?:\/\//.test(listenRaw)) {
    throw new ConfigError("DATABASE_LISTEN_URL must start with postgres:// or postgresql://, or be 'off'");
  }
  const readConsistency = (env.READ_CONSISTENCY || 'strict').toLowerCase();
  if (readConsistency !== 'strict' && readConsistency !== 'eventual') {
    throw new ConfigError(`READ_CONSISTENCY must be 'strict' or 'eventual', got '${env.READ_CONSISTENCY}'`);
  }
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://${publicHost}:${port}`).replace(/\/+$/, '');
  const mediaPublicUrl = (env.MEDIA_PUBLIC_URL || `${publicBaseUrl}/media`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(mediaPublicUrl)) throw new ConfigError('MEDIA_PUBLIC_URL must start with http:// or https://');

  const config: Config = {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseListenUrl: listenRaw === 'off' ? null : (listenRaw ?? databaseUrl),
    databaseLockTimeoutMs: int(env, 'DATABASE_LOCK_TIMEOUT_MS', 10_000, 1, 600_000),
    readConsistency,
    redisUrl: env.REDIS_URL || null,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'carta:rl:',
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 250, 10, 60_000),
    adminToken,
    rateLimits: ['on', 'true', '1'].includes(rateLimitsRaw),
    metrics: ['on', 'true', '1'].includes(metricsRaw),
    logLevel,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    publicBaseUrl,
    apiServerUrl: env.PUBLIC_BASE_URL ? publicBaseUrl : '/',
    syncTimeoutMs: int(env, 'SYNC_TIMEOUT_MS', SYNC_WINDOW_MS, 100, 600_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    headersTimeoutMs: int(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    bodyTimeoutMs: int(env, 'BODY_TIMEOUT_MS', 30_000, 100, 600_000),
    uploadTimeoutMs: int(env, 'UPLOAD_TIMEOUT_MS', 120_000, 100, 3_600_000),
    idleTimeoutMs: int(env, 'IDLE_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    overloadDelayMs: int(env, 'OVERLOAD_DELAY_MS', 500, 10, 600_000),
    overloadHeapPercent: int(env, 'OVERLOAD_HEAP_PERCENT', 90, 10, 100),
    mediaPublicUrl,
    mediaS3: mediaS3(env),
    mediaConcurrency: int(env, 'MEDIA_CONCURRENCY', 2, 1, 64),
    mediaQueue: int(env, 'MEDIA_QUEUE', 2, 0, 1000),
    mediaCacheBytes: int(env, 'MEDIA_CACHE_MB', 64, 0, 65_536) * MB,
    mediaFetchTimeoutMs: int(env, 'MEDIA_FETCH_TIMEOUT_MS', 15_000, 100, 600_000),
    ssrfTestAllow: ssrfTestAllow(env),
    signInHashes: int(env, 'SIGN_IN_HASHES', 3, 1, 64),
    scryptCost: SCRYPT_COST,
    ...overrides,
  };
  return Object.freeze(config);
}

/** What the integrator commands (`carta push`, `pull`, `orders tail`) need: a server and a key. */
export interface IntegratorConfig {
  readonly url: string;
  readonly apiKey: string;
}

export function loadIntegratorConfig(env: Env = process.env): IntegratorConfig {
  const url = env.CARTA_URL || 'http://127.0.0.1:3000';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`CARTA_URL must be an http(s) URL, got '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`CARTA_URL must be an http(s) URL, got '${url}'`);
  const apiKey = env.CARTA_API_KEY;
  if (!apiKey) throw new ConfigError('CARTA_API_KEY is not set: create a key with `carta key create --venue <id>` and export it');
  return Object.freeze({ url: parsed.href.replace(/\/$/, ''), apiKey });
}
