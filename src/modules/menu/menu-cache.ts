import { etagOf } from '../../http/etag.js';

/** A serialised read, ready to send: the bytes and their ETag. */
export interface CachedBody {
  version: string;
  etag: string;
  body: Buffer;
}

/**
 * Serialised menus per venue and kind, each tagged with the database version it was built from.
 * A reader checks the version (one indexed row) and sends the cached Buffer while it matches, so
 * every instance serves fresh data without invalidation messages. Bounded, least recently used out.
 */
export class MenuCache {
  private readonly entries = new Map<string, CachedBody>();

  constructor(private readonly maxEntries = 1000) {}

  /** The cached entry when current (no promise: a hot read costs no microtask), else built. */
  get(key: string, version: string, build: () => Promise<string>): CachedBody | Promise<CachedBody> {
    const hit = this.entries.get(key);
    if (hit && hit.version === version) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    return this.fill(key, version, build);
  }

  private async fill(key: string, version: string, build: () => Promise<string>): Promise<CachedBody> {
    const body = Buffer.from(await build());
    const entry = { version, etag: etagOf(body), body };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }
}
