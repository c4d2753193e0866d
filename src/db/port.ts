// The narrow database port. PGlite (embedded) and node-postgres both satisfy it, so one set
// of SQL and one test suite serve both engines.

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/**
 * A text parameter of megabytes (a publication's document) for a `text` or `json` placeholder.
 * node-postgres encodes a string parameter to UTF-8 at once, 90-200 ms for the largest menu's
 * document: on PostgreSQL it is encoded a slice per turn and sent as those bytes (a text or json
 * parameter's binary form). On PGlite every text parameter of that size is sent to its thread so
 * (pglite-thread.ts), this one as any other.
 */
export class LargeText {
  constructor(readonly text: string) {}
}

export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

/** A transaction's handle: statements with parameters, and scripts (migrations). */
export interface Transaction extends Queryable {
  exec(sql: string): Promise<void>;
}

/**
 * What a committed write can have changed, so memos of everything else stay valid (EpochMemo).
 * A venue's write changes only rows of that venue (every query filters on venue_id); an
 * `ordersOnly` one only that venue's orders and what belongs to them (lines, order clock,
 * idempotency keys, the audit log, the webhook outbox: events, deliveries, attempts and an
 * endpoint's failing_since), which no venue, menu, merchandising or subscription memo reads. A write
 * without a scope (operator changes, anything across venues) can have changed anything.
 */
export interface WriteScope {
  venueId: string;
  ordersOnly?: boolean;
}

/**
 * Told of a committed write and its scope (none: anything may have changed), this process's or,
 * through the change feed, another's. Called synchronously by the writer: keep it short, never throw.
 */
export type WriteListener = (scope?: WriteScope) => void;

/** What a memoised value was read from: one venue's data, and its orders too when `orders`. */
export interface ReadScope {
  venueId: string;
  orders?: boolean;
}

export interface TransactionOptions {
  /**
   * The venue whose rows the transaction writes, if it writes only one venue's; none: anything.
   * Whether it wrote only that venue's orders is found from its statements (write-scope.ts).
   */
  venueId?: string;
  /**
   * Absolute time (ms since epoch) by which the transaction must finish. Every statement is
   * bounded by the time left; past it the statement fails with DeadlineExceededError and the
   * transaction rolls back.
   */
  deadline?: number;
}

export type Engine = 'pglite' | 'postgres';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  /** Transactions' waits for a connection, summed, and how many there were. */
  checkoutWaitMs: number;
  checkouts: number;
}

export interface Database extends Queryable {
  readonly engine: Engine;
  /**
   * Moves on every committed write that can have changed what `scope` reads (any write, without
   * one), this process's and (while `coherent()`) every other's, so a value read at one epoch
   * stays true until it moves (EpochMemo). PGlite: this process is the only writer. PostgreSQL:
   * writers NOTIFY their scope and a LISTEN connection moves it (change-feed.ts).
   */
  writeEpoch(scope?: ReadScope): number;
  /** True while writeEpoch() moves on every write by anyone; otherwise memos read through. */
  coherent(): boolean;
  /**
   * Subscribes to the moves of writeEpoch() (what they tell, and only while coherent(): a
   * listener that must see every write polls otherwise); returns the unsubscribe.
   */
  onWrite(listener: WriteListener): () => void;
  /**
   * Resolves once every write committed before the call has moved writeEpoch(). A request calls
   * it first, so a write its client saw committed anywhere is never hidden by a memo here.
   * Absent where writes are seen as they happen (PGlite).
   */
  catchUp?: () => Promise<void>;
  /**
   * PostgreSQL with a change feed: told of each catch-up round trip as it ends, with its duration
   * and the strict reads that shared it (how well they batch; GET /metrics).
   */
  onCatchUpRoundTrip?: (listener: (seconds: number, waits: number) => void) => void;
  /** PostgreSQL with a change feed: reports it going down (memos read through) and back up. */
  onFeedChange?: (listener: (listening: boolean, err?: Error) => void) => void;
  transaction<T>(fn: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * One write statement committed on its own (autocommit), for a write whose locks others queue
   * for: one round trip where a transaction takes three, and the locks are held only while the
   * server runs and commits the statement, never across a round trip to this process (a guest
   * order holds its venue's order clock that long). `fn` sends the statement through `db`; the
   * statement must evaluate `notify`, an SQL expression, whenever it writes: on PostgreSQL it is
   * the pg_notify of `scope`, so the notification commits with the write as a transaction's does;
   * on PGlite it is `null`. The epochs of `scope` move afterwards, as after a transaction.
   */
  alone<T>(scope: WriteScope, fn: (db: Queryable, notify: string) => Promise<T>): Promise<T>;
  /**
   * Statements each committed on its own (one round trip, where a transaction takes three) that
   * write only rows no memo, cache or write listener reads (the webhook dispatcher's bookkeeping):
   * they move no epoch and, on PostgreSQL, send no notification, so such a commit neither queues
   * behind others for the notification lock nor makes other instances read again.
   */
  readonly unread: Queryable;
  /** PostgreSQL: the pool's state and how long transactions waited for a connection (GET /metrics). */
  stats?: () => PoolStats;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A statement that cannot change data (a plain select, or maintenance such as vacuum and analyze,
 * which also cannot run inside a transaction); anything else counts as a write.
 */
export function isReadOnly(text: string): boolean {
  return /^\s*(select|vacuum|analyze)\b/i.test(text);
}

/** Observes every statement sent (tests count them; nothing in production listens). */
export type QueryListener = (text: string) => void;

export class DeadlineExceededError extends Error {
  constructor() {
    super('transaction deadline exceeded');
    this.name = 'DeadlineExceededError';
  }
}

/** PostgreSQL's SQLSTATE for statement_timeout / transaction_timeout cancellation. */
export const QUERY_CANCELED = '57014';
export const UNIQUE_VIOLATION = '23505';
export const LOCK_NOT_AVAILABLE = '55P03';

export const FOREIGN_KEY_VIOLATION = '23503';

/** The constraint a violation names (both drivers report it). */
export function violatedConstraint(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'constraint' in err && typeof err.constraint === 'string' ? err.constraint : undefined;
}

export function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * SQLSTATEs of a session the server ended or would not start: admin_shutdown (pg_terminate_backend),
 * crash_shutdown, cannot_connect_now (starting up or shutting down), too_many_connections.
 */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors on the way to the server (node-postgres passes them through with their code). */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's own errors for a connection that dropped or could not be made: they carry no code. */
const DRIVER_CONNECTION_ERRORS =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/**
 * True when a statement failed because the connection to the database was lost or could not be
 * made (class 08 connection_exception among them), not because of the statement: the request
 * may succeed if retried shortly, and a write cut this way may or may not have committed.
 */
export function isConnectionLost(err: unknown): boolean {
  const code = sqlState(err);
  if (code !== undefined) return SESSION_ENDED.has(code) || code.startsWith('08') || SOCKET_ERRORS.has(code);
  // A host with several addresses fails with every attempt's error together.
  if (err instanceof AggregateError) return err.errors.some(isConnectionLost);
  return err instanceof Error && DRIVER_CONNECTION_ERRORS.test(err.message);
}
