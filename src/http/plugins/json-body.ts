import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { noteParsedBody } from '../text-safety.js';

// JSON bodies through Fastify's own parser (prototype-poisoning protection), except that an
// empty body reads as absent: POST /v1/publish takes "body absent or {}" even when the client
// sends Content-Type: application/json with nothing after it.
// `recordDigest` (registered again in a route's own scope) also keeps the sha256 of the raw body
// in request.bodyDigest: the sync reuses work for a body it has seen (item-digests.ts).
export function registerJsonBody(app: FastifyInstance, options: { recordDigest?: boolean } = {}): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Every body is JSON: text/plain is refused (400) rather than parsed into a string.
  if (app.hasContentTypeParser('text/plain')) app.removeContentTypeParser('text/plain');
  const { recordDigest = false } = options;
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) {
      done(null, undefined);
      return;
    }
    if (recordDigest) request.bodyDigest = createHash('sha256').update(body as string).digest('base64url');
    parseJson(request, body as string, (err, parsed) => {
      if (!err) noteParsedBody(body as string, parsed);
      done(err, parsed);
    });
  });
}
