import { LRUCache } from 'lru-cache';

/**
 * Hot image bytes in process memory, bounded by their total size (MEDIA_CACHE_MB), least recently
 * used out. Blobs are immutable (a key is the hash of its bytes), so an entry never goes stale;
 * a blob deleted here is evicted at once, and one deleted through another instance ages out.
 */
export class MediaCache {
  private readonly entries: LRUCache<string, Buffer> | null;

  constructor(maxBytes: number) {
    this.entries = maxBytes > 0 ? new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(1, b.length) }) : null;
  }

  get(venueId: string, key: string): Buffer | undefined {
    return this.entries?.get(`${venueId}/${key}`);
  }

  set(venueId: string, key: string, bytes: Buffer): void {
    this.entries?.set(`${venueId}/${key}`, bytes);
  }

  evict(venueId: string, keys: readonly string[]): void {
    for (const key of keys) this.entries?.delete(`${venueId}/${key}`);
  }
}
