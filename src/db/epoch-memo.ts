import { remember } from '../lru.js';
import type { Database, ReadScope } from './port.js';

/** What a memoised value was read from: a scope, or one found from the value once it is read. */
export type MemoScope<V> = ReadScope | ((value: V) => ReadScope | undefined) | undefined;

/**
 * Values read from the database, kept while nothing they were read from has been written since
 * (the database's write epoch of their scope has not moved). A hot read that would cost a query
 * per request (the API key look-up, a menu version, plan usage, an idle poll) then costs none; a
 * write makes the memos of its venue read again (its orders' memos only, for an order), so a
 * memo is never stale and a busy venue does not empty the memos of the others. A value without a
 * scope is read again after any write. While the epoch cannot be trusted (PostgreSQL with its
 * change feed down) every get reads.
 */
export class EpochMemo<V> {
  private readonly entries = new Map<string, { scope: ReadScope | undefined; epoch: number; value: V }>();

  constructor(
    private readonly db: Database,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The memoised value while nothing it was read from has been written since, else undefined (then
   * `get` reads it). A memoised value is never undefined: a look-up that finds nothing is kept as null.
   */
  peek(key: string): V | undefined {
    if (!this.db.coherent()) return undefined;
    const hit = this.entries.get(key);
    return hit && hit.epoch === this.db.writeEpoch(hit.scope) ? hit.value : undefined;
  }

  /** The value: the memoised one while current, else read through `load` (and memoised). */
  async get(key: string, scope: MemoScope<V>, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    if (!this.db.coherent()) return load();
    return this.fill(key, scope, load);
  }

  private async fill(key: string, scope: MemoScope<V>, load: () => Promise<V>): Promise<V> {
    // Every write moves the unscoped epoch: one taken now is passed by any write during the load.
    const before = this.db.writeEpoch();
    const value = await load();
    const read = typeof scope === 'function' ? scope(value) : scope;
    const epoch = this.db.writeEpoch(read);
    // A write that landed while loading may not be in the value: keep it only if none did.
    if (epoch <= before) remember(this.entries, key, { scope: read, epoch, value }, this.maxEntries);
    return value;
  }
}
