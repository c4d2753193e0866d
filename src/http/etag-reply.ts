import { entityTags } from '../shared/etag.js';

/** If-None-Match: true when the client's copy is current (answer 304). */
export function isNotModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch === etag) return true; // the usual case: the one tag the client was sent
  return ifNoneMatch.trim() === '*' || entityTags(ifNoneMatch).includes(etag);
}

interface ConditionalReply {
  header(name: string, value: string): unknown;
  status(code: number): { send(payload?: unknown): unknown };
}

/** 304 with no body at all (RFC 9110 15.4.5): not even a serialised `null`. */
export function sendNotModified(reply: ConditionalReply): void {
  reply.status(304).send();
}

/** Sends pre-serialised bytes with their ETag, or 304 when the client's copy is current. */
export function sendCached(ifNoneMatch: string | undefined, reply: ConditionalReply, cached: { etag: string; body: Buffer }): void {
  reply.header('etag', cached.etag);
  if (isNotModified(ifNoneMatch, cached.etag)) {
    sendNotModified(reply);
    return;
  }
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.status(200).send(cached.body);
}

/** A write's answer: the status, the ETag header, and the view to send. */
export function withEtag<T>(
  reply: { header(name: string, value: string): unknown; status(code: number): unknown },
  read: { view: T; etag: string },
  status = 200,
): T {
  reply.status(status);
  reply.header('etag', read.etag);
  return read.view;
}

/**
 * A read with its ETag: 304 when the client's copy is current (returns undefined then), else the
 * view to send.
 */
export function conditionalView<T>(
  ifNoneMatch: string | undefined,
  reply: ConditionalReply,
  read: { view: T; etag: string },
): T | undefined {
  reply.header('etag', read.etag);
  if (isNotModified(ifNoneMatch, read.etag)) {
    sendNotModified(reply);
    return undefined;
  }
  return read.view;
}
