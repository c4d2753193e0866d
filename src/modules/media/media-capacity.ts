import { errors } from '../../errors.js';
import { MB, MEDIA_BODY_LIMIT_BYTES } from '../../limits.js';

/** How bodies being received share memory (docs/security.md, "Upload shares"). */
export interface ReceiveLimits {
  /** Bytes all venues' bodies may take at once, by their declared sizes (which the decoder allocates). */
  budget: number;
  /** A body of at most this many bytes is small: it may take the reserve, an eighth of the budget. */
  small: number;
  /** The largest body: every venue's share of the rest is at least this. */
  largest: number;
}

/**
 * Small enough for the reserve: a fast-lane WebP of 1 MB is a body of 1.34 MB in base64, and a
 * logo or a product photo of about 1.1 MB fits too.
 */
export const SMALL_UPLOAD_BYTES = 1.5 * MB;

/**
 * Bounds what image ingest may hold at once (at capacity: 503 MEDIA_BUSY).
 *
 * - `slots` images are processed side by side; the others admitted wait for a slot.
 * - At most `slots + queue` ingest requests are admitted at all, once their body has arrived: each
 *   holds a body of up to 21 MB while it waits, so admission bounds memory, and a client that sends
 *   its body slowly holds no place that another venue needs. Past it the answer is MEDIA_BUSY with
 *   Retry-After, never a queue that grows.
 * - While bodies arrive (`receive`), by their declared sizes: each venue may receive at most
 *   `slots + queue` uploads at once; all venues together at most the budget (four times what may be
 *   admitted, by default). An eighth of the budget is a reserve only small bodies may take, so
 *   others' stalled large bodies never refuse a small upload. The rest is shared: a venue's large
 *   bodies may take at most the rest divided by the venues receiving large bodies, itself included,
 *   plus one (room for a venue yet to come), and never less than one largest body. A venue that
 *   stalls its uploads holds only its share, until the body timeout cuts them.
 */
export class MediaCapacity {
  private admitted = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly receiving = new Map<string, { count: number; large: number }>();
  private receivingBytes = 0;
  private largeBytes = 0;
  /** Venues receiving at least one large body. */
  private largeVenues = 0;
  readonly limits: ReceiveLimits;
  /** The bytes only small bodies may take. */
  readonly reserve: number;

  constructor(
    readonly slots: number,
    readonly queue: number,
    limits: Partial<ReceiveLimits> = {},
  ) {
    const largest = limits.largest ?? MEDIA_BODY_LIMIT_BYTES;
    this.limits = { budget: limits.budget ?? 4 * (slots + queue) * largest, small: limits.small ?? SMALL_UPLOAD_BYTES, largest };
    this.reserve = this.limits.budget / 8;
  }

  /**
   * Takes a place to receive one upload's body of `bytes` for `venueId`, or throws MEDIA_BUSY
   * (before the body is read); the returned release may be called more than once.
   */
  receive(venueId: string, bytes = 0): () => void {
    const held = this.receiving.get(venueId) ?? { count: 0, large: 0 };
    const { budget, small, largest } = this.limits;
    if (held.count >= this.slots + this.queue || this.receivingBytes + bytes > budget) throw errors.mediaBusy(this.retryAfterSec());
    const large = bytes > small;
    if (large) {
      const shared = budget - this.reserve;
      const venues = this.largeVenues + (held.large === 0 ? 1 : 0);
      const share = Math.max(largest, shared / (venues + 1));
      if (this.largeBytes + bytes > shared || held.large + bytes > share) throw errors.mediaBusy(this.retryAfterSec());
    }
    held.count += 1;
    this.receiving.set(venueId, held);
    this.receivingBytes += bytes;
    if (large) {
      if (held.large === 0) this.largeVenues += 1;
      held.large += bytes;
      this.largeBytes += bytes;
    }
    return once(() => {
      this.receivingBytes -= bytes;
      if (large) {
        this.largeBytes -= bytes;
        held.large -= bytes;
        if (held.large === 0) this.largeVenues -= 1;
      }
      held.count -= 1;
      if (held.count === 0) this.receiving.delete(venueId);
    });
  }

  /** What is being received now: uploads and declared bytes, in all and by venue. */
  get received(): { uploads: number; bytes: number; venues: Map<string, { count: number; large: number }> } {
    let uploads = 0;
    for (const held of this.receiving.values()) uploads += held.count;
    return { uploads, bytes: this.receivingBytes, venues: new Map([...this.receiving].map(([venue, held]) => [venue, { ...held }])) };
  }

  /** Takes an admission or throws MEDIA_BUSY; the returned release may be called more than once. */
  admit(): () => void {
    if (this.admitted >= this.slots + this.queue) throw errors.mediaBusy(this.retryAfterSec());
    this.admitted += 1;
    return once(() => {
      this.admitted -= 1;
    });
  }

  /** Runs `work` in a processing slot, waiting for one first (admission bounds the wait). */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await work();
    } finally {
      // A waiter inherits the slot, so `running` does not dip and let a newcomer jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Rough time until a place frees: one image per slot takes about a second. */
  private retryAfterSec(): number {
    return Math.max(1, Math.ceil(this.queue / this.slots));
  }

  get inFlight(): number {
    return this.admitted;
  }
}

function once(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
