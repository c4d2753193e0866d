import net from 'node:net';
import pg from 'pg';
import type { ReadScope, WriteListener, WriteScope } from './port.js';
import { decodeScope, WriteEpochs } from './write-epochs.js';

/**
 * How an instance learns that another instance wrote (PostgreSQL). Every committed write sends a
 * NOTIFY on the channel in its own transaction, its scope as the payload; this connection LISTENs
 * and moves the write epochs of that scope on each one, so memos keyed by them (EpochMemo) stay
 * valid across instances.
 *
 * Freshness: a notification travels on its own, so a request could arrive here before the
 * notification of a write its client already saw committed elsewhere. `catchUp()` closes that
 * gap: it resolves after a round trip on this same connection that started after the call, and
 * PostgreSQL delivers every notification committed before a command ahead of that command's
 * reply. The round trip is an empty query, the lightest command a client can send. Requests that
 * arrive while one is out, or in one turn of the event loop, share the next, so a busy instance
 * sends one tiny command per batch of requests instead of its queries per request
 * (docs/performance.md, "PostgreSQL: other instances' writes and strict reads").
 *
 * While the connection is down the feed is not coherent: memos read through (always correct,
 * only slower) until it is back, listening, with a new epoch.
 */
/**
 * A catch-up round trip that takes longer than this means the connection is stuck (a network
 * partition sends no reset): the feed is dropped and reconnected, and waiting requests read through.
 */
export const CATCH_UP_TIMEOUT_MS = 2000;

/** Callers that share one round trip. */
interface Batch {
  promise: Promise<void>;
  release: () => void;
  waits: number;
}

interface RoundTrip {
  batch: Batch;
  /** performance.now() when it was sent. */
  sent: number;
}

/** How the feed's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'carta-change-feed';

export class ChangeFeed {
  private client: pg.Client | null = null;
  /** The current client's socket (pg opens it through the `stream` option): a stuck one is destroyed. */
  private socket: net.Socket | null = null;
  private listening = false;
  private readonly epochs = new WriteEpochs();
  /** Callers waiting for the next round trip, sent at the end of this turn or when the one out returns. */
  private open: Batch | null = null;
  /** The round trip out, if any. */
  private out: RoundTrip | null = null;
  /** Drops a connection whose round trip is out longer than CATCH_UP_TIMEOUT_MS. */
  private watchdog: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** Failed attempts in a row: only the first of a run is reported. */
  private failures = 0;
  /** Told of each catch-up round trip: how long it took, in seconds, and how many reads it served (GET /metrics). */
  onRoundTrip: ((seconds: number, waits: number) => void) | null = null;
  /** Told when the feed goes up or down (the server logs it: a down feed means slower reads). */
  onChange: ((listening: boolean, err?: Error) => void) | null = null;
  /** Drops the current connection (set while one is open). */
  private drop: ((err?: Error) => void) | null = null;

  constructor(
    private readonly clientConfig: pg.ClientConfig,
    readonly channel: string,
    private readonly retryMs = 1000,
  ) {}

  /** Connects and listens; resolves when listening or after the first failure (then retries). */
  async start(): Promise<void> {
    // keepAlive: a peer that vanished is noticed by the OS, not only by a catch-up that times out.
    // query_timeout bounds the LISTEN of a connection that opened but stopped answering.
    const socket = new net.Socket();
    const client = new pg.Client({
      ...this.clientConfig,
      application_name: CHANGE_FEED_APPLICATION,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: 10_000,
      stream: () => socket,
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      // Reported once per outage: when a listening feed drops, or when the first start fails.
      if (this.listening || this.failures === 0) this.onChange?.(false, err);
      this.failures += 1;
      this.listening = false;
      this.epochs.moved();
      // Round trips out get no answer now: their readers go on, reading through the memos.
      this.settleAll();
      client.end().catch(() => {});
      // end() waits for the server to close a connection that may be stuck: let the socket go now.
      socket.destroy();
      this.scheduleRetry();
    };
    this.drop = lost;
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      this.epochs.moved(decodeScope(message.payload));
    });
    this.client = client;
    this.socket = socket;
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
      if (this.client !== client || this.closed) return;
      // Anything written while this instance was not listening is unknown: every memo reads again.
      this.epochs.moved();
      this.listening = true;
      this.failures = 0;
      this.onChange?.(true);
    } catch (err) {
      lost(err as Error);
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.start();
    }, this.retryMs);
    this.retry.unref();
  }

  /** True while every committed write moves the epoch. */
  coherent(): boolean {
    return this.listening;
  }

  writeEpoch(scope?: ReadScope): number {
    return this.epochs.of(scope);
  }

  /** Every move of the epochs: notifications, this process's commits, and the feed going down or up. */
  onWrite(listener: WriteListener): () => void {
    return this.epochs.listen(listener);
  }

  /** This process's own commit: memos must not wait for its notification to come back. */
  wrote(scope?: WriteScope): void {
    this.epochs.moved(scope);
  }

  /**
   * Resolves once every write committed before this call has moved the epoch (see above). Every
   * call made in one turn of the event loop shares one round trip: it is sent once the turn's I/O
   * has been read (setImmediate), so a busy instance sends one tiny command per batch of requests,
   * never one per request.
   */
  catchUp(): Promise<void> {
    if (!this.listening) return Promise.resolve();
    if (!this.open) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.open = { promise, release, waits: 0 };
      // While a round trip is out, the next goes when it returns (answered).
      if (!this.out) setImmediate(this.flush);
    }
    this.open.waits += 1;
    return this.open.promise;
  }

  /** Sends the open batch's round trip: an empty query, which the server answers at once. */
  private readonly flush = (): void => {
    const batch = this.open;
    if (!batch || this.out) return;
    this.open = null;
    const client = this.client;
    if (!client || !this.listening) {
      batch.release();
      return;
    }
    const trip: RoundTrip = { batch, sent: performance.now() };
    this.out = trip;
    // A failed round trip means a lost connection, which `lost` reports; its readers go on.
    client.query('').then(
      () => this.answered(trip),
      () => this.answered(trip),
    );
    this.watch(CATCH_UP_TIMEOUT_MS);
  };

  /** The round trip is back: its readers go on, and the batch that gathered meanwhile goes out. */
  private answered(trip: RoundTrip): void {
    if (this.out !== trip) return;
    this.out = null;
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
    this.onRoundTrip?.((performance.now() - trip.sent) / 1000, trip.batch.waits);
    trip.batch.release();
    if (this.open) this.flush();
  }

  /** Drops the connection if the round trip out is not back within `ms`. */
  private watch(ms: number): void {
    this.watchdog = setTimeout(() => {
      this.watchdog = null;
      if (this.out) this.drop?.(new Error(`change feed gave no answer within ${CATCH_UP_TIMEOUT_MS} ms`));
    }, ms).unref();
  }

  /** The round trip out and the batch gathering behind it end unanswered: their readers go on (the memos read through while not coherent). */
  private settleAll(): void {
    const trip = this.out;
    const open = this.open;
    this.out = null;
    this.open = null;
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
    trip?.batch.release();
    open?.release();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    // Reads waiting for a round trip go on (through the memos' read-through) rather than hang.
    this.settleAll();
    const client = this.client;
    const socket = this.socket;
    this.client = null;
    this.socket = null;
    if (client) {
      // A stuck connection would never finish end(): give it a moment, then let the socket go.
      await Promise.race([client.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      socket?.destroy();
    }
  }
}
