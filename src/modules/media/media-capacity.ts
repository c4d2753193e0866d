import { errors } from '../../errors.js';

/**
 * Bounds what image ingest may hold at once (decisions 7: "at capacity: 503 MEDIA_BUSY").
 *
 * - `slots` images are processed side by side; the others admitted wait for a slot.
 * - At most `slots + queue` ingest requests are admitted at all, once their body has arrived: each
 *   holds a body of up to 21 MB while it waits, so admission bounds memory, and a client that sends
 *   its body slowly holds no place that another venue needs. Past it the answer is MEDIA_BUSY with
 *   Retry-After, never a queue that grows.
 * - While bodies arrive, each venue may receive at most `slots + queue` uploads at once (the same
 *   answer past it): one venue's slow or stalled uploads hold only its own places, until the body
 *   timeout cuts them. All venues together may receive `receiveBudget` bytes at once (the bodies'
 *   declared sizes, which the decoder allocates), so memory stays bounded however many upload.
 */
export class MediaCapacity {
  private admitted = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly receiving = new Map<string, number>();
  private receivingBytes = 0;

  constructor(
    readonly slots: number,
    readonly queue: number,
    readonly receiveBudget = Number.POSITIVE_INFINITY,
  ) {}

  /** Takes a place to receive one upload's body of `bytes` for `venueId`, or throws MEDIA_BUSY; see admit. */
  receive(venueId: string, bytes = 0): () => void {
    const count = this.receiving.get(venueId) ?? 0;
    if (count >= this.slots + this.queue || this.receivingBytes + bytes > this.receiveBudget) throw errors.mediaBusy(this.retryAfterSec());
    this.receiving.set(venueId, count + 1);
    this.receivingBytes += bytes;
    return once(() => {
      this.receivingBytes -= bytes;
      const left = (this.receiving.get(venueId) ?? 1) - 1;
      if (left === 0) this.receiving.delete(venueId);
      else this.receiving.set(venueId, left);
    });
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
