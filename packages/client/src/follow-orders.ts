import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Client } from 'openapi-fetch';
import { CartaError } from './errors.js';
import { pause } from './pause.js';
import { backoffDelay, networkErrorCode, type RetryPolicy } from './retry.js';
import type { paths } from './schema.js';
import type { Order } from './types.js';

export type OrderEventType = 'order.created' | 'order.updated';

export interface FollowOrdersOptions {
  /** Start with the orders changed at or after this time (ISO 8601 with a timezone); default: from now on. */
  since?: string;
  /** Resume right after this event (an `id` delivered before, e.g. kept across restarts); wins over `since`. */
  lastEventId?: string;
  /** Called for each change in commit order, and awaited: the stream is read no faster than this returns. */
  onOrder: (order: Order, event: { id: string; type: OrderEventType }) => void | Promise<void>;
  /** Ends the stream: followOrders then resolves. */
  signal?: AbortSignal;
  /** Told before each reconnect: why (the server ended the stream, or an error), and after how long. */
  onReconnect?: (info: { attempt: number; delayMs: number; error?: unknown }) => void;
  /** Nothing at all (not even a heartbeat, every 15 s) for this long means the connection is dead: reconnect. Default 45 000 ms. */
  idleTimeoutMs?: number;
}

/**
 * How long to wait before connecting again after `err`, or null when waiting mends nothing: a
 * refusal that does (429, 503, after Retry-After when given), the network (statusCode 0 once the
 * fetch's own retries are spent, or a connection that broke mid-stream), or silence.
 */
function retryDelay(err: unknown, policy: RetryPolicy, attempt: number): number | null {
  if (err instanceof CartaError) {
    if (err.statusCode !== 0 && err.statusCode !== 429 && err.statusCode !== 503) return null;
    return err.retryAfter !== undefined ? err.retryAfter * 1000 : backoffDelay(policy, attempt);
  }
  return networkErrorCode(err) !== null || err instanceof StreamIdle ? backoffDelay(policy, attempt) : null;
}

class StreamIdle extends Error {}

/**
 * GET /v1/orders/stream, followed for as long as `signal` allows: each change is delivered once, in
 * commit order, across reconnects. The event id is the server's cursor: after a dropped connection,
 * a server shutting down or a restart of the caller (given `lastEventId`), the stream resumes right
 * after the last event delivered, so nothing is missed or repeated. A refusal that waiting mends
 * (429 STREAM_LIMIT_REACHED, 503) and network errors are retried with backoff; any other refusal
 * (401, 403 PAID_PLAN_REQUIRED, 400) rejects.
 */
export async function followOrders(api: Client<paths>, policy: RetryPolicy, options: FollowOrdersOptions): Promise<void> {
  const { signal, onOrder } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let lastEventId = options.lastEventId;
  let retryMs = 2000;
  let failures = 0;

  while (!signal?.aborted) {
    let error: unknown;
    try {
      // A normal end: the server ended the stream (shutdown, or this reader fell behind); back after its retry hint.
      await readStream();
    } catch (err) {
      if (signal?.aborted) return;
      error = err;
      failures += 1;
    }
    const delayMs = error === undefined ? retryMs : retryDelay(error, policy, failures);
    if (delayMs === null) throw error;
    options.onReconnect?.({ attempt: failures, delayMs, ...(error === undefined ? {} : { error }) });
    await pause(delayMs, signal);
  }

  async function readStream(): Promise<void> {
    // One controller per connection: the caller's signal, or silence past idleTimeoutMs, ends it.
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new StreamIdle(`no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    try {
      heard();
      const { response, error } = await api.GET('/v1/orders/stream', {
        params: {
          query: lastEventId === undefined && options.since !== undefined ? { updatedSince: options.since } : {},
          header: lastEventId === undefined ? {} : { 'last-event-id': lastEventId },
        },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal: connection.signal,
      });
      if (!response.ok || !response.body) throw CartaError.fromResponse(response, error);
      failures = 0;
      const pending: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (event) => pending.push(event),
        onRetry: (ms) => (retryMs = ms),
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        heard();
        parser.feed(value);
        // Each change in turn, and the cursor moves only once it was handled.
        while (pending.length > 0) {
          const event = pending.shift()!;
          if (event.event !== 'order.created' && event.event !== 'order.updated') continue;
          await onOrder(JSON.parse(event.data) as Order, { id: event.id ?? '', type: event.event });
          if (event.id !== undefined) lastEventId = event.id;
        }
      }
    } catch (err) {
      // An abort for silence reads as the idle error; the caller's own abort as itself.
      if (connection.signal.reason instanceof StreamIdle) throw connection.signal.reason;
      throw err;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', stop);
    }
  }
}
