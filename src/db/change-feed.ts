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
 * reply. Requests that arrive in one turn of the event loop share a round trip, so a busy instance
 * sends one tiny command per batch of requests instead of its queries per request. A batch's round
 * trip goes out at once, even while earlier ones are out: PostgreSQL answers them in order, and a
 * batch that waited for the one ahead of it would wait one and a half round trips on average
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

/** The protocol connection under a pg client: pg has no public API for what the feed needs of it. */
interface ProtocolConnection {
  stream?: { destroy(): void };
  sync(): void;
  on(event: 'readyForQuery', listener: () => void): void;
}
const protocolOf = (client: pg.Client) => (client as unknown as { connection: ProtocolConnection }).connection;

/** A connection that stopped answering is dropped by closing its socket directly. */
function destroySocket(client: pg.Client): void {
  protocolOf(client)?.stream?.destroy();
}

/** Callers that share one round trip. */
interface Batch {
  promise: Promise<void>;
  release: () => void;
  waits: number;
}

interface RoundTrip {
  batch: Batch;
  /** performance.now() when its Sync was sent. */
  sent: number;
}

/** How the feed's connection shows in pg_stat_activity. */
export const CHANGE_FEED_APPLICATION = 'carta-change-feed';

export class ChangeFeed {
  private client: pg.Client | null = null;
  private listening = false;
  private readonly epochs = new WriteEpochs();
  /** Callers waiting for the next round trip, which is sent at the end of this turn. */
  private open: Batch | null = null;
  /** The round trips out, oldest first: each ReadyForQuery answers the oldest. */
  private outstanding: RoundTrip[] = [];
  /** Drops a connection whose oldest round trip is out longer than CATCH_UP_TIMEOUT_MS. */
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
    const client = new pg.Client({
      ...this.clientConfig,
      application_name: CHANGE_FEED_APPLICATION,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: 10_000,
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
      destroySocket(client);
      this.scheduleRetry();
    };
    this.drop = lost;
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      this.epochs.moved(decodeScope(message.payload));
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`listen ${pg.escapeIdentifier(this.channel)}`);
      if (this.client !== client || this.closed) return;
      // From here on the connection runs no query: every ReadyForQuery answers a catch-up's Sync.
      protocolOf(client).on('readyForQuery', () => {
        if (this.client === client) this.answer();
      });
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
      setImmediate(this.flush);
    }
    this.open.waits += 1;
    return this.open.promise;
  }

  /**
   * Sends the open batch's round trip: a protocol Sync, which the server answers with
   * ReadyForQuery once it has sent every notification pending for this connection, as it does
   * after a query, without parsing or running anything (the lightest command there is).
   */
  private readonly flush = (): void => {
    const batch = this.open;
    if (!batch) return;
    this.open = null;
    const client = this.client;
    if (!client || !this.listening) {
      batch.release();
      return;
    }
    this.outstanding.push({ batch, sent: performance.now() });
    protocolOf(client).sync();
    if (!this.watchdog) this.watch(CATCH_UP_TIMEOUT_MS);
  };

  /** A ReadyForQuery: the oldest round trip out is answered. */
  private answer(): void {
    const trip = this.outstanding.shift();
    if (!trip) return;
    this.onRoundTrip?.((performance.now() - trip.sent) / 1000, trip.batch.waits);
    trip.batch.release();
  }

  /** Checks the oldest round trip out in `ms`: one timer for all of them, not one per round trip. */
  private watch(ms: number): void {
    this.watchdog = setTimeout(() => {
      this.watchdog = null;
      const oldest = this.outstanding[0];
      if (!oldest) return;
      const waited = performance.now() - oldest.sent;
      if (waited < CATCH_UP_TIMEOUT_MS) this.watch(CATCH_UP_TIMEOUT_MS - waited);
      else this.drop?.(new Error(`change feed gave no answer within ${CATCH_UP_TIMEOUT_MS} ms`));
    }, ms).unref();
  }

  /** Every round trip out ends unanswered: its readers go on (the memos read through while not coherent). */
  private settleAll(): void {
    const trips = this.outstanding;
    this.outstanding = [];
    if (this.watchdog) clearTimeout(this.watchdog);
    this.watchdog = null;
    for (const trip of trips) trip.batch.release();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    if (this.retry) clearTimeout(this.retry);
    // Reads waiting for a round trip go on (through the memos' read-through) rather than hang.
    this.settleAll();
    this.open?.release();
    this.open = null;
    const client = this.client;
    this.client = null;
    if (client) {
      // A stuck connection would never finish end(): give it a moment, then let the socket go.
      await Promise.race([client.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      destroySocket(client);
    }
  }
}
