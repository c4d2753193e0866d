import { createHash } from 'node:crypto';
import { errors } from '../errors.js';

/** A strong ETag from the representation's bytes: it changes exactly when the content does. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`;
}

function tags(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

/** If-None-Match: true when the client's copy is current (answer 304). */
export function isNotModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch === etag) return true; // the usual case: the one tag the client was sent
  return ifNoneMatch.trim() === '*' || tags(ifNoneMatch).includes(etag);
}

/** If-Match on a write: a stale tag is 412 STALE_RESOURCE (spec 4.2). Absent = unconditional. */
export function assertIfMatch(ifMatch: string | undefined, currentEtag: string): void {
  if (ifMatch === undefined) return;
  if (ifMatch.trim() === '*') return;
  if (!tags(ifMatch).includes(currentEtag)) throw errors.staleResource();
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
export function sendCached(
  ifNoneMatch: string | undefined,
  reply: ConditionalReply,
  cached: { etag: string; body: Buffer },
): void {
  reply.header('etag', cached.etag);
  if (isNotModified(ifNoneMatch, cached.etag)) {
    sendNotModified(reply);
    return;
  }
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.status(200).send(cached.body);
}

/** A write's answer: the status, the ETag header, and the view to send. */
export function withEtag<T>(reply: { header(name: string, value: string): unknown; status(code: number): unknown }, read: { view: T; etag: string }, status = 200): T {
  reply.status(status);
  reply.header('etag', read.etag);
  return read.view;
}

/**
 * A read with its ETag: 304 when the client's copy is current (returns undefined then), else the
 * view to send.
 */
export function conditionalView<T>(ifNoneMatch: string | undefined, reply: ConditionalReply, read: { view: T; etag: string }): T | undefined {
  reply.header('etag', read.etag);
  if (isNotModified(ifNoneMatch, read.etag)) {
    sendNotModified(reply);
    return undefined;
  }
  return read.view;
}
