import { randomUUID } from 'node:crypto';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { AppError, errors } from '../../errors.js';
import { IP_RATE_LIMITS, VENUE_RATE_LIMITS, VENUE_RATE_WINDOW_SEC, type VenueBucket } from '../../limits.js';
import { remember } from '../../lru.js';
import type { RateTier } from '../../modules/venues/plans.js';
import type { BucketCheck, BucketState, ConsumeResult, RateStore } from './store.js';

const IP_BUCKETS = Object.entries(IP_RATE_LIMITS) as [keyof typeof IP_RATE_LIMITS, { limit: number; windowSec: number }][];

/** IPv6 address -> its client key, so a client's address is parsed once, not on each of its requests. */
const ipv6Keys = new Map<string, string>();
const IPV6_KEYS_MAX = 10_000;

function ipv6Key(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return ip;
  }
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  // A dual-stack socket reports an IPv4 client as ::ffff:a.b.c.d: the same client as a.b.c.d.
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

/**
 * Whose budget a client address draws from: an IPv4 address as it is; an IPv6 address by its /64,
 * the smallest prefix a network hands one subscriber, who can pick any of its 2^64 addresses
 * (a bucket per address would be no limit at all); an IPv4-mapped IPv6 address as its IPv4 one.
 */
export function clientKey(ip: string | undefined): string {
  // A socket already gone reports no address.
  if (!ip) return 'unknown';
  if (!ip.includes(':')) return ip;
  let key = ipv6Keys.get(ip);
  if (key === undefined) {
    key = ipv6Key(ip);
    remember(ipv6Keys, ip, key, IPV6_KEYS_MAX);
  }
  return key;
}

export function ipChecks(ip: string | undefined): BucketCheck[] {
  const client = clientKey(ip);
  return IP_BUCKETS.map(([name, { limit, windowSec }]) => ({ name, key: `ip:${name}:${client}`, limit, windowMs: windowSec * 1000 }));
}

/** `general` on every /v1 request, plus the route's own buckets, at the plan's tier. */
export function venueChecks(venueId: string, tier: RateTier, buckets: readonly VenueBucket[]): BucketCheck[] {
  return (['general', ...buckets] as VenueBucket[]).map((name) => ({
    name,
    key: `venue:${name}:${venueId}`,
    limit: VENUE_RATE_LIMITS[name][tier],
    windowMs: VENUE_RATE_WINDOW_SEC * 1000,
  }));
}

function setHeaders(reply: Pick<FastifyReply, 'header'>, buckets: BucketState[]): void {
  for (const b of buckets) {
    reply.header(`x-ratelimit-limit-${b.name}`, String(b.limit));
    reply.header(`x-ratelimit-remaining-${b.name}`, String(Math.max(0, b.remaining)));
    reply.header(`x-ratelimit-reset-${b.name}`, String(Math.max(0, Math.ceil(b.resetMs / 1000))));
  }
}

const REFUSED_MAX = 10_000;

/** Per-IP and per-venue rolling-window limits over one store. */
export class RateLimiter {
  /** Told the bucket of every 429 (GET /metrics). */
  onRejected: ((bucket: string) => void) | null = null;
  /** Addresses refused a miss (limitIpOnMiss), until their Retry-After: at most REFUSED_MAX. */
  private readonly refused = new Map<string, number>();

  constructor(
    private readonly store: RateStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts the request in every bucket at once, or in none when one is full: then 429 naming
   * that bucket, with Retry-After in whole seconds (at least 1) until a slot frees.
   */
  async take(reply: Pick<FastifyReply, 'header'>, checks: BucketCheck[], token: string = randomUUID()): Promise<ConsumeResult> {
    const result = await this.store.consume(checks, this.now(), token);
    setHeaders(reply, result.buckets);
    return this.judged(result);
  }

  /** As `take`, for an answer that carries no rate-limit headers (the console's sign-in pages). */
  async count(checks: BucketCheck[], token: string = randomUUID()): Promise<ConsumeResult> {
    return this.judged(await this.store.consume(checks, this.now(), token));
  }

  private judged(result: ConsumeResult): ConsumeResult {
    if (!result.allowed && result.rejected) {
      this.onRejected?.(result.rejected.name);
      throw errors.rateLimited(result.rejected.name, Math.max(1, Math.ceil(result.rejected.resetMs / 1000)));
    }
    return result;
  }

  refund(checks: BucketCheck[], token: string): Promise<void> {
    return this.store.refund(checks, token);
  }

  noteRefused(key: string, error: AppError): void {
    const retryAfterSec = Number(error.headers?.['retry-after'] ?? 1);
    remember(this.refused, key, this.now() + retryAfterSec * 1000, REFUSED_MAX);
  }

  wasRefused(key: string): boolean {
    const until = this.refused.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.refused.delete(key);
    return false;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** What the per-IP hook took, so a later rejection by a venue bucket can give it back. */
export interface IpCharge {
  checks: BucketCheck[];
  token: string;
  /** The per-IP buckets as reported on this request's response. */
  buckets: BucketState[];
}

export function limitIp(limiter: RateLimiter) {
  return async function limitByIp(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const checks = ipChecks(request.ip);
    const { token, buckets } = await limiter.take(reply, checks);
    request.ipCharge = { checks, token, buckets };
  };
}

/**
 * For a read that is free when it finds what was asked for and counted when it does not (GET
 * /media, outside the gate's limits): a found image takes no slot; a miss takes one, and past the
 * limits is 429. An address refused so is asked about before any look-up until its Retry-After has
 * passed (the limiter remembers it), so misses cannot cost a look-up each once their budget is spent.
 */
export async function limitIpOnMiss<T>(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  read: () => Promise<T>,
): Promise<T> {
  const key = clientKey(request.ip);
  const checks = ipChecks(request.ip);
  // Refused a miss within its Retry-After: asked again (429 with its headers, nothing counted when
  // refused), never looked up first.
  if (limiter.wasRefused(key)) await limiter.take(reply, checks);
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 404) {
      try {
        await limiter.take(reply, checks);
      } catch (refused) {
        if (refused instanceof AppError) limiter.noteRefused(key, refused);
        throw refused;
      }
    }
    throw err;
  }
}

/** Buckets of a route: its config, where a function may depend on the request (dry runs). */
function routeBuckets(request: FastifyRequest, config: FastifyContextConfig): VenueBucket[] {
  const { buckets } = config;
  return typeof buckets === 'function' ? buckets(request) : (buckets ?? []);
}

export async function limitVenue(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  config: FastifyContextConfig,
  venueId: string,
  tier: RateTier,
): Promise<void> {
  try {
    await limiter.take(reply, venueChecks(venueId, tier, routeBuckets(request, config)), request.ipCharge?.token);
  } catch (err) {
    // A rejected request consumes nothing anywhere: give back the IP slots, and
    // report them as given back.
    if (request.ipCharge) {
      await limiter.refund(request.ipCharge.checks, request.ipCharge.token);
      setHeaders(
        reply,
        request.ipCharge.buckets.map((b) => ({ ...b, remaining: Math.min(b.limit, b.remaining + 1) })),
      );
    }
    throw err;
  }
}
