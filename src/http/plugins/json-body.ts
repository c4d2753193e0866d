import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { jsonShapeProblem } from '../json-shape.js';
import { noteParsedBody } from '../text-safety.js';
import { nextTurn } from '../../next-turn.js';

type JsonParser = ReturnType<FastifyInstance['getDefaultJsonParser']>;
type Done = (err: Error | null, body?: unknown) => void;

/**
 * One JSON body's text to its value, for every parser of ours (this one and the upload parser):
 * an empty body reads as absent (POST /v1/publish takes "body absent or {}" even with
 * Content-Type: application/json and nothing after it); the sha256 of the raw text is kept in
 * request.bodyDigest (the sync reuses work for a body it has seen, item-digests.ts, and an
 * Idempotency-Key compares requests by it, idempotency.ts); the text-safety check learns whether
 * the text could hold what PostgreSQL cannot store. A text whose shape would cost JSON.parse
 * seconds is refused unparsed (json-shape.ts).
 */
export function acceptJsonText(request: FastifyRequest, text: string, parseJson: JsonParser, done: Done): void {
  if (text.trim() === '') {
    done(null, undefined);
    return;
  }
  // A body of megabytes takes each step in a turn of its own (10-40 ms each for the largest sync's
  // 3.7 MB, after Fastify's join of its chunks), and its validation another (Fastify's, once `done`
  // is called), so /health and other requests are answered between them.
  const between = text.length >= SPLIT_FROM ? nextTurn : async () => {};
  void (async () => {
    await between();
    const shape = jsonShapeProblem(text);
    if (shape) return done(errors.validation([shape]));
    await between();
    request.bodyDigest = createHash('sha256').update(text).digest('base64url');
    await between();
    const parsed = await new Promise<unknown>((resolve, reject) =>
      parseJson(request, text, (err, value) => (err ? reject(err) : resolve(value))),
    );
    noteParsedBody(text, parsed);
    await between();
    done(null, parsed);
  })().catch((err: Error) => done(err));
}

/** Bodies from this many characters on are taken in several turns (acceptJsonText). */
const SPLIT_FROM = 1 << 20;

// JSON bodies through Fastify's own parser (prototype-poisoning protection).
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Every body is JSON: text/plain is refused (400) rather than parsed into a string.
  if (app.hasContentTypeParser('text/plain')) app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    acceptJsonText(request, body as string, parseJson, done),
  );
}
