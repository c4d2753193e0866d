import { etagOf } from '../../shared/etag.js';
import { remember } from '../../lru.js';

/** A serialised read, ready to send: the bytes and their ETag. */
export interface CachedBody {
  version: string;
  etag: string;
  body: Buffer;
}

/**
 * Serialised menus per venue and kind (draft, published, a guest locale), each tagged with the
 * database version it was built from. A reader checks the version and sends the cached Buffer
 * while it matches. Bounded by venue, least recently used out.
 *
 * Keyed by the venue id as the caller holds it, then by kind: a hot read looks up strings whose
 * hashes V8 has already computed, instead of hashing a freshly built `venue:kind` key on every
 * request (the largest cost of ours left on the 304 path).
 */
export class MenuCache {
  private readonly venues = new Map<string, Map<string, CachedBody>>();
  private last: string | null = null;

  constructor(private readonly maxVenues = 1000) {}

  /** The cached entry while it is of `version`, else undefined (then `get` builds it). */
  peek(venueId: string, kind: string, version: string): CachedBody | undefined {
    const kinds = this.venues.get(venueId);
    const hit = kinds?.get(kind);
    if (!hit || hit.version !== version) return undefined;
    this.touch(venueId, kinds as Map<string, CachedBody>);
    return hit;
  }

  /** The entry of `version`: the cached one, or built and cached. */
  async get(venueId: string, kind: string, version: string, build: () => Promise<string>): Promise<CachedBody> {
    return this.peek(venueId, kind, version) ?? this.fill(venueId, kind, version, build);
  }

  private async fill(venueId: string, kind: string, version: string, build: () => Promise<string>): Promise<CachedBody> {
    const body = Buffer.from(await build());
    const entry = { version, etag: etagOf(body), body };
    const kinds = this.venues.get(venueId) ?? new Map<string, CachedBody>();
    kinds.set(kind, entry);
    remember(this.venues, venueId, kinds, this.maxVenues);
    this.last = venueId;
    return entry;
  }

  /** Most recently used last; a venue already last (a hot venue's next read) is left where it is. */
  private touch(venueId: string, kinds: Map<string, CachedBody>): void {
    if (this.last === venueId) return;
    this.venues.delete(venueId);
    this.venues.set(venueId, kinds);
    this.last = venueId;
  }
}
