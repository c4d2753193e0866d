import { parseRetryAfter } from './retry-after.js';
import type { ErrorEnvelope } from './types.js';

export interface CartaErrorInit {
  statusCode: number;
  message: string;
  code?: string;
  errors?: string[];
  details?: Record<string, unknown>;
  requestId?: string;
  path?: string;
  timestamp?: string;
  /** Seconds the server asked to wait (Retry-After) on the response that failed. */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * A request that failed: the server's error envelope as fields, so callers branch on
 * `code`, never on `message`. A network failure that outlasted the retries has statusCode 0 and
 * code NETWORK_ERROR, with the underlying error as `cause`.
 */
export class CartaError extends Error {
  override readonly name: string = 'CartaError';
  readonly statusCode: number;
  readonly code?: string;
  readonly errors?: string[];
  readonly details?: Record<string, unknown>;
  readonly requestId?: string;
  readonly path?: string;
  readonly timestamp?: string;
  readonly retryAfter?: number;

  constructor(init: CartaErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.statusCode = init.statusCode;
    if (init.code !== undefined) this.code = init.code;
    if (init.errors !== undefined) this.errors = init.errors;
    if (init.details !== undefined) this.details = init.details;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.path !== undefined) this.path = init.path;
    if (init.timestamp !== undefined) this.timestamp = init.timestamp;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
  }

  /** From a failed response and its body (parsed JSON, text, or nothing). */
  static fromResponse(response: Response, body: unknown): CartaError {
    const envelope = isEnvelope(body) ? body : null;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return new CartaError({
      statusCode: response.status,
      message:
        envelope?.message ??
        (typeof body === 'string' && body !== '' ? body.slice(0, 500) : `HTTP ${response.status} ${response.statusText}`.trim()),
      code: envelope?.code,
      errors: envelope?.errors,
      details: envelope?.details,
      requestId: envelope?.requestId ?? response.headers.get('x-request-id') ?? undefined,
      path: envelope?.path,
      timestamp: envelope?.timestamp,
      retryAfter: retryAfterMs === null ? undefined : retryAfterMs / 1000,
    });
  }

  static network(url: string, cause: unknown): CartaError {
    const reason = cause instanceof Error ? describeNetworkError(cause) : String(cause);
    return new CartaError({ statusCode: 0, code: 'NETWORK_ERROR', message: `Could not reach ${url}: ${reason}`, cause });
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string';
}

function describeNetworkError(err: Error): string {
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return `${err.message} (${cause.code})`;
  return err.message;
}
