import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import type { BucketCheck, BucketState, ConsumeResult, RateStore } from './store.js';
import { MemoryRateStore } from './memory-store.js';

// A sliding log per key in a sorted set scored by time, checked and updated in one script so
// the buckets of a request are consumed atomically across every instance: first every bucket
// is pruned and counted; only when none is full does each one record the request.
const CONSUME = `
local now = tonumber(ARGV[1])
local token = ARGV[2]
local out = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local first = now
  if oldest[2] then first = tonumber(oldest[2]) end
  if count >= limit then
    -- Nothing is recorded; the buckets checked before this one report their state as it stands.
    return {0, i, count, first, unpack(out)}
  end
  out[#out + 1] = count
  out[#out + 1] = first
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, token)
  redis.call('PEXPIRE', key, tonumber(ARGV[2 + 2 * i]))
end
table.insert(out, 1, 1)
return out
`;

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  /** How long a command may take before the request falls back to the local limiter. */
  timeoutMs: number;
  logger: FastifyBaseLogger;
}

/**
 * Counters shared by every instance through Redis. When Redis does not answer within
 * timeoutMs, the request is limited by a bounded in-memory store instead (it neither hangs nor
 * fails); a warning is logged, and Redis is used again as soon as it answers.
 */
export class RedisRateStore implements RateStore {
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateStore(50_000);
  private degraded = false;
  private connecting: Promise<boolean> | null = null;

  constructor(private readonly options: RedisStoreOptions) {
    this.redis = new Redis(options.url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // Connection errors are handled per command through the fallback; keep them off stderr.
    this.redis.on('error', () => {});
    this.redis.defineCommand('cartaConsume', { lua: CONSUME });
  }

  private keys(checks: BucketCheck[]): string[] {
    return checks.map((c) => `${this.options.prefix}${c.key}`);
  }

  /**
   * True once the connection is ready. While it is still being made (the first requests after a
   * start, or a reconnect in progress), waits up to timeoutMs for it rather than counting those
   * requests in memory only and logging a spurious outage. Concurrent requests share one wait.
   */
  private ready(): Promise<boolean> {
    const { status } = this.redis;
    if (status === 'ready') return Promise.resolve(true);
    if (status !== 'connecting' && status !== 'connect') return Promise.resolve(false);
    this.connecting ??= new Promise<boolean>((resolve) => {
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        this.redis.off('close', onClose);
        this.connecting = null;
        resolve(ok);
      };
      const onReady = () => settle(true);
      const onClose = () => settle(false);
      const timer = setTimeout(() => settle(false), this.options.timeoutMs);
      this.redis.once('ready', onReady);
      this.redis.once('close', onClose);
    });
    return this.connecting;
  }

  private degrade(err: unknown): void {
    if (!this.degraded) {
      this.degraded = true;
      this.options.logger.warn({ err: (err as Error)?.message }, 'redis rate-limit store unavailable; limiting in memory');
    }
  }

  private recover(): void {
    if (this.degraded) {
      this.degraded = false;
      this.options.logger.warn('redis rate-limit store is back');
    }
  }

  async consume(checks: BucketCheck[], now: number, token: string): Promise<ConsumeResult> {
    if (!(await this.ready())) {
      this.degrade(new Error(`redis is ${this.redis.status}`));
      return this.fallback.consume(checks, now, token);
    }
    try {
      const args = [now, token, ...checks.flatMap((c) => [c.limit, c.windowMs])];
      const reply = (await (
        this.redis as unknown as {
          cartaConsume(n: number, ...rest: (string | number)[]): Promise<number[]>;
        }
      ).cartaConsume(checks.length, ...this.keys(checks), ...args)) as number[];
      this.recover();
      if (reply[0] === 0) {
        const i = reply[1] - 1;
        const c = checks[i];
        const rejected: BucketState = { name: c.name, limit: c.limit, remaining: 0, resetMs: Number(reply[3]) + c.windowMs - now };
        const before = checks.slice(0, i).map((b, j) => {
          const count = Number(reply[4 + 2 * j]);
          const first = Number(reply[5 + 2 * j]);
          return { name: b.name, limit: b.limit, remaining: b.limit - count, resetMs: first + b.windowMs - now };
        });
        return { allowed: false, rejected, buckets: [...before, rejected], token };
      }
      const buckets = checks.map((c, i) => {
        const count = Number(reply[1 + 2 * i]);
        const first = Number(reply[2 + 2 * i]);
        return { name: c.name, limit: c.limit, remaining: c.limit - count - 1, resetMs: first + c.windowMs - now };
      });
      return { allowed: true, rejected: null, buckets, token };
    } catch (err) {
      this.degrade(err);
      return this.fallback.consume(checks, now, token);
    }
  }

  async refund(checks: BucketCheck[], token: string): Promise<void> {
    await this.fallback.refund(checks, token);
    if (this.redis.status !== 'ready') return;
    try {
      const pipeline = this.redis.pipeline();
      for (const key of this.keys(checks)) pipeline.zrem(key, token);
      await pipeline.exec();
    } catch {
      // A refund that cannot reach Redis only makes the limit stricter for one window.
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
