import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { App } from '../../src/http/types.js';
import { call, createVenue, type VenueFixture } from './app.js';
import { expectStatus, setUpOrderMenu, type MenuIds } from './orders.js';

// A webhook receiver for tests: a real HTTP server on loopback that verifies every
// signature with the standardwebhooks package, as an integrator's would.

export interface Received {
  id: string;
  type: string;
  body: any;
  signatures: string[];
  /** The request as it came, for checking it again with another secret. */
  raw: { body: string; headers: Record<string, string> };
}

/**
 * One request's fate: a status answered at once; 'hang', no answer ever; or `late`, the event
 * handled (and accepted, when 2xx and verified) but its answer sent only after `late` ms.
 */
export type ReceiverStep = number | 'hang' | { status: number; late: number };

/** A receiver that answers what `script` says for each request (200 once the script runs out). */
export class Receiver {
  readonly server: http.Server;
  readonly accepted: Received[] = [];
  readonly requests: { id: string; status: number }[] = [];
  script: ReceiverStep[] = [];
  secrets: string[] = [];
  port = 0;

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        };
        const step = this.script.shift() ?? 200;
        const status = step === 'hang' ? 0 : typeof step === 'number' ? step : step.status;
        this.requests.push({ id: headers['webhook-id'], status });
        if (step === 'hang') return; // never answers: the sender's timeout ends the attempt
        if (status >= 200 && status < 300) {
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
          this.accepted.push({
            id: headers['webhook-id'],
            type: parsed.type,
            body: parsed,
            signatures: headers['webhook-signature'].split(' '),
            raw: { body, headers },
          });
        }
        if (typeof step === 'number') res.writeHead(status).end();
        // A receiver that did the work but answers after the sender gave up: the event comes again.
        else setTimeout(() => res.writeHead(status).end(), step.late).unref();
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

/**
 * A pro venue with the order menu published and one endpoint for `events` on this (listening)
 * receiver, which then verifies with the endpoint's secret.
 */
export async function venueWithEndpoint(
  app: App,
  receiver: Receiver,
  events: string[],
): Promise<{ v: VenueFixture; ids: MenuIds; endpointId: string }> {
  const v = await createVenue(app, { plan: 'pro' });
  const ids = await setUpOrderMenu(app, v);
  const created = await call(app, 'POST', '/v1/webhooks', { key: v.key, body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events } });
  expectStatus(created, 201);
  receiver.secrets = [created.body.secret];
  return { v, ids, endpointId: created.body.id };
}
