// Downloads a client-supplied URL within hard bounds: http(s) without credentials, every hop
// (redirects included, at most `maxRedirects`) through the guarded connector, a connect timeout and a
// total deadline, and a byte cap enforced while streaming (a lying or absent Content-Length changes
// nothing). What the bytes are is for the caller to sniff; response headers are not trusted.
import type { Agent, Dispatcher } from 'undici';
import { BlockedAddressError, openGuardedAgent, outboundFailure, UnresolvableHostError, type GuardOptions } from './guarded-connector.js';

type Undici = typeof import('undici');

export type OutboundFailure = 'invalid_url' | 'blocked' | 'too_large' | 'failed';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface FetchLimits {
  maxBytes: number;
  /** Total time for every hop, headers and body. */
  deadlineMs: number;
  maxRedirects: number;
}

export interface FetchedBytes {
  bytes: Buffer;
  /** The URL the bytes came from, after redirects. */
  url: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type Body = Dispatcher.ResponseData['body'];

/** Drops a response body without reading it; its abort error has nowhere to go. */
function discard(body: Body): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads and drops a small body (a redirect's), so its connection can serve the next hop. */
async function drain(body: Body, signal: AbortSignal): Promise<void> {
  await body.dump({ limit: 64 * 1024, signal }).catch(() => undefined);
}

/** A URL a client may ask us to fetch: http or https, a host, no user or password in it. */
export function parseOutboundUrl(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OutboundError('invalid_url', 'url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', `url must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username !== '' || url.password !== '') throw new OutboundError('invalid_url', 'url must not carry credentials');
  if (url.hostname === '') throw new OutboundError('invalid_url', 'url must name a host');
  return url;
}

/**
 * The error an undici failure stands for, looking through the causes it wraps. Its message goes
 * to the client, so it says nothing the guard resolved (outboundFailure); the guard logs that. A
 * name that does not resolve is refused as one that resolves inside is, in the same words: else
 * the two answers would tell which internal names exist.
 */
function classify(err: unknown, url: URL, deadlineHit: boolean, undici: Undici): OutboundError {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof OutboundError) return e;
    if (e instanceof BlockedAddressError) return new OutboundError('blocked', e.literal ? `${url.host}: ${e.message}` : e.message);
    if (e instanceof UnresolvableHostError) return new OutboundError('blocked', e.message);
  }
  if (deadlineHit) return new OutboundError('failed', `${url.host} did not deliver within the time allowed`);
  if (err instanceof undici.errors.ConnectTimeoutError)
    return new OutboundError('failed', `${url.host} did not accept a connection in time`);
  return new OutboundError('failed', `${url.host}: ${outboundFailure(err)}`);
}

export class OutboundFetcher {
  private client: { undici: Undici; agent: Agent } | null = null;

  constructor(
    private readonly limits: FetchLimits,
    private readonly guard: GuardOptions = {},
  ) {}

  /** undici and the guarded agent, made on the first fetch (a server that never fetches never loads them). */
  private async open(): Promise<{ undici: Undici; agent: Agent }> {
    this.client ??= await openGuardedAgent(
      { purpose: 'media fetch', ...this.guard },
      { timeoutMs: this.limits.deadlineMs, connections: 4 },
    );
    return this.client;
  }

  async fetch(raw: string): Promise<FetchedBytes> {
    let url = parseOutboundUrl(raw);
    const { undici, agent } = await this.open();
    const deadline = AbortSignal.timeout(this.limits.deadlineMs);
    for (let hop = 0; ; hop += 1) {
      let response: Dispatcher.ResponseData;
      try {
        response = await undici.request(url, {
          dispatcher: agent,
          method: 'GET',
          signal: deadline,
          headers: { accept: 'image/*', 'user-agent': 'Carta media fetcher' },
        });
      } catch (err) {
        throw classify(err, url, deadline.aborted, undici);
      }
      const { statusCode, headers, body } = response;
      if (REDIRECTS.has(statusCode) && typeof headers.location === 'string') {
        await drain(body, deadline);
        if (hop >= this.limits.maxRedirects) {
          throw new OutboundError('failed', `more than ${this.limits.maxRedirects} redirects`);
        }
        url = parseOutboundUrl(headers.location, url);
        continue;
      }
      if (statusCode < 200 || statusCode > 299) {
        await drain(body, deadline);
        throw new OutboundError('failed', `${url.host} answered ${statusCode}`);
      }
      const announced = Number(headers['content-length']);
      if (Number.isFinite(announced) && announced > this.limits.maxBytes) {
        discard(body);
        throw new OutboundError('too_large', `the source is larger than ${this.limits.maxBytes} bytes`);
      }
      return { bytes: await this.read(body, url, deadline, undici), url };
    }
  }

  private async read(body: Body, url: URL, deadline: AbortSignal, undici: Undici): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > this.limits.maxBytes) {
          discard(body);
          throw new OutboundError('too_large', `the source is larger than ${this.limits.maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (err) {
      throw classify(err, url, deadline.aborted, undici);
    }
    return Buffer.concat(chunks, size);
  }

  async close(): Promise<void> {
    await this.client?.agent.close();
  }
}
