import { createHash } from 'node:crypto';
import { errors } from '../errors.js';

/** A strong ETag from the representation's bytes: it changes exactly when the content does. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`;
}

/** The tags of an If-Match or If-None-Match header, weak ones compared as strong. */
export function entityTags(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

/** If-Match on a write: a stale tag is 412 STALE_RESOURCE. Absent = unconditional. */
export function assertIfMatch(ifMatch: string | undefined, currentEtag: string): void {
  if (ifMatch === undefined) return;
  if (ifMatch.trim() === '*') return;
  if (!entityTags(ifMatch).includes(currentEtag)) throw errors.staleResource();
}

/** A read shape and its ETag. */
export interface Etagged<T> {
  view: T;
  etag: string;
}

/** The read shape and its ETag (the bytes of that shape: any change moves it). */
export function etagged<T>(view: T): Etagged<T> {
  return { view, etag: etagOf(JSON.stringify(view)) };
}
