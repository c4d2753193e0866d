import { createHmac } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { openGuardedAgent, outboundFailure, type GuardOptions } from '../../outbound/guarded-connector.js';
import type { AttemptOutcome } from './deliveries.repository.js';

/** A 2xx within this long is a delivery; anything else, or nothing, an attempt to retry. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What is kept of a response: its status. The body is read up to this much, then dropped. */
const RESPONSE_BYTES_READ = 16 * 1024;

export interface OutgoingWebhook {
  url: string;
  /** The event id: the webhook-id header, the same on every attempt (receivers deduplicate by it). */
  messageId: string;
  payload: string;
  /** Every secret that signs now: the current one, and a replaced one during its 24 hours. */
  secrets: string[];
}

/** A Standard Webhooks secret: this prefix, then the key in base64 (made in webhooks.service.ts). */
export const SECRET_PREFIX = 'whsec_';

/**
 * One `v1` signature: the base64 HMAC-SHA256, under the secret's key, of `<id>.<seconds>.<payload>`.
 * Node's crypto rather than the standardwebhooks package's sign(), which hashes in JavaScript and
 * costs several times the CPU on every delivery. The tests' receiver
 * verifies every signature with that package, and a unit test compares the two
 * (test/webhooks/webhook-signature.test.ts).
 */
function sign(secret: string, messageId: string, seconds: number, payload: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${seconds}.${payload}`).digest('base64')}`;
}

/**
 * Standard Webhooks headers: webhook-id, webhook-timestamp (seconds) and webhook-signature, one
 * `v1,<base64 HMAC-SHA256>` per secret separated by spaces, as the specification allows during a
 * rotation (a receiver that knows either secret verifies).
 */
export function signatureHeaders(message: Pick<OutgoingWebhook, 'messageId' | 'payload' | 'secrets'>, at: Date): Record<string, string> {
  const seconds = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': message.messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': message.secrets.map((secret) => sign(secret, message.messageId, seconds, message.payload)).join(' '),
  };
}

/**
 * Sends webhooks through the SSRF guard: every connection's address is vetted when it is made
 * (so a name that later resolves to a private address is refused then), and no redirect is
 * followed (a 3xx is a failed attempt).
 */
export class WebhookSender {
  private agent: ReturnType<typeof openGuardedAgent> | null = null;
  private readonly timeoutMs: number;

  /** `timeoutMs`: how long a receiver has to answer (DELIVERY_TIMEOUT_MS; tests shorten it to see a hang end). */
  constructor(
    private readonly guard: GuardOptions = {},
    options: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  private open() {
    this.agent ??= openGuardedAgent(
      { purpose: 'webhook', ...this.guard, connectTimeoutMs: this.timeoutMs },
      { timeoutMs: this.timeoutMs, connections: 8 },
    );
    return this.agent;
  }

  async send(message: OutgoingWebhook): Promise<AttemptOutcome> {
    const { timeoutMs } = this;
    const startedAt = new Date();
    const started = performance.now();
    const outcome = (statusCode: number | null, error: string | null): AttemptOutcome => ({
      startedAt,
      durationMs: performance.now() - started,
      statusCode,
      error,
    });
    try {
      const { undici, agent } = await this.open();
      const response: Dispatcher.ResponseData = await undici.request(message.url, {
        dispatcher: agent,
        method: 'POST',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Carta webhooks',
          ...signatureHeaders(message, startedAt),
        },
        body: message.payload,
      });
      let read = 0;
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length;
        if (read >= RESPONSE_BYTES_READ) {
          response.body.destroy();
          break;
        }
      }
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return outcome(response.statusCode, ok ? null : `answered ${response.statusCode}`);
    } catch (err) {
      // Kept as the delivery's lastError, which the venue reads: never the address a name resolved
      // to (outboundFailure); the guard logs a refusal's address and reason for operators.
      const name = err instanceof Error ? err.name : '';
      const error =
        name === 'TimeoutError' || name === 'AbortError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : outboundFailure(err);
      return outcome(null, error.slice(0, 500));
    }
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).agent.close();
  }
}
