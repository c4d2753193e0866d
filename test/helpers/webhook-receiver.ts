import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sleep } from './net.js';

// A webhook receiver for tests (issue 16): a real HTTP server on loopback that verifies every
// signature with the standardwebhooks package, as an integrator's would.

export interface Received {
  id: string;
  type: string;
  body: any;
  signatures: string[];
}

/** A receiver that answers what `script` says for each request (200 once the script runs out). */
export class Receiver {
  readonly server: http.Server;
  readonly accepted: Received[] = [];
  readonly requests: { id: string; status: number }[] = [];
  script: (number | 'hang')[] = [];
  secrets: string[] = [];
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
        const step = this.script.shift() ?? 200;
        this.requests.push({ id: headers['webhook-id'], status: step === 'hang' ? 0 : step });
        if (step === 'hang') return; // never answers: the sender's timeout ends the attempt
        if (step >= 200 && step < 300) {
          // Verified with the library receivers use; any secret of the endpoint may sign.
          const verified = this.secrets.some((secret) => {
            try {
              new Webhook(secret).verify(body, headers);
              return true;
            } catch {
              return false;
            }
          });
          if (!verified) {
            res.writeHead(400).end('bad signature');
            return;
          }
          const parsed = JSON.parse(body);
          this.accepted.push({ id: headers['webhook-id'], type: parsed.type, body: parsed, signatures: headers['webhook-signature'].split(' ') });
        }
        res.writeHead(step).end();
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Each event once, by webhook-id, in the order first accepted. */
  unique(): Received[] {
    const seen = new Set<string>();
    return this.accepted.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

