import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.js';

/** How long a stream is read after its last chunk, and at most in all. */
const QUIET_MS = 100;
const MAX_MS = 3000;

/**
 * app.inject for suites that call every route: a response that stays open (the live order stream,
 * text/event-stream) is read until it has been quiet a moment, then the client leaves; any other
 * response is read to its end as inject would. Either way the answer reads like inject's.
 */
export async function injectBounded(app: App, options: InjectOptions): Promise<LightMyRequestResponse> {
  const res = await app.inject({ ...options, payloadAsStream: true });
  const streaming = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) => {
    const stream = res.stream();
    let quiet: NodeJS.Timeout | undefined;
    // Only a stream is cut short: any other answer is read to its end, however long it takes.
    const cap = streaming ? setTimeout(() => done(), MAX_MS) : undefined;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      resolve();
    };
    const settle = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, QUIET_MS);
    };
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (streaming) settle();
    });
    stream.on('end', done);
    stream.on('error', done);
  });
  if (streaming) (res.raw.res as unknown as { destroy(): void }).destroy();
  const rawPayload = Buffer.concat(chunks);
  const body = rawPayload.toString('utf8');
  return {
    raw: res.raw,
    rawPayload,
    headers: res.headers,
    statusCode: res.statusCode,
    statusMessage: res.statusMessage,
    trailers: res.trailers,
    payload: body,
    body,
    json: () => JSON.parse(body),
    stream: () => res.stream(),
    cookies: res.cookies,
  } as LightMyRequestResponse;
}
