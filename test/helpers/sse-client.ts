import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * A Server-Sent Events client on a real connection (loopback): collects events and comment lines
 * as they arrive, so a test can wait for what it expects and then leave, as a kitchen screen would.
 */
export class SseClient {
  readonly events: EventSourceMessage[] = [];
  /** Comment lines (heartbeats) received. */
  comments = 0;
  retry: number | null = null;
  ended = false;
  private readonly parser = createParser({
    onEvent: (event) => this.events.push(event),
    onComment: () => (this.comments += 1),
    onRetry: (ms) => (this.retry = ms),
  });
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly response: http.IncomingMessage,
    /** The body of a refusal (JSON), read in full. */
    readonly body: string,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers, agent: false }, (response) => {
        if (response.statusCode !== 200) {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(new SseClient(response.statusCode ?? 0, response.headers, response, body)));
          return;
        }
        const client = new SseClient(200, response.headers, response, '');
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          client.parser.feed(chunk);
          client.notify();
        });
        response.on('close', () => {
          client.ended = true;
          client.notify();
        });
        resolve(client);
      });
      request.on('error', reject);
    });
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** The events' data, parsed. */
  orders(): any[] {
    return this.events.map((e) => JSON.parse(e.data));
  }

  /** Resolves once `ready()` holds (checked on each arrival), or rejects after `timeoutMs`. */
  until(what: string, ready: () => boolean, timeoutMs = 5000): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what} (${this.events.length} events, ${this.comments} comments, ended ${this.ended})`));
      }, timeoutMs);
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(): void {
    this.response.destroy();
  }
}
