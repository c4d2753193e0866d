// The only reader of process.env: the environment is validated once at start into a frozen,
// typed Config that is passed to everything else.
import path from 'node:path';
import { SYNC_WINDOW_MS } from './limits.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  readonly logLevel: LogLevel;
  /** Value for Fastify's trustProxy: false, true, a hop count, or a list of addresses/CIDRs. */
  readonly trustProxy: boolean | number | string[];
  readonly publicBaseUrl: string;
  readonly syncTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
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
  LOG_LEVEL: { default: 'info', doc: 'pino level: fatal, error, warn, info, debug, trace, silent' },
  TRUST_PROXY: { default: '(unset)', doc: 'Proxies whose X-Forwarded-For is trusted: a hop count, `true`, or comma-separated addresses/CIDRs' },
  PUBLIC_BASE_URL: { default: 'http://HOST:PORT', doc: 'Base of public links (QR table URLs, media)' },
  SYNC_TIMEOUT_MS: { default: '30000', doc: 'The sync transaction window (spec 4.1 rule 11)' },
  SHUTDOWN_TIMEOUT_MS: { default: '10000', doc: 'How long a graceful shutdown waits for in-flight requests' },
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
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
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
    logLevel,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://${publicHost}:${port}`).replace(/\/+$/, ''),
    syncTimeoutMs: int(env, 'SYNC_TIMEOUT_MS', SYNC_WINDOW_MS, 100, 600_000),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    ...overrides,
  };
  return Object.freeze(config);
}
