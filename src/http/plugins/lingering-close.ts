import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { MB } from '../../limits.js';

export interface LingeringClose {
  /** How long the rest of an answered request's body is still read, and dropped... */
  ms: number;
  /** ...and how many of its bytes at most, before the connection closes. */
  bytes: number;
}

export const LINGERING_CLOSE: LingeringClose = { ms: 5_000, bytes: 64 * MB };

const hasBody = (headers: IncomingHttpHeaders) => headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;

/**
 * Lets a client still sending its body read the answer it got before the body ended (413 over the
 * cap, 401, 503 MEDIA_BUSY). Node closes a connection right after a `Connection: close` answer;
 * closing a socket with unread bytes makes the kernel send a reset, which the client reads as
 * EPIPE or ECONNRESET instead of the answer (and the reset may drop the answer in flight). So such
 * an answer goes out whole, with its Content-Length, at once, while its response is held open: the
 * rest of the body is read and dropped until it ends (then the close is a plain FIN) or for at
 * most `ms` or `bytes`, whichever comes first; then the response ends and Node closes the
 * connection. Nothing of the body is kept, and nothing else waits: the client has the answer.
 */
export function registerLingeringClose(app: FastifyInstance, { ms, bytes }: LingeringClose = LINGERING_CLOSE): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    const status = reply.statusCode;
    if (
      // A body read to its end (`complete` on Node's request; `readableEnded` on any stream, an
      // injected request's too) has nothing left to drain.
      raw.complete ||
      raw.readableEnded ||
      raw.destroyed ||
      !hasBody(raw.headers) ||
      // Answers without a body, and streams of their own, are left as they are.
      status < 200 ||
      status === 204 ||
      status === 304 ||
      raw.method === 'HEAD' ||
      !(payload === null || payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload))
    ) {
      done(null, payload);
      return;
    }
    const body = payload === null || payload === undefined ? Buffer.alloc(0) : Buffer.from(payload);
    reply.header('connection', 'close');
    reply.header('content-length', body.length);
    // Written at once, ended once the body is drained: the end lets Node close the connection.
    const answer = new PassThrough();
    if (body.length > 0) answer.write(body);
    drain(raw, ms, bytes, () => {
      if (!answer.destroyed) answer.end();
    });
    done(null, answer);
  });
}

/** Reads and drops `raw`'s body until it ends, closes, or passes `ms` or `max` bytes; then `then`. */
function drain(raw: IncomingMessage, ms: number, max: number, then: () => void): void {
  let seen = 0;
  const stop = () => {
    clearTimeout(timer);
    raw.off('data', count);
    raw.off('end', stop);
    raw.off('close', stop);
    then();
  };
  const count = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > max) stop();
  };
  const timer = setTimeout(stop, ms);
  raw.on('data', count);
  raw.once('end', stop);
  raw.once('close', stop);
  raw.resume();
}
