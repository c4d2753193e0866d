import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { MEDIA_BINARY_CAP_BYTES } from '../../limits.js';
import { acceptJsonText } from '../../http/plugins/json-body.js';

// The JSON parser of the image upload routes. A body is up to 21 MB, almost all of it one base64
// string: through JSON.parse it would exist four times over (the chunks, the joined bytes, the text,
// the parsed string) before its decoded bytes, and the parse would block the event loop for tens of
// milliseconds. The usual body, exactly `{"base64":"<base64>"}` (whitespace allowed around the
// tokens), is decoded as it streams in instead: an upload then holds its decoded bytes and nothing
// more. A value of base64 characters only is its own JSON string (no quote, escape
// or control character), so nothing about the JSON is skipped. Any other body (other keys,
// escapes, a URL, line breaks) goes through the ordinary parser, with its prototype-poisoning checks.

/** What the streaming decoder made of a `{"base64":"..."}` body (the route hands it to the service). */
export type DecodedUpload = { bytes: Buffer } | { tooLarge: true };

// JSON's whitespace only (\s would also take \v, \f and U+00A0, which JSON.parse refuses).
const HEAD = /^[ \t\n\r]*\{[ \t\n\r]*"base64"[ \t\n\r]*:[ \t\n\r]*"/;
const HEAD_MAX = 64;

/** 1 for the characters of both base64 alphabets (Node decodes either). */
const ALPHABET = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') ALPHABET[c.charCodeAt(0)] = 1;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const CLOSE = 0x7d;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * Recognises and decodes `{"base64":"..."}` chunk by chunk, keeping only the decoded bytes. When a
 * byte does not fit, the body is handed to the ordinary parser as text rebuilt from what was read:
 * the head, the value so far (re-encoded from its decoded bytes: whole groups of 4 characters
 * decode one to one, so only the alphabet, which decodes the same, can differ) and every byte from
 * there on. A value already past the cap is rebuilt as a run of 'A' of its length: too large
 * whatever it says, and whatever else the body holds is judged as it was sent.
 */
export class Base64BodyDecoder {
  private state: 'head' | 'value' | 'padding' | 'close' | 'trail' | 'failed' = 'head';
  private head = '';
  /** Raw bytes while the head is undecided, then everything from the first byte that did not fit. */
  private raw: Buffer[] = [];
  private out: Buffer;
  private written = 0;
  private carry = '';
  private chars = 0;
  private padding = 0;
  private tooLarge = false;

  constructor(expectedBytes: number) {
    // The decoded size is at most 3/4 of the body; a body of unknown length grows the buffer.
    this.out = Buffer.allocUnsafe(Math.min(MEDIA_BINARY_CAP_BYTES + 3, Math.max(1024, Math.ceil((expectedBytes * 3) / 4))));
  }

  push(chunk: Buffer): void {
    if (this.state === 'failed' || this.state === 'head') this.raw.push(chunk);
    if (this.state === 'failed') return;
    let i = 0;
    if (this.state === 'head') {
      const before = this.head.length;
      this.head += chunk.toString('latin1', 0, Math.min(chunk.length, HEAD_MAX - before));
      const match = HEAD.exec(this.head);
      if (!match) {
        // Not a head yet: wait for more, while it could still become one.
        if (this.head.length >= HEAD_MAX) this.state = 'failed';
        return;
      }
      this.head = match[0];
      this.raw = [];
      i = match[0].length - before;
      this.state = 'value';
    }
    if (this.state === 'value') {
      const start = i;
      while (i < chunk.length && ALPHABET[chunk[i]] === 1) i += 1;
      this.chars += i - start;
      this.decode(chunk.toString('latin1', start, i));
      if (i === chunk.length) return;
      this.state = 'padding';
    }
    for (; i < chunk.length; i += 1) {
      const b = chunk[i];
      if (this.state === 'padding' && b === EQUALS && this.padding < 2) this.padding += 1;
      else if (this.state === 'padding' && b === QUOTE) this.state = 'close';
      else if (this.state === 'close' && b === CLOSE) this.state = 'trail';
      else if (this.state === 'padding' || !isSpace(b)) {
        this.fail(chunk.subarray(i));
        return;
      }
    }
  }

  /**
   * Once the body has ended: the decoded upload, or the body's text for the ordinary parser (an
   * empty value goes that way too, where it counts as no source at all).
   */
  end(): { decoded: DecodedUpload } | { text: string } {
    if (this.state === 'trail' && this.chars > 0) {
      this.decode('', true);
      return { decoded: this.tooLarge ? { tooLarge: true } : { bytes: this.out.subarray(0, this.written) } };
    }
    if (this.state !== 'head' && this.state !== 'failed') this.fail(Buffer.alloc(0));
    return { text: Buffer.concat(this.raw).toString('utf8') };
  }

  /** Switches to the ordinary parser: rebuilds what was read so far, and keeps `rest` and what follows. */
  private fail(rest: Buffer): void {
    const value = this.tooLarge ? 'A'.repeat(this.chars) : this.out.toString('base64', 0, this.written) + this.carry;
    const after =
      '='.repeat(this.padding) + (this.state === 'close' || this.state === 'trail' ? '"' : '') + (this.state === 'trail' ? '}' : '');
    this.raw = [Buffer.from(this.head + value + after, 'latin1'), rest];
    this.state = 'failed';
  }

  /** Decodes whole groups of 4 characters; up to 3 wait for the next piece (or the end). */
  private decode(text: string, last = false): void {
    if (this.tooLarge) return;
    const all = this.carry + text;
    const whole = last ? all.length : all.length - (all.length % 4);
    this.carry = all.slice(whole);
    if (whole === 0) return;
    const bytes = Math.floor((whole * 3) / 4);
    if (this.written + bytes > MEDIA_BINARY_CAP_BYTES + 3) {
      this.tooLarge = true;
      return;
    }
    if (this.written + bytes > this.out.length) {
      const grown = Buffer.allocUnsafe(Math.min(MEDIA_BINARY_CAP_BYTES + 3, Math.max(this.out.length * 2, this.written + bytes)));
      this.out.copy(grown, 0, 0, this.written);
      this.out = grown;
    }
    this.written += this.out.write(all.slice(0, whole), this.written, 'base64');
    if (this.written > MEDIA_BINARY_CAP_BYTES) this.tooLarge = true;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** An image upload's base64 body, decoded while it streamed in (media-body.ts). */
    decodedUpload?: DecodedUpload;
  }
}

/**
 * Registers the upload parser in the media routes' own scope. A decoded body reaches the handler
 * as `{}` with the bytes in `request.decodedUpload`; the limits and errors are Fastify's own.
 */
export function registerMediaBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request: FastifyRequest, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
    const contentLength = Number(request.headers['content-length']);
    if (contentLength > limit) {
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
      return;
    }
    const decoder = new Base64BodyDecoder(Number.isFinite(contentLength) ? contentLength : 0);
    let received = 0;
    const finish = (err: Error | null, body?: unknown) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      done(err, body);
    };
    function onData(chunk: Buffer | string): void {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit) {
        finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      decoder.push(bytes);
    }
    function onError(err: Error & { statusCode?: number }): void {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      finish(err);
    }
    function onEnd(): void {
      if (Number.isFinite(contentLength) && received !== contentLength) {
        finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      const result = decoder.end();
      if ('decoded' in result) {
        request.decodedUpload = result.decoded;
        finish(null, {});
        return;
      }
      // A URL upload (or anything else): parsed as on every other route.
      acceptJsonText(request, result.text, parseJson, finish);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.resume();
  });
}
