import { remember } from '../lru.js';
import type { Database } from './port.js';

/**
 * Values read from the database, kept while nothing has written since (the database's write
 * epoch has not moved). A hot read that would cost a query per request (the API key look-up, a
 * menu version, plan usage, an idle poll) then costs none; any write anywhere makes every memo
 * read again, so a memo is never stale. While the epoch cannot be trusted (PostgreSQL with its
 * change feed down) every get reads.
 */
export class EpochMemo<V> {
  private readonly entries = new Map<string, { epoch: number; value: V }>();

  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {}

  /** The value, without a promise when it is memoised (a hot read then costs no microtask). */
  get(key: string, load: () => Promise<V>): V | Promise<V> {
    if (!this.db.coherent()) return load();
    const epoch = this.db.writeEpoch();
    const hit = this.entries.get(key);
    if (hit && hit.epoch === epoch) return hit.value;
    return this.fill(key, epoch, load);
  }

  private async fill(key: string, epoch: number, load: () => Promise<V>): Promise<V> {
    const value = await load();
    // A write that landed while loading may not be in the value: keep it only if none did.
    if (this.db.writeEpoch() === epoch) {
      remember(this.entries, key, { epoch, value }, this.maxEntries);
    }
    return value;
  }

}
