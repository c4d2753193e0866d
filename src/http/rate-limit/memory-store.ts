import { remember } from '../../lru.js';
import type { BucketCheck, BucketState, ConsumeResult, RateStore } from './store.js';

interface Entry {
  at: number;
  token: string;
}

/**
 * Sliding log in process memory: per key the times of the requests still in the window (never
 * more than the bucket's limit). Exact rolling windows; bounded by evicting the least recently
 * used keys.
 */
export class MemoryRateStore implements RateStore {
  private readonly logs = new Map<string, Entry[]>();

  constructor(private readonly maxKeys = 100_000) {}

  private log(key: string, now: number, windowMs: number): Entry[] {
    let entries = this.logs.get(key);
    if (!entries) {
      entries = [];
    } else {
      let drop = 0;
      while (drop < entries.length && entries[drop].at <= now - windowMs) drop += 1;
      if (drop > 0) entries.splice(0, drop);
    }
    remember(this.logs, key, entries, this.maxKeys);
    return entries;
  }

  async consume(checks: BucketCheck[], now: number, token: string): Promise<ConsumeResult> {
    const logs = checks.map((c) => this.log(c.key, now, c.windowMs));
    const states: BucketState[] = [];
    for (let i = 0; i < checks.length; i += 1) {
      const c = checks[i];
      const entries = logs[i];
      if (entries.length >= c.limit) {
        const rejected = { name: c.name, limit: c.limit, remaining: 0, resetMs: entries[0].at + c.windowMs - now };
        // Nothing is recorded, so the buckets checked before this one report the slot it did not take.
        const before = states.map((b) => ({ ...b, remaining: b.remaining + 1 }));
        return { allowed: false, rejected, buckets: [...before, rejected], token };
      }
      states.push({
        name: c.name,
        limit: c.limit,
        remaining: c.limit - entries.length - 1,
        resetMs: (entries[0]?.at ?? now) + c.windowMs - now,
      });
    }
    for (const entries of logs) entries.push({ at: now, token });
    return { allowed: true, rejected: null, buckets: states, token };
  }

  async refund(checks: BucketCheck[], token: string): Promise<void> {
    for (const c of checks) {
      const entries = this.logs.get(c.key);
      const i = entries?.findIndex((e) => e.token === token) ?? -1;
      if (entries && i >= 0) entries.splice(i, 1);
    }
  }

  async close(): Promise<void> {}
}
