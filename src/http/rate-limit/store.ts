/** One bucket to check: a key, and at most `limit` requests in the trailing `windowMs`. */
export interface BucketCheck {
  name: string;
  key: string;
  limit: number;
  windowMs: number;
}

export interface BucketState {
  name: string;
  limit: number;
  /** Requests left in the window after this one (0 when rejected). */
  remaining: number;
  /** Milliseconds until the oldest counted request leaves the window (a slot frees). */
  resetMs: number;
}

export interface ConsumeResult {
  allowed: boolean;
  /** The bucket that refused the request, when one did. */
  rejected: BucketState | null;
  buckets: BucketState[];
  /** Identifies this request's entries so they can be refunded. */
  token: string;
}

/**
 * A rolling-window (sliding log) store. consume() is atomic over all the buckets it is given:
 * either every bucket counts the request or, when one is full, none does.
 */
export interface RateStore {
  consume(checks: BucketCheck[], now: number, token: string): Promise<ConsumeResult>;
  refund(checks: BucketCheck[], token: string): Promise<void>;
  close(): Promise<void>;
}
