import type { Database } from '../../db/port.js';
import {
  anyEnabledEndpoint,
  claimDeliveries,
  disableEndpoint,
  recordBatch,
  venuesWithDueDeliveries,
  type AttemptOutcome,
  type BatchEntry,
  type ClaimedDelivery,
} from './deliveries.repository.js';
import { DELIVERY_TIMEOUT_MS, type OutgoingWebhook } from './webhook-sender.js';

/** After each failed attempt, the wait before the next, each with ±20% jitter: about a day in all; then the delivery is given up. */
export const DEFAULT_RETRY_DELAYS_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000,
];
/** An endpoint whose deliveries have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 24 * 60 * 60 * 1000;

export interface DispatcherOptions {
  /** How often due deliveries are looked for when nothing woke the dispatcher (retries, other instances' events). */
  pollMs?: number;
  /** How long a claimed delivery is this instance's: longer than a send can take. */
  leaseMs?: number;
  /** How long a receiver has to answer an attempt (10 s when unset): services.ts builds the sender with it; below `leaseMs`. */
  timeoutMs?: number;
  /** Endpoints sent to at once, per venue and in all. */
  concurrency?: number;
  /** Deliveries of one endpoint claimed together and sent one after the other (a backlog drains without a claim each). */
  batchSize?: number;
  /**
   * Rounds start at most this often (50 ms when unset): under a stream of orders, the deliveries
   * of a window go out in one claim and one record, not one of each per order. An idle
   * dispatcher's first round starts at once.
   */
  roundIntervalMs?: number;
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
 * instance commits an event (that venue is claimed at once), and every `pollMs` once armed
 * (retries, other instances' events: a look across venues), at most one round per
 * `roundIntervalMs`. It claims each venue's due deliveries, a batch per endpoint (FOR UPDATE SKIP
 * LOCKED on the queue's head, then a lease), so instances sharing a database never send one
 * delivery at the same time; sends each batch in order; and records what came of it in one
 * statement: delivered, due again after a backoff with jitter, or failed once the retries are
 * spent. A 410 disables the endpoint, as does failing for a day. A kill loses nothing: an unsent
 * delivery stays pending, a leased one is sent again once its lease runs out.
 */
export class WebhookDispatcher {
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly batchSize: number;
  private readonly roundIntervalMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly disableAfterMs: number;
  private readonly random: () => number;
  private readonly paused: boolean;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** When the last round started, and the timer of the next while it waits for its turn. */
  private lastRound = 0;
  private pending: NodeJS.Timeout | null = null;
  /** Venues this instance has just queued deliveries for: claimed without a look across venues. */
  private readonly woken = new Set<string>();
  /** Whether the next round looks across venues for due deliveries (a poll, a start). */
  private lookAll = false;
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
    if (options.timeoutMs !== undefined && options.timeoutMs >= this.leaseMs)
      throw new Error('the send timeout must be shorter than the lease');
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.concurrency = options.concurrency ?? 8;
    this.batchSize = options.batchSize ?? 50;
    this.roundIntervalMs = options.roundIntervalMs ?? 50;
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

  /**
   * Sends what is due now: the deliveries of `venueId`, which this instance just queued, or without
   * one whatever a look across venues finds. Coalesced: wakes during a round add to the next.
   */
  wake(venueId?: string): void {
    // Only a serving app sends (not a CLI command that committed an event: a server sends it).
    if (this.stopped || !this.started) return;
    if (venueId === undefined) this.lookAll = true;
    else this.woken.add(venueId);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.pending || this.stopped || (!this.lookAll && this.woken.size === 0)) return;
    const wait = this.lastRound + this.roundIntervalMs - Date.now();
    if (wait > 0) {
      this.pending = setTimeout(() => {
        this.pending = null;
        this.kick();
      }, wait);
      return;
    }
    this.lastRound = Date.now();
    this.running = this.round()
      .catch(() => {
        // The database is unavailable for now: the next poll looks again.
        this.woken.clear();
      })
      .finally(() => {
        this.running = null;
        this.kick();
      });
  }

  /** One pass over the venues with work due (woken, or found by a look across venues). */
  private async round(): Promise<void> {
    const venues = new Set(this.woken);
    this.woken.clear();
    if (this.lookAll) {
      this.lookAll = false;
      for (const venueId of await venuesWithDueDeliveries(this.db, 100)) venues.add(venueId);
    }
    if (venues.size > 0) this.arm();
    for (const venueId of venues) {
      if (this.stopped) break;
      // Taken before the claim, so the lease is over no earlier than this instance thinks.
      const leaseEnds = Date.now() + this.leaseMs;
      const limits = { endpoints: this.concurrency, batch: this.batchSize };
      // Bookkeeping no memo reads, each statement committed on its own (db.unread).
      const claimed = await claimDeliveries(this.db.unread, venueId, limits, this.leaseMs);
      if (claimed.length === 0) continue;
      // The claim gives them in queue order, which each endpoint's batch keeps.
      const queues = new Map<string, ClaimedDelivery[]>();
      for (const d of claimed) {
        const queue = queues.get(d.endpoint_id);
        if (queue) queue.push(d);
        else queues.set(d.endpoint_id, [d]);
      }
      await Promise.all([...queues].map(([endpointId, queue]) => this.deliver(venueId, endpointId, queue, leaseEnds)));
      // More may have been queued meanwhile, or not fitted in the claim: the venue is claimed again.
      this.woken.add(venueId);
    }
  }

  /**
   * Sends one endpoint's claimed batch in its order, stopping at the first failure (what follows
   * waits behind its retry) and before a send that could outlast the lease (another instance may
   * claim the rest then); records it all in one statement.
   */
  private async deliver(venueId: string, endpointId: string, queue: ClaimedDelivery[], leaseEnds: number): Promise<void> {
    const entries: BatchEntry[] = [];
    let failed: AttemptOutcome | null = null;
    for (const delivery of queue) {
      const sendable = entries.length === 0 || (failed === null && !this.stopped && Date.now() + this.timeoutMs < leaseEnds);
      if (!sendable) {
        entries.push({ id: delivery.id, attempt: delivery.attempts, outcome: null, result: null });
        continue;
      }
      const secrets = delivery.previous_secret === null ? [delivery.secret] : [delivery.secret, delivery.previous_secret];
      const outcome = await this.sender.send({ url: delivery.url, messageId: delivery.event_id, payload: delivery.payload, secrets });
      if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300) {
        entries.push({ id: delivery.id, attempt: delivery.attempts, outcome, result: { delivered: true } });
        continue;
      }
      // Given up once the schedule is spent (about a day by default), counted in attempts rather
      // than age: deliveries that waited behind a disabled endpoint still get their retries.
      const delay = this.retryDelaysMs[delivery.attempts - 1];
      const retryAt = delay === undefined ? null : new Date(Date.now() + delay * (0.8 + 0.4 * this.random()));
      entries.push({ id: delivery.id, attempt: delivery.attempts, outcome, result: { delivered: false, retryAt } });
      failed = outcome;
    }
    // Disabling an endpoint changes what the venue's events reach, so it moves the venue's memos.
    const { failingSince } = await recordBatch(this.db.unread, venueId, endpointId, entries);
    const reason = failed && this.disableReason(failed, failingSince);
    if (reason) await this.db.transaction((tx) => disableEndpoint(tx, venueId, endpointId, reason), { venueId });
  }

  /** Why a failed attempt turns its endpoint off (a 410, or failing for a day), or null. */
  private disableReason(failed: AttemptOutcome, failingSince: Date | null): string | null {
    if (failed.statusCode === 410) return 'the endpoint answered 410 Gone';
    if (failingSince && Date.now() - failingSince.getTime() > this.disableAfterMs) {
      return `every delivery failed for ${span(this.disableAfterMs)} (last: ${failed.error ?? 'no answer'})`;
    }
    return null;
  }

  /** Stops claiming and waits for the round in progress (its sends are bounded by their timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pending) clearTimeout(this.pending);
    this.timer = null;
    this.pending = null;
    await this.running;
  }
}
