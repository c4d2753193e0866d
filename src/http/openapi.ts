import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Carta API',
        version,
        description:
          'Venue menu and orders API. Every /v1 route except this document needs `Authorization: Bearer <API key>`; ' +
          'errors share the ErrorResponse envelope.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'carta_live_... or carta_test_... API key' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN)' },
        },
      },
    },
    // Shared schemas keep their $id as their component name (ErrorResponse, ...).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
}

/** The generated document, built once after the routes are registered. */
export function openApiDocument(app: FastifyInstance): () => string {
  let cached: string | null = null;
  return () => (cached ??= JSON.stringify(app.swagger()));
}
