import type { Database } from '../../db/port.js';
import { remember } from '../../lru.js';

/** How long a miss is remembered at most: the longest another instance's new blob can stay hidden here without a change feed. */
export const MEDIA_MISS_TTL_MS = 5_000;
const MEDIA_MISSES_MAX = 10_000;

/** Taken before a look-up: whether a miss it finds may be remembered (nothing was stored meanwhile). */
export interface MissMark {
  stored: number;
  epoch: number;
}

/**
 * Blobs recently looked up and not found (GET /media misses), so a client asking again and again
 * for one costs no database or bucket read. A blob's URL is handed out only after the upload that
 * stored it has committed, but a key can be asked for before that (a deleted image uploaded again
 * has its old URL back, and a pre-optimised upload's key is the hash of bytes the client holds),
 * so a miss is forgotten:
 * - when this instance stores that blob (forget, after the commit), and is not remembered from a
 *   look-up that overlapped a store here;
 * - when the venue's write epoch moves: at once for this instance's commits, and within the change
 *   feed's delay for another instance's (PostgreSQL with its feed);
 * - after MEDIA_MISS_TTL_MS in any case, which bounds how long another instance's new blob can be
 *   404 here when nothing moves the epoch (PostgreSQL without the change feed, or while it is down).
 */
export class MediaMisses {
  private readonly entries = new Map<string, { epoch: number; until: number }>();
  /** Moves on every store through this instance. */
  private stored = 0;

  constructor(
    private readonly db: Database,
    private readonly ttlMs = MEDIA_MISS_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the blob was missing a moment ago and nothing since can have stored it. */
  has(venueId: string, key: string): boolean {
    const id = `${venueId}/${key}`;
    const miss = this.entries.get(id);
    if (!miss) return false;
    if (miss.until > this.now() && miss.epoch === this.db.writeEpoch({ venueId })) return true;
    this.entries.delete(id);
    return false;
  }

  mark(venueId: string): MissMark {
    return { stored: this.stored, epoch: this.db.writeEpoch({ venueId }) };
  }

  /** Remembers a miss, unless a blob was stored (here, or anywhere the epoch tells of) since `mark`. */
  remember(venueId: string, key: string, mark: MissMark): void {
    if (mark.stored !== this.stored || mark.epoch !== this.db.writeEpoch({ venueId })) return;
    remember(this.entries, `${venueId}/${key}`, { epoch: mark.epoch, until: this.now() + this.ttlMs }, MEDIA_MISSES_MAX);
  }

  /** This instance stored these blobs (called once the store has committed). */
  forget(venueId: string, keys: readonly string[]): void {
    this.stored += 1;
    for (const key of keys) this.entries.delete(`${venueId}/${key}`);
  }
}
