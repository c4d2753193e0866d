// The bytes of an upload: exactly one of `base64` or `url`, each capped at
// 15 MB of binary (FILE_TOO_LARGE for base64, SOURCE_TOO_LARGE for a URL), checked before the bytes
// are decoded or while they stream in.
import { errors } from '../../errors.js';
import { MEDIA_BINARY_CAP_BYTES } from '../../limits.js';
import { OutboundError, type OutboundFetcher } from '../../outbound/fetch-bytes.js';
import type { DecodedUpload } from './media-body.js';
import type { ImageSourceInput } from './media.schemas.js';

export interface SourceBytes {
  bytes: Buffer;
  /** For the audit log: how the image came, and from where without query or fragment. */
  audit: { source: 'base64' } | { source: 'url'; sourceUrl: string };
}

const DATA_URL_PREFIX = /^data:[\w.+-]+\/[\w.+-]+;base64,/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function decodeBase64(text: string): Buffer {
  let body = text.startsWith('data:') ? text.replace(DATA_URL_PREFIX, '') : text;
  if (/\s/.test(body)) body = body.replace(/\s+/g, '');
  if (!BASE64.test(body)) throw errors.invalidImage('base64 is not valid base64 text');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  // The size is known before decoding: a 20 MB string is refused without allocating its bytes.
  if (Math.floor((body.length * 3) / 4) - padding > MEDIA_BINARY_CAP_BYTES) throw errors.fileTooLarge(MEDIA_BINARY_CAP_BYTES);
  return Buffer.from(body, 'base64');
}

function fromOutboundError(err: OutboundError) {
  switch (err.kind) {
    case 'invalid_url':
      return errors.invalidSourceUrl(err.message);
    case 'blocked':
      return errors.blockedSourceUrl(err.message);
    case 'too_large':
      return errors.sourceTooLarge(MEDIA_BINARY_CAP_BYTES);
    case 'failed':
      return errors.sourceFetchFailed(err.message);
  }
}

/**
 * The upload's bytes: `decoded` when the route's parser already decoded a `{"base64":"..."}` body
 * as it streamed in (media-body.ts), else from `input`.
 */
export async function readImageSource(input: ImageSourceInput, fetcher: OutboundFetcher, decoded?: DecodedUpload): Promise<SourceBytes> {
  if (decoded) {
    if ('tooLarge' in decoded) throw errors.fileTooLarge(MEDIA_BINARY_CAP_BYTES);
    return { bytes: decoded.bytes, audit: { source: 'base64' } };
  }
  const base64 = input.base64 === '' ? undefined : input.base64;
  const url = input.url === '' ? undefined : input.url;
  if ((base64 === undefined) === (url === undefined)) throw errors.invalidImageSource();
  if (base64 !== undefined) return { bytes: decodeBase64(base64), audit: { source: 'base64' } };
  try {
    const fetched = await fetcher.fetch(url as string);
    const requested = new URL(url as string);
    return { bytes: fetched.bytes, audit: { source: 'url', sourceUrl: `${requested.origin}${requested.pathname}` } };
  } catch (err) {
    if (err instanceof OutboundError) throw fromOutboundError(err);
    throw err;
  }
}
