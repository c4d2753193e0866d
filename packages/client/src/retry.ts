import { CartaError } from './errors.js';
import { parseRetryAfter } from './retry-after.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 4). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff step when the server gives no Retry-After (default 1000 ms, doubling). */
  baseDelayMs?: number;
  /** Cap of one backoff step (default 30 000 ms). */
  maxDelayMs?: number;
  /**
   * A Retry-After longer than this is not waited for: the response is returned as it is (a
   * CartaError with `retryAfter` from the helpers). Default 120 000 ms, above the 60 s windows.
   */
  maxRetryAfterMs?: number;
  /** Called before each wait, e.g. to tell a user why a command pauses. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The HTTP status that was retried, or 0 for a network error. */
  statusCode: number;
  /** RATE_LIMITED, MEDIA_BUSY, ... or the network error's code. */
  code?: string;
}

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  onRetry?: (event: RetryEvent) => void;
  random: () => number;
}

export function retryPolicy(options: RetryOptions, random: () => number = Math.random): RetryPolicy {
  return {
    maxRetries: Math.max(0, Math.floor(options.maxRetries ?? 4)),
    baseDelayMs: options.baseDelayMs ?? 1000,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 120_000,
    onRetry: options.onRetry,
    random,
  };
}

/** Reads, repeated as they are; every write is repeated only under an Idempotency-Key. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Error codes of a connection that failed or broke, as Node, undici and common fetch shims name them. */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export function networkErrorCode(err: unknown): string | null {
  const own = (err as { code?: unknown } | null)?.code;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  for (const code of [own, cause]) if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  // fetch reports every network failure as a TypeError (WHATWG fetch, "network error").
  if (err instanceof TypeError) return typeof cause === 'string' ? cause : 'FETCH_FAILED';
  return null;
}

/** Full jitter (a uniform delay below the exponential step): retrying clients spread out. */
export function backoffDelay(policy: RetryPolicy, retry: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(policy.random() * step);
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why a response is worth repeating, or null. 429 and 503 carry Retry-After. */
async function retryableCode(response: Response): Promise<string | undefined | null> {
  if (response.status !== 429 && response.status !== 503 && response.status !== 409) return null;
  let code: string | undefined;
  try {
    const body: unknown = await response.clone().json();
    if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string')
      code = (body as { code: string }).code;
  } catch {
    // not the JSON envelope (a proxy's page): the status decides
  }
  // 409 only while the first request under the same Idempotency-Key still runs: its answer comes.
  if (response.status === 409) return code === 'IDEMPOTENCY_KEY_IN_PROGRESS' ? code : null;
  return code;
}

/**
 * A fetch that repeats a request on 429, 503 and network errors: Retry-After when the server
 * sends one, else exponential backoff with full jitter. Reads are repeated as they are; a write
 * only when it carries an Idempotency-Key (the server then runs it once and replays its answer),
 * so a POST whose response was lost is never executed twice.
 */
export function retryingFetch(baseFetch: typeof fetch, policy: RetryPolicy): (request: Request) => Promise<Response> {
  return async function fetchWithRetries(request: Request): Promise<Response> {
    const repeatable = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let retry = 0; ; retry += 1) {
      const mayRetry = repeatable && retry < policy.maxRetries;
      let response: Response;
      try {
        // A clone per attempt keeps the original body readable for the next one.
        response = await baseFetch(mayRetry ? request.clone() : request);
      } catch (err) {
        const code = networkErrorCode(err);
        if (request.signal?.aborted || code === null) throw err;
        if (!mayRetry) throw CartaError.network(request.url, err);
        const delayMs = backoffDelay(policy, retry + 1);
        policy.onRetry?.({ method: request.method, url: request.url, retry: retry + 1, delayMs, statusCode: 0, code });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (!mayRetry) return response;
      const code = await retryableCode(response);
      if (code === null) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (retryAfter !== null && retryAfter > policy.maxRetryAfterMs) return response;
      // The server's delay is a floor; a little jitter keeps waiting clients apart.
      const delayMs = retryAfter === null ? backoffDelay(policy, retry + 1) : retryAfter + Math.floor(policy.random() * 250);
      await response.body?.cancel().catch(() => undefined);
      policy.onRetry?.({ method: request.method, url: request.url, retry: retry + 1, delayMs, statusCode: response.status, code });
      await sleep(delayMs, request.signal);
    }
  };
}

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}
