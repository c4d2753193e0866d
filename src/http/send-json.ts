interface JsonReply {
  type(contentType: string): { send(payload: string | Buffer): unknown };
}

/**
 * Sends JSON that was serialised (and cached) ahead of the request. Fastify passes strings and
 * Buffers through untouched, so the route's response schema documents the shape but costs nothing.
 */
export function sendJson<R extends object>(reply: R, body: string | Buffer): R {
  (reply as unknown as JsonReply).type('application/json; charset=utf-8').send(body);
  return reply;
}
