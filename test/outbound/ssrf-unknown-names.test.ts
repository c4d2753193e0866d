import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OutboundError, OutboundFetcher } from '../../src/outbound/fetch-bytes.js';
import { outboundFailure, vetHost, type Dialer, type Resolver } from '../../src/outbound/guarded-connector.js';
import { call, createVenue, startApp, syncOk, type TestApp, type VenueFixture } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';

// A name that resolves inside the network and a name that does not resolve at all are refused in
// the same words, with the same code (docs/media.md "Remote URLs and SSRF"): were the answers
// different, a client could ask for image or webhook URLs on guessed names and learn which
// internal names exist. Every name here resolves to loopback or to nothing, and the fetcher's dial
// hook only records: even a broken guard would send nothing off this machine.

const notFound = (hostname: string) => Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
const DNS: Record<string, string[]> = {
  'inside.example': ['127.0.0.1'],
  'inside6.example': ['::1'],
  'empty.example': [],
};
const resolve: Resolver = async (hostname) => {
  if (hostname === 'flaky.example') throw Object.assign(new Error('getaddrinfo EAI_AGAIN flaky.example'), { code: 'EAI_AGAIN' });
  const answer = DNS[hostname];
  if (!answer) throw notFound(hostname);
  return answer.map((address) => ({ address, family: net.isIP(address) }));
};

/** The message with the URL's own host taken out: what is left must not tell the names apart. */
const shape = (message: string, host: string) => message.split(host).join('<host>');

describe('a name that does not resolve is refused as one that resolves inside', () => {
  it('at the decision layer: the same kind and words from the fetcher, and the same lastError words for a webhook', async () => {
    const dialled: string[] = [];
    const dial: Dialer = (options, callback) => {
      dialled.push(String(options.hostname));
      callback(new Error('the test dials nothing'), null);
    };
    const fetcher = new OutboundFetcher({ maxBytes: 1_000_000, deadlineMs: 5_000, maxRedirects: 3 }, { resolve, dial });
    try {
      const seen = new Set<string>();
      for (const host of ['inside.example', 'inside6.example', 'nowhere.example', 'empty.example', 'flaky.example']) {
        const err = await fetcher.fetch(`http://${host}/image.png`).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(err instanceof OutboundError, `${host}: ${String(err)}`);
        seen.add(`${err.kind} ${shape(err.message, host)}`);

        const vetted = await vetHost(host, 443, resolve).then(
          () => null,
          (e: unknown) => e,
        );
        seen.add(`webhook ${shape(outboundFailure(new Error('fetch failed', { cause: vetted })), host)}`);
      }
      assert.deepEqual(
        [...seen],
        [
          'blocked <host> does not resolve to an address that may be reached',
          'webhook <host> does not resolve to an address that may be reached',
        ],
      );
      assert.deepEqual(dialled, []);
    } finally {
      await fetcher.close();
    }
  });

  describe('through the upload route', () => {
    let t: TestApp;
    let v: VenueFixture;
    let port: number;

    before(async () => {
      // Nothing listens on this loopback port: were the guard to let a name through, the connection would be refused here.
      port = await freePort();
      t = await startApp({}, undefined, { resolve });
      v = await createVenue(t.app);
      await syncOk(t.app, v, { products: [{ externalId: 'p1', name: 'Soup', priceMinor: 500 }] });
    });
    after(() => t.close());

    it('answers the same status, code and message for an internal name and for a name that does not exist', async () => {
      const answers = new Set<string>();
      for (const host of ['inside.example', 'nowhere.example']) {
        const res = await call(t.app, 'POST', '/v1/products/p1/image', { key: v.key, body: { url: `http://${host}:${port}/image.png` } });
        answers.add(JSON.stringify([res.status, res.body.code, shape(res.body.message, host)]));
      }
      assert.deepEqual(
        [...answers],
        [
          JSON.stringify([
            400,
            'BLOCKED_SOURCE_URL',
            'The source URL is not allowed: <host> does not resolve to an address that may be reached',
          ]),
        ],
      );
    });
  });
});
