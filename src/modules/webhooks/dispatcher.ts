import type { Database } from '../../db/port.js';
import {
  anyEnabledEndpoint,
  claimDeliveries,
  disableEndpoint,
  recordAttempt,
  venuesWithDueDeliveries,
  type AttemptOutcome,
  type ClaimedDelivery,
} from './deliveries.repository.js';
import type { OutgoingWebhook } from './webhook-sender.js';

/** After each failed attempt, the wait before the next, each with ±20% jitter: about a day in all; then the delivery is given up. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000];
/** An endpoint whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 24 * 60 * 60 * 1000;

export interface DispatcherOptions {
  /** How often due deliveries are looked for when nothing woke the dispatcher (retries, other instances' events). */
  pollMs?: number;
  /** How long a claimed delivery is this instance's: longer than a send can take. */
  leaseMs?: number;
  /** How long a receiver has to answer an attempt (10 s when unset): services.ts builds the sender with it; below `leaseMs`. */
  timeoutMs?: number;
  /** Deliveries sent at once, per venue and in all. */
  concurrency?: number;
  retryDelaysMs?: readonly number[];
  disableAfterMs?: number;
  random?: () => number;
  /** Tests that compare table checksums around each request: deliveries are queued, never sent. */
  paused?: boolean;
}

/** A duration as the disabled reason says it: hours, or seconds when shorter (tests). */
const span = (ms: number) => (ms >= 3_600_000 ? `${Math.round(ms / 3_600_000)} hours` : `${Math.round(ms / 1000)} s`);

export interface Sender {
  send(message: OutgoingWebhook): Promise<AttemptOutcome>;
}

/**
 * Sends what the outbox holds (docs/events.md). Each instance runs one. It wakes when this
 * instance commits an event, and every `pollMs` once armed (retries, other instances' events); it claims due deliveries venue by venue
 * (FOR UPDATE SKIP LOCKED, then a lease), so instances sharing a database never send one delivery
 * at the same time, sends them, and records each attempt: delivered, due again after a backoff
 * with jitter, or failed once a day has passed. A 410 disables the endpoint, as does failing for
 * a day. A kill loses nothing: an unsent delivery stays pending, a leased one is sent again once
 * its lease runs out.
 */
export class WebhookDispatcher {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly disableAfterMs: number;
  private readonly random: () => number;
  private readonly paused: boolean;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly sender: Sender,
    options: DispatcherOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 30_000;
    // A send outlasting its lease could be claimed and sent by another instance at the same time.
    if (options.timeoutMs !== undefined && options.timeoutMs >= this.leaseMs) throw new Error('the send timeout must be shorter than the lease');
    this.concurrency = options.concurrency ?? 8;
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.disableAfterMs = options.disableAfterMs ?? DISABLE_AFTER_MS;
    this.random = options.random ?? Math.random;
    this.paused = options.paused ?? false;
  }

  /**
   * One look at start: polling begins now if any venue has an enabled endpoint (another instance's
   * deliveries may be left to this one), otherwise once this process sees a venue with webhooks.
   */
  async start(): Promise<void> {
    if (this.started || this.stopped || this.paused) return;
    this.started = true;
    try {
      // Any endpoint anywhere: deliveries another instance left (or will leave) may need this one.
      // Due work can only wait on an enabled endpoint, and the first round looks for it.
      if (await anyEnabledEndpoint(this.db)) {
        this.arm();
        this.wake();
      }
    } catch {
      // The database is not answering yet: poll, and look again then.
      this.arm();
    }
  }

  /**
   * Polls every `pollMs` from now on: called once this process has seen a venue with webhooks (or
   * work due), so a server whose venues have none makes no query for them.
   */
  arm(): void {
    if (this.timer || this.stopped || !this.started) return;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
  }

  /** Looks for due deliveries now (coalesced: a wake during a round runs one more round). */
  wake(): void {
    // Only a serving app sends (not a CLI command that committed an event: a server sends it).
    if (this.stopped || !this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.rounds().finally(() => {
      this.running = null;
    });
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      try {
        while (!this.stopped && (await this.round()) > 0);
      } catch {
        // The database is unavailable for now: the next wake or poll tries again.
      }
    } while (this.again && !this.stopped);
  }

  /** One pass over the venues with work due; returns how many deliveries it sent. */
  private async round(): Promise<number> {
    const venues = await venuesWithDueDeliveries(this.db, 100);
    if (venues.length > 0) this.arm();
    let sent = 0;
    for (const venueId of venues) {
      if (this.stopped) break;
      const claimed = await this.db.transaction((tx) => claimDeliveries(tx, venueId, this.concurrency, this.leaseMs), { scope: { venueId, ordersOnly: true } });
      await Promise.all(claimed.map((d) => this.deliver(venueId, d)));
      sent += claimed.length;
    }
    return sent;
  }

  private async deliver(venueId: string, delivery: ClaimedDelivery): Promise<void> {
    const secrets = delivery.previous_secret === null ? [delivery.secret] : [delivery.secret, delivery.previous_secret];
    const outcome = await this.sender.send({ url: delivery.url, messageId: delivery.event_id, payload: delivery.payload, secrets });
    const delivered = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const ref = { id: delivery.id, endpointId: delivery.endpoint_id, attempt: delivery.attempts };
    // The delivery's own bookkeeping touches no venue data a memo reads (WriteScope ordersOnly);
    // disabling an endpoint changes what the venue's events reach, so it moves the venue's memos.
    const reason = await this.db.transaction(async (tx) => {
      if (delivered) {
        await recordAttempt(tx, venueId, ref, outcome, { delivered: true });
        return null;
      }
      // Given up once the schedule is spent (about a day by default), counted in attempts rather
      // than age: deliveries that waited behind a disabled endpoint still get their retries.
      const delay = this.retryDelaysMs[delivery.attempts - 1];
      const retryAt = delay === undefined ? null : new Date(Date.now() + delay * (0.8 + 0.4 * this.random()));
      const { failingSince } = await recordAttempt(tx, venueId, ref, outcome, { delivered: false, retryAt });
      if (outcome.statusCode === 410) return 'the endpoint answered 410 Gone';
      if (failingSince && Date.now() - failingSince.getTime() > this.disableAfterMs) {
        return `every delivery failed for ${span(this.disableAfterMs)} (last: ${outcome.error ?? 'no answer'})`;
      }
      return null;
    }, { scope: { venueId, ordersOnly: true } });
    if (reason) await this.db.transaction((tx) => disableEndpoint(tx, venueId, delivery.endpoint_id, reason), { scope: { venueId } });
  }

  /** Stops claiming and waits for the round in progress (its sends are bounded by their timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
