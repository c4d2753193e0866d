import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AppError } from '../../src/errors.js';
import { endpointUrl } from '../../src/modules/webhooks/endpoint-url.js';
import { classifyAddress } from '../../src/outbound/address-policy.js';
import { OutboundError, OutboundFetcher } from '../../src/outbound/fetch-bytes.js';
import {
  BlockedAddressError,
  outboundFailure,
  vetHost,
  type AllowedEndpoint,
  type Dialer,
  type Resolver,
} from '../../src/outbound/guarded-connector.js';

// The SSRF guard at its decision layer: the address classifier, the host vet
// with an injected DNS, and the fetcher with a dial hook that records the address it was handed.
// None of these vectors opens a connection anywhere: blocked addresses are never dialled, and the
// one "public" address the hook accepts is answered by a test server on loopback. The end-to-end
// vectors, which land on loopback if the guard fails, are in test/media/media-fetch.test.ts.
// docs/media.md lists every vector here with its result; the last test keeps the two in step.

/** [address, allowed] as a socket would be handed it after resolution. */
const ADDRESS_VECTORS: readonly [string, boolean][] = [
  ['127.0.0.1', false],
  ['127.255.255.254', false],
  ['10.0.0.1', false],
  ['172.16.0.1', false],
  ['172.31.255.255', false],
  ['192.168.1.1', false],
  ['100.64.0.1', false],
  ['100.100.100.200', false],
  ['169.254.169.254', false],
  ['169.254.0.23', false],
  ['224.0.0.1', false],
  ['239.255.255.250', false],
  ['240.0.0.1', false],
  ['255.255.255.255', false],
  ['0.0.0.0', false],
  ['0.1.2.3', false],
  ['192.0.0.192', false],
  ['192.0.2.1', false],
  ['198.18.0.1', false],
  ['168.63.129.16', false],
  ['::1', false],
  ['::', false],
  ['fe80::1', false],
  ['fc00::1', false],
  ['fd00:ec2::254', false],
  ['ff02::1', false],
  ['ff05::1:3', false],
  ['::ffff:127.0.0.1', false],
  ['::ffff:10.0.0.1', false],
  ['::ffff:169.254.169.254', false],
  ['::7f00:1', false],
  ['64:ff9b::7f00:1', false],
  ['64:ff9b::a9fe:a9fe', false],
  ['64:ff9b:1::a00:1', false],
  ['2002:7f00:1::1', false],
  ['2002:a9fe:a9fe::1', false],
  ['2002:c0a8:101::1', false],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
  ['2001:db8::1', false],
  ['100::1', false],
  ['fe80::1%eth0', false],
  ['8.8.8.8', true],
  ['93.184.216.34', true],
  ['1.1.1.1', true],
  ['2606:4700:4700::1111', true],
  ['::ffff:8.8.8.8', true],
  ['64:ff9b::808:808', true],
  ['2002:808:808::1', true],
];

/** The test DNS: what each name resolves to. Anything else fails like an unknown name. */
const DNS: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'second.example': ['1.1.1.1'],
  'internal.example': ['10.0.0.5'],
  'metadata.google.internal': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '10.0.0.5'],
  'mixed6.example': ['2606:4700::1', 'fd00::1'],
  'loopback6.example': ['::1'],
  'mapped.example': ['::ffff:192.168.0.1'],
};

const resolver: Resolver = async (hostname) => {
  const answer = DNS[hostname.toLowerCase()];
  if (!answer) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer.map((address) => ({ address, family: net.isIP(address) }));
};

/** [name, verdict] for vetHost: the first address to dial, or 'blocked' / 'unresolvable'. */
const NAME_VECTORS: readonly [string, string][] = [
  ['public.example', '93.184.216.34'],
  ['internal.example', 'blocked'],
  ['metadata.google.internal', 'blocked'],
  ['mixed.example', 'blocked'],
  ['mixed6.example', 'blocked'],
  ['loopback6.example', 'blocked'],
  ['mapped.example', 'blocked'],
  ['[::ffff:a9fe:a9fe]', 'blocked'],
  ['[fd00:ec2::254]', 'blocked'],
  ['localhost', 'blocked'],
  ['localhost.', 'blocked'],
  ['LocalHost.', 'blocked'],
  ['api.localhost', 'blocked'],
  ['A.B.LOCALHOST.', 'blocked'],
  ['nowhere.example', 'unresolvable'],
  ['localhost.example', 'unresolvable'],
];

describe('the address classifier', () => {
  for (const [address, allowed] of ADDRESS_VECTORS) {
    it(`${allowed ? 'allows' : 'blocks'} ${address}`, () => {
      const verdict = classifyAddress(address);
      assert.equal(verdict.allowed, allowed, JSON.stringify(verdict));
      if (!verdict.allowed) assert.ok(verdict.reason.length > 0);
    });
  }

  it('judges a name, or a short or numeric IPv4 form, as no address at all', () => {
    for (const text of ['localhost', 'example.com', '127.1', '2130706433', '0x7f000001', '']) {
      assert.equal(classifyAddress(text).allowed, false, text);
    }
  });
});

describe('the host vet (every address of the answer must pass)', () => {
  for (const [name, expected] of NAME_VECTORS) {
    it(`${name} -> ${expected}`, async () => {
      try {
        const address = await vetHost(name, 80, resolver);
        assert.equal(address, expected);
      } catch (err) {
        assert.equal(
          (err as Error).name === 'BlockedAddressError'
            ? 'blocked'
            : (err as Error).name === 'UnresolvableHostError'
              ? 'unresolvable'
              : String(err),
          expected,
        );
      }
    });
  }

  it('decides a localhost name is loopback without asking the resolver (RFC 6761)', async () => {
    const asked: string[] = [];
    const recording: Resolver = async (hostname) => {
      asked.push(hostname);
      return resolver(hostname);
    };
    for (const name of ['localhost', 'localhost.', 'LOCALHOST', 'LocalHost.', 'api.localhost', 'x.y.localhost.', 'API.LOCALHOST.']) {
      const err = await vetHost(name, 443, recording).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof BlockedAddressError, `${name}: ${String(err)}`);
      assert.equal(err.literal, true, `${name}: judged by its text`);
      assert.match(err.message, /localhost name/);
    }
    assert.deepEqual(asked, []);
    // Names that only contain the word are ordinary names: DNS answers for them.
    for (const name of ['localhost.example', 'notlocalhost', 'localhostx.', 'localhost..']) {
      await assert.rejects(vetHost(name, 443, recording), { name: 'UnresolvableHostError' });
    }
    assert.deepEqual(asked, ['localhost.example', 'notlocalhost', 'localhostx.', 'localhost..']);
  });

  it('lets a test allowlist naming localhost pass a localhost name, as 127.0.0.1, without asking the resolver', async () => {
    const refuse: Resolver = async (hostname) => assert.fail(`asked the resolver about ${hostname}`);
    assert.equal(await vetHost('localhost.', 8080, refuse, [{ host: 'localhost', port: 8080 }]), '127.0.0.1');
    assert.equal(await vetHost('LOCALHOST', 8080, refuse, [{ host: '127.0.0.1', port: 8080 }]), '127.0.0.1');
    await assert.rejects(vetHost('localhost.', 8081, refuse, [{ host: 'localhost', port: 8080 }]), { name: 'BlockedAddressError' });
  });

  it('lets a test allowlist pass only the loopback endpoint it names', async () => {
    const allow = [{ host: '127.0.0.1', port: 8080 }];
    assert.equal(await vetHost('127.0.0.1', 8080, resolver, allow), '127.0.0.1');
    await assert.rejects(vetHost('127.0.0.1', 8081, resolver, allow), { name: 'BlockedAddressError' });
    await assert.rejects(vetHost('[::1]', 8080, resolver, allow), { name: 'BlockedAddressError' });
    await assert.rejects(vetHost('internal.example', 8080, resolver, [{ host: '10.0.0.5', port: 8080 }]), { name: 'BlockedAddressError' });
  });
});

describe('the fetcher: each hop vetted before it is dialled', () => {
  let upstream: http.Server;
  let upstreamPort: number;
  /** Every address the guard handed to the dialler, in order. */
  let dialled: string[] = [];
  /** Where the "public" hosts redirect to, by path. */
  const redirects: Record<string, string> = {
    '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
    '/to-metadata-name': 'http://metadata.google.internal/computeMetadata/v1/',
    '/to-mapped-metadata': 'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
    '/to-internal': 'http://internal.example/admin',
    '/to-nat64': 'http://[64:ff9b::a9fe:a9fe]/',
    '/to-ftp': 'ftp://public.example/image.png',
    '/hop1': '/hop2',
    '/hop2': '/hop3',
    '/hop3': '/image',
    '/loop': '/loop',
  };

  before(async () => {
    upstream = http.createServer((req, res) => {
      const target = redirects[req.url ?? ''];
      if (target) {
        res.writeHead(302, { location: target });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(100, 7));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamPort = (upstream.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  /** Records the address; a public test address is answered by the loopback upstream, nothing else is dialled. */
  const dial: Dialer = (opts, callback) => {
    dialled.push(opts.hostname);
    if (!['93.184.216.34', '1.1.1.1'].includes(opts.hostname)) {
      callback(new Error(`the test dialler refuses ${opts.hostname}`), null);
      return;
    }
    const socket = net.connect({ host: '127.0.0.1', port: upstreamPort });
    socket.once('connect', () => callback(null, socket));
    socket.once('error', (err) => callback(err, null));
  };

  const fetcher = () => new OutboundFetcher({ maxBytes: 1_000_000, deadlineMs: 5_000, maxRedirects: 3 }, { resolve: resolver, dial });

  async function outcome(url: string): Promise<string> {
    dialled = [];
    const f = fetcher();
    try {
      const { bytes } = await f.fetch(url);
      return `ok ${bytes.length}`;
    } catch (err) {
      return err instanceof OutboundError ? err.kind : `unexpected ${String(err)}`;
    } finally {
      await f.close();
    }
  }

  it('fetches from a public address, dialling the vetted IP', async () => {
    assert.equal(await outcome('http://public.example/image'), 'ok 100');
    assert.deepEqual(dialled, ['93.184.216.34']);
  });

  for (const [path, label] of [
    ['/to-metadata', '169.254.169.254'],
    ['/to-metadata-name', 'metadata.google.internal'],
    ['/to-mapped-metadata', '[::ffff:a9fe:a9fe]'],
    ['/to-internal', 'a name resolving to 10.0.0.5'],
    ['/to-nat64', 'the NAT64 form of 169.254.169.254'],
  ]) {
    it(`refuses a redirect from an allowed host to ${label} without dialling it`, async () => {
      assert.equal(await outcome(`http://public.example${path}`), 'blocked');
      assert.deepEqual(dialled, ['93.184.216.34'], 'only the allowed first hop was dialled');
    });
  }

  it('refuses a redirect to another scheme as an invalid URL', async () => {
    assert.equal(await outcome('http://public.example/to-ftp'), 'invalid_url');
  });

  it('follows at most 3 redirects, each one vetted', async () => {
    assert.equal(await outcome('http://public.example/hop1'), 'ok 100');
    assert.ok(dialled.length > 0 && dialled.every((a) => a === '93.184.216.34'), `dialled ${dialled.join(', ')}`);
    assert.equal(await outcome('http://public.example/loop'), 'failed');
  });

  for (const url of [
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://[::ffff:10.0.0.1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::1]/',
    'http://internal.example/',
    'http://mixed.example/',
    'https://mixed6.example/',
    'http://metadata.google.internal/',
    'http://localhost./',
    'http://LOCALHOST:8080/',
    'https://api.localhost./',
  ]) {
    it(`blocks ${url} before any dial`, async () => {
      assert.equal(await outcome(url), 'blocked');
      assert.deepEqual(dialled, []);
    });
  }

  it('tells the caller only that a name resolves to an address that is not allowed; the log says which and why', async () => {
    const logged: Record<string, unknown>[] = [];
    const f = new OutboundFetcher(
      { maxBytes: 1_000_000, deadlineMs: 5_000, maxRedirects: 3 },
      { resolve: resolver, dial, log: { warn: (fields) => logged.push(fields) } },
    );
    try {
      for (const [url, host, answer, reason] of [
        ['http://internal.example/', 'internal.example', ['10.0.0.5'], /private/],
        ['http://public.example/to-internal', 'internal.example', ['10.0.0.5'], /private/],
        ['http://metadata.google.internal/', 'metadata.google.internal', ['169.254.169.254'], /linkLocal/],
        ['https://mixed6.example/', 'mixed6.example', ['2606:4700::1', 'fd00::1'], /uniqueLocal/],
        ['http://mapped.example/', 'mapped.example', ['::ffff:192.168.0.1'], /private/],
      ] as const) {
        logged.length = 0;
        const err = await f.fetch(url).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(err instanceof OutboundError && err.kind === 'blocked', `${url}: ${String(err)}`);
        for (const address of answer) assert.ok(!err.message.includes(address), `${url}: the message names ${address}: ${err.message}`);
        assert.doesNotMatch(err.message.replace(host, '<host>'), /private|link|local|reserved|mapped/i, `${url}: ${err.message}`);
        assert.equal(logged.length, 1, url);
        assert.equal(logged[0].purpose, 'media fetch');
        assert.equal(logged[0].host, host);
        assert.ok((answer as readonly string[]).includes(String(logged[0].address)), `${url}: logged ${String(logged[0].address)}`);
        assert.match(String(logged[0].reason), reason);
      }
    } finally {
      await f.close();
    }
  });

  it('refuses a name that does not resolve as it refuses one that resolves inside', async () => {
    assert.equal(await outcome('http://nowhere.example/'), 'blocked');
    assert.deepEqual(dialled, []);
  });

  it('refuses what is not an http(s) URL without credentials', async () => {
    for (const url of [
      'ftp://public.example/a.png',
      'file:///etc/passwd',
      'http://user:pass@public.example/a.png',
      'http://:pass@public.example/',
      'not a url',
      'javascript:alert(1)',
      'gopher://public.example/',
    ]) {
      assert.equal(await outcome(url), 'invalid_url', url);
    }
  });
});

describe('webhook endpoint URLs: the same decision at registration', () => {
  const verdict = (url: string, allow: AllowedEndpoint[] = []) => {
    try {
      return endpointUrl(url, allow);
    } catch (err) {
      return (err as AppError).errors?.join('; ') ?? String(err);
    }
  };

  it('refuses every localhost name, any case, with or without the trailing dot', () => {
    for (const url of [
      'https://localhost/h',
      'https://localhost./h',
      'https://LOCALHOST./h',
      'https://api.localhost/h',
      'https://A.Localhost./h',
      'https://127.0.0.1./h',
    ]) {
      assert.match(verdict(url), /^url must not point to a loopback/, url);
    }
    assert.equal(verdict('https://localhost.example/h'), 'https://localhost.example/h');
  });

  it('takes plain http to a localhost name only for an endpoint the test allowlist names', () => {
    assert.equal(verdict('http://localhost.:8080/h', [{ host: 'localhost', port: 8080 }]), 'http://localhost.:8080/h');
    assert.equal(verdict('http://LOCALHOST:8080/h', [{ host: '127.0.0.1', port: 8080 }]), 'http://localhost:8080/h');
    assert.equal(verdict('http://localhost:8081/h', [{ host: 'localhost', port: 8080 }]), 'url must use https');
  });
});

describe('what a failed outbound request tells the client', () => {
  it('says a socket failure by its kind, never by its message, which names the address dialled', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:443'), { code: 'ECONNREFUSED' });
    assert.equal(outboundFailure(refused), 'connection refused');
    assert.equal(outboundFailure(new Error('fetch failed', { cause: refused })), 'connection refused');
    const timeout = Object.assign(new Error('Connect Timeout Error (attempted address: 10.0.0.5:443, timeout: 5000ms)'), {
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
    assert.equal(outboundFailure(timeout), 'no connection in time');
    const tls = Object.assign(new Error("Hostname/IP does not match certificate's altnames: IP: 10.0.0.5 is not in the cert's list"), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    assert.equal(outboundFailure(tls), 'ERR_TLS_CERT_ALTNAME_INVALID');
    assert.equal(outboundFailure(new Error('something about 10.0.0.5')), 'the request failed');
  });

  it("gives the guard's own verdicts as they are worded for the client", async () => {
    const blocked = await vetHost('internal.example', 443, resolver).then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal(
      outboundFailure(new Error('fetch failed', { cause: blocked })),
      'internal.example does not resolve to an address that may be reached',
    );
    const unknown = await vetHost('nowhere.example', 443, resolver).then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal(outboundFailure(unknown), 'nowhere.example does not resolve to an address that may be reached');
  });
});

describe('docs/media.md', () => {
  it('lists every vector of the decision layer', () => {
    const doc = fs.readFileSync(new URL('../../docs/media.md', import.meta.url), 'utf8');
    for (const [address] of ADDRESS_VECTORS) assert.ok(doc.includes(`\`${address}\``), `docs/media.md lacks ${address}`);
    for (const [name] of NAME_VECTORS) assert.ok(doc.includes(`\`${name}\``), `docs/media.md lacks ${name}`);
  });
});
