import http from 'node:http';

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A Server-Sent Events client on a real connection (loopback): collects events and comment lines
 * as they arrive, so a test can wait for what it expects and then leave, as a kitchen screen would.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  /** Comment lines (heartbeats) received. */
  comments = 0;
  retry: number | null = null;
  ended = false;
  private buffer = '';
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
        response.on('data', (chunk: string) => client.receive(chunk));
        response.on('close', () => {
          client.ended = true;
          client.notify();
        });
        resolve(client);
      });
      request.on('error', reject);
    });
  }

  /** Parses what arrived: blocks end with a blank line; `:` starts a comment. */
  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = { data: '' };
      let hasData = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments += 1;
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'retry') this.retry = Number(value);
        else if (field === 'data') {
          event.data += (hasData ? '\n' : '') + value;
          hasData = true;
        }
      }
      if (hasData) this.events.push(event);
    }
    this.notify();
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
