import type { FastifyReply } from 'fastify';
import type { EventSink } from '../shared/event-sink.js';

/** The headers of a Server-Sent Events response (HEAD answers them too). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  // Never stored, and never held back by a buffering proxy (nginx reads X-Accel-Buffering).
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * Takes the response over from Fastify for a Server-Sent Events stream: the headers the request
 * has gathered (request id, rate-limit counters) go out now with the SSE ones, and from here on
 * the caller writes events until the client leaves or the stream is ended.
 */
export function sseResponse(reply: FastifyReply): EventSink {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, SSE_HEADERS);
  // The first bytes go out with the headers: a client knows at once that the stream is open.
  res.flushHeaders();
  return {
    write: (text) => res.write(text),
    onDrain: (listener) => res.on('drain', listener),
    // A client that left while the stream was being set up has closed the response already.
    onClose: (listener) => (res.closed || res.destroyed ? queueMicrotask(listener) : res.on('close', listener)),
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
}
