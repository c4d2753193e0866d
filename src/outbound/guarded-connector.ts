// The SSRF guard: an undici connector that resolves the host itself, checks every address of the
// answer (and IP literals, for which Node would call no lookup hook), and dials the vetted address,
// never the name: a DNS answer that changes between the check and the connect (rebinding) cannot
// move the connection. Every outbound request Carta makes on a client's behalf goes through it.
import { lookup } from 'node:dns/promises';
import type { buildConnector } from 'undici';
import { addressOfHost, canonicalAddress, classifyAddress, isLocalhostName, isLoopback } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name -> every address it resolves to (the system resolver by default; tests inject one). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Opens the socket to an already vetted address (undici's own connector by default). */
export type Dialer = buildConnector.connector;

/** A loopback endpoint the guard lets through, for tests only (SSRF_TEST_ALLOW). */
export interface AllowedEndpoint {
  host: string;
  port: number;
}

/**
 * What the client who asked is told of a name the guard would not connect to: the same words
 * whether it resolves to an address that is not allowed or does not resolve at all, so a client
 * cannot probe which names exist inside the network (nor what they resolve to).
 */
export function unreachableName(hostname: string): string {
  return `${hostname} does not resolve to an address that may be reached`;
}

/**
 * A refused host. Its message is what the client who asked may read: the verdict on an IP literal
 * or a localhost name (the URL's own text), but for any other name only `unreachableName`, never
 * which address or why: what a name resolves to inside the network is not the client's to learn.
 * `address` and `reason` are for the operators' log.
 */
export class BlockedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
    /** The host was judged by its text (an IP literal, a localhost name): nothing was resolved. */
    readonly literal: boolean,
  ) {
    super(literal ? reason : unreachableName(hostname));
    this.name = 'BlockedAddressError';
  }
}

/** A name without an address (or whose look-up failed): told to the client as a blocked name is (`unreachableName`). */
export class UnresolvableHostError extends Error {
  constructor(
    readonly hostname: string,
    cause?: unknown,
  ) {
    super(unreachableName(hostname), { cause });
    this.name = 'UnresolvableHostError';
  }
}

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Where the guard reports what it refused (the app's logger; pino's signature). */
export interface OutboundLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface GuardOptions {
  resolve?: Resolver;
  dial?: Dialer;
  /** Tests only: loopback endpoints that pass the guard (config refuses it in production). */
  allow?: readonly AllowedEndpoint[];
  connectTimeoutMs?: number;
  /** Told every refusal with the address and the reason, which the client is not (operators only). */
  log?: OutboundLog;
  /** What the connections are for, in those log lines ('media fetch', 'webhook'). */
  purpose?: string;
}

function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** True when `address:port` is a loopback endpoint SSRF_TEST_ALLOW names (webhook URLs are judged by it too). */
export function allowedForTests(allow: readonly AllowedEndpoint[], address: string, port: number): boolean {
  if (!isLoopback(address)) return false;
  const canonical = canonicalAddress(address);
  return allow.some((e) => e.port === port && (e.host === 'localhost' || canonicalAddress(e.host) === canonical));
}

/**
 * The address to dial for `hostname`, or a BlockedAddressError. An IP literal or a localhost name
 * is judged by its text, without asking the resolver (addressOfHost). Every address of a
 * multi-address answer must pass: a name with one public and one private address is refused,
 * since which one a later connection (or a retry) would use is not ours to choose.
 */
export async function vetHost(hostname: string, port: number, resolve: Resolver, allow: readonly AllowedEndpoint[] = []): Promise<string> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  const named = addressOfHost(host);
  let addresses: string[];
  if (named !== null) {
    addresses = [named];
  } else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch (err) {
      throw new UnresolvableHostError(host, err);
    }
    if (addresses.length === 0) throw new UnresolvableHostError(host);
  }
  for (const address of addresses) {
    if (allow.length > 0 && allowedForTests(allow, address, port)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.allowed) {
      const reason = isLocalhostName(host) ? `${host} is a localhost name, which is loopback` : verdict.reason;
      throw new BlockedAddressError(host, address, reason, named !== null);
    }
  }
  return addresses[0];
}

/**
 * An undici `connect` option that vets each new connection's host before dialling its address.
 * `build` is undici's buildConnector (passed in: undici is loaded on first use, not at start).
 */
export function guardedConnector(options: GuardOptions, build: typeof buildConnector): buildConnector.connector {
  const resolve = options.resolve ?? systemResolver;
  const dial = options.dial ?? build({ timeout: options.connectTimeoutMs ?? 5_000 });
  const allow = options.allow ?? [];
  const { log, purpose = 'outbound request' } = options;
  return (opts, callback) => {
    const port = Number(opts.port) || defaultPort(opts.protocol);
    vetHost(opts.hostname, port, resolve, allow).then(
      // `host` (name:port) stays as it was, so TLS still names the server (SNI, certificate check).
      (address) => dial({ ...opts, hostname: address }, callback),
      (err: Error) => {
        if (err instanceof BlockedAddressError) {
          log?.warn(
            { purpose, host: err.hostname, port, address: err.address, reason: err.reason },
            'outbound connection refused by the SSRF guard',
          );
        }
        callback(err, null);
      },
    );
  };
}

/** Node's socket errors (their message names the address dialled), said without it. */
const SOCKET_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'no connection in time',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
};

/**
 * What a failed outbound request may tell the client who asked for it (an error response, a
 * webhook's lastError): the guard's own verdicts as they say them, a socket or TLS failure by its
 * code. Never the failure's own message, which can carry the address a name resolved to
 * (`connect ECONNREFUSED 10.0.0.5:443`, undici's "attempted address").
 */
export function outboundFailure(err: unknown): string {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof BlockedAddressError || e instanceof UnresolvableHostError) return e.message;
  }
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return SOCKET_FAILURES[code] ?? code;
  }
  return 'the request failed';
}

/**
 * undici, loaded on first use (a server that never sends anything out never loads it), and an
 * agent whose every connection goes through the guard. The media fetcher and the webhook sender
 * each keep one.
 */
export async function openGuardedAgent(
  guard: GuardOptions,
  limits: { timeoutMs: number; connections: number },
): Promise<{ undici: typeof import('undici'); agent: import('undici').Agent }> {
  const undici = await import('undici');
  const agent = new undici.Agent({
    connect: guardedConnector(guard, undici.buildConnector),
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    connections: limits.connections,
  });
  return { undici, agent };
}
