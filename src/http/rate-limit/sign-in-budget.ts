import { createHash, randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { SignInLimits } from '../../modules/console/sessions.service.js';
import type { RateLimiter } from './limiter.js';
import type { BucketCheck } from './store.js';

const MINUTE = 60_000;

/**
 * Failed console sign-ins allowed in a rolling 15 minutes (docs/security.md, "Console sign-in
 * under attack"): per client address over every email, and per email over every address that
 * has not signed in to it lately. Past either, 429 before any hash.
 */
export const SIGN_IN_BUDGET = {
  perAddress: 20,
  perEmail: 10,
  windowMs: 15 * MINUTE,
} as const;

/** Attempts from one address that may wait behind its running hash; one more is refused (429). */
export const SIGN_IN_WAITING_PER_ADDRESS = 4;

/**
 * The console's sign-in limits, buckets of a rate limiter (its store shared through Redis when it is):
 * each attempt is counted before its hash and given back when it succeeds, so only failures spend
 * a budget, and attempts at once cannot overrun it. Hashes run at most `maxHashes` at once and one
 * per address, so a few flooding addresses cannot hold every slot: a new address past the cap is
 * refused at once (503), and an address with SIGN_IN_WAITING_PER_ADDRESS attempts already waiting
 * for its own slot too (429), each with Retry-After, rather than queued behind a flood.
 */
export class SignInBudget implements SignInLimits {
  private running = 0;
  /** Addresses hashing now, each with the attempts waiting behind its one hash. */
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly maxHashes: number,
  ) {}

  async admitAddress(address: string): Promise<() => Promise<void>> {
    return this.take({
      name: 'sign-in-address',
      key: `sign-in:address:${address}`,
      limit: SIGN_IN_BUDGET.perAddress,
      windowMs: SIGN_IN_BUDGET.windowMs,
    });
  }

  async admitEmail(email: string): Promise<() => Promise<void>> {
    // Keyed by the email's hash, so the store (Redis, maybe) does not hold the email as typed (a
    // plain hash: whoever reads the store can still test a list of candidate emails against it).
    const key = createHash('sha256').update(email).digest('base64url');
    return this.take({
      name: 'sign-in-email',
      key: `sign-in:email:${key}`,
      limit: SIGN_IN_BUDGET.perEmail,
      windowMs: SIGN_IN_BUDGET.windowMs,
    });
  }

  /** Counts the attempt (429 past the bucket, as the limiter refuses any); the refund gives it back. */
  private async take(check: BucketCheck): Promise<() => Promise<void>> {
    const token = randomUUID();
    await this.limiter.count([check], token);
    return () => this.limiter.refund([check], token);
  }

  async hashingSlot(address: string): Promise<() => void> {
    const lane = this.lanes.get(address);
    if (lane) {
      // The address hashes one at a time: a venue's staff behind one NAT signing in together
      // wait their turn (a hash each); a flood past a few waiting is refused.
      if (lane.waiting.length >= SIGN_IN_WAITING_PER_ADDRESS) throw errors.rateLimited('sign-in-at-once', 1);
      await new Promise<void>((resolve) => lane.waiting.push(resolve));
      return this.releaser(address, lane);
    }
    if (this.running >= this.maxHashes) throw errors.serverBusy(1);
    this.running += 1;
    const fresh: Lane = { waiting: [] };
    this.lanes.set(address, fresh);
    return this.releaser(address, fresh);
  }

  /** Hands the address's slot to its next waiting attempt, or gives it back. */
  private releaser(address: string, lane: Lane): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = lane.waiting.shift();
      if (next) return next();
      this.lanes.delete(address);
      this.running -= 1;
    };
  }
}

interface Lane {
  waiting: (() => void)[];
}
