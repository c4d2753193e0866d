import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler, preHandlerHookHandler, RouteOptions } from 'fastify';
import type { IdempotencyService } from '../../modules/idempotency/idempotency.service.js';
import type { StoredResponse } from '../../modules/idempotency/idempotency.repository.js';
import { stableStringify } from '../../stable-json.js';
import { IdempotencyHeaders } from '../schemas/common.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds its Idempotency-Key: records (or gives back) the key. */
    idempotencyFinish?: (response: StoredResponse | null) => Promise<void>;
  }
}

/** The response headers a replay repeats (the body's type, its version, where a creation is). */
const KEPT_HEADERS = ['content-type', 'etag', 'location'];
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What makes two requests "the same" under one key: the route, its parameters, query and
 * If-Match, and the body's bytes (the JSON parser's digest of the raw text, or an upload's decoded
 * bytes). Bytes, not the parsed value: a body no route reads may be nested beyond any recursion.
 */
function requestHash(request: FastifyRequest): string {
  const hash = createHash('sha256').update(
    `${request.method} ${request.routeOptions.url}\n${stableStringify(request.params)}\n${stableStringify(request.query)}\n${request.headers['if-match'] ?? ''}\n`,
  );
  const upload = request.decodedUpload;
  if (upload && 'bytes' in upload) hash.update(upload.bytes);
  else hash.update(request.bodyDigest ?? '');
  return hash.digest('base64url');
}

/**
 * Idempotency-Key on every /v1 write (docs/security.md). Runs
 * after authentication and validation, so a refused request takes no key; the response is
 * recorded before it is sent, so a client that saw it always gets it replayed.
 */
export function idempotency(service: IdempotencyService) {
  const claim: preHandlerHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    const begun = await service.begin(request.venue.venueId, key, requestHash(request));
    if (begun.kind === 'execute') {
      request.idempotencyFinish = begun.finish;
      return;
    }
    const { statusCode, headers, body } = begun.response;
    reply.code(statusCode).headers(headers).header('idempotent-replayed', 'true');
    return reply.send(body === '' ? undefined : body);
  };

  const record: onSendHookHandler = async (request, reply, payload) => {
    const finish = request.idempotencyFinish;
    if (!finish) return payload;
    request.idempotencyFinish = undefined;
    try {
      // A 5xx is the service failing, not an answer: the key is given back for a retry.
      if (reply.statusCode >= 500) await finish(null);
      else {
        const headers: Record<string, string> = {};
        for (const name of KEPT_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        await finish({ statusCode: reply.statusCode, headers, body: payload === null || payload === undefined ? '' : String(payload) });
      }
    } catch (err) {
      request.log.warn({ err }, 'idempotency key not recorded; a retry may wait for its lease');
    }
    return payload;
  };

  // A request that ended without a response (the client went away first) gives its key back.
  const release: onResponseHookHandler = async (request) => {
    const finish = request.idempotencyFinish;
    if (!finish) return;
    request.idempotencyFinish = undefined;
    await finish(null).catch((err: unknown) => request.log.warn({ err }, 'idempotency key not released'));
  };

  /** Adds the header to a write route's schema and the hooks to the route (an onRoute step). */
  return function install(route: RouteOptions): void {
    const methods = [route.method].flat();
    if (methods.every((m) => READS.has(m))) return;
    if (route.schema?.headers) throw new Error(`${route.url}: merge its headers schema with IdempotencyHeaders`);
    route.schema = { ...route.schema, headers: IdempotencyHeaders };
    route.preHandler = [claim, ...[route.preHandler ?? []].flat()];
    route.onSend = [...[route.onSend ?? []].flat(), record];
    route.onResponse = [...[route.onResponse ?? []].flat(), release];
  };
}
