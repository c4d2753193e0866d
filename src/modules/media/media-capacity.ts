import { errors } from '../../errors.js';

/**
 * Bounds what image ingest may hold at once (decisions 7: "at capacity: 503 MEDIA_BUSY").
 *
 * - `slots` images are processed side by side; the others admitted wait for a slot.
 * - At most `slots + queue` ingest requests are admitted at all, counted from before their body is
 *   read: each holds a body of up to 21 MB while it waits, so admission is what bounds memory. Past
 *   it the answer is MEDIA_BUSY with Retry-After, never a queue that grows.
 */
export class MediaCapacity {
  private admitted = 0;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly slots: number,
    readonly queue: number,
  ) {}

  /** Takes an admission or throws MEDIA_BUSY; the returned release may be called more than once. */
  admit(): () => void {
    if (this.admitted >= this.slots + this.queue) throw errors.mediaBusy(this.retryAfterSec());
    this.admitted += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.admitted -= 1;
    };
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
