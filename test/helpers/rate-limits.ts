import { Redis } from 'ioredis';
import type { App } from '../../src/http/types.js';

/**
 * Returns once an app with its limiters on counts requests in Redis under `prefix` (at once
 * without REDIS_URL): until the store's connection is up, requests are counted in its in-memory
 * fallback, which would split a test's counts between the two.
 */
export async function whenRedisCounts(app: App, prefix: string): Promise<void> {
  if (!process.env.REDIS_URL) return;
  const redis = new Redis(process.env.REDIS_URL);
  try {
    for (let attempt = 0; ; attempt += 1) {
      const ip = `192.0.2.${attempt + 1}`;
      await app.inject({ method: 'GET', url: '/health/none', remoteAddress: ip });
      if ((await redis.exists(`${prefix}ip:short:${ip}`)) === 1) return;
      if (attempt === 50) throw new Error('the Redis rate-limit store never became ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    redis.disconnect();
  }
}
