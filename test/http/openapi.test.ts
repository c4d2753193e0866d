import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { App } from '../../src/http/types.js';
import { call, startApp, type TestApp } from '../helpers/app.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every registered method and path, read from Fastify's route tree (`printRoutes`), with
 * `:param` written the OpenAPI way (`{param}`). HEAD routes are Fastify's automatic twins of GETs.
 */
function registeredRoutes(app: App): Set<string> {
  const out = new Set<string>();
  const stack: { depth: number; path: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    while (stack.length > depth) stack.pop();
    const full = `${stack.at(-1)?.path ?? ''}${m[2]}`;
    stack.push({ depth, path: full });
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (method === 'HEAD') continue;
      out.add(`${method.toLowerCase()} ${full.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out;
}

function documentedRoutes(doc: any): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(item)) if (HTTP_METHODS.includes(method)) out.add(`${method} ${path}`);
  }
  return out;
}

describe('GET /v1/openapi.json', () => {
  let t: TestApp;
  let doc: any;
  before(async () => {
    t = await startApp();
    doc = (await call(t.app, 'GET', '/v1/openapi.json')).body;
  });
  after(() => t.close());

  it('answers without an API key as JSON', async () => {
    const res = await call(t.app, 'GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });

  it('ignores an invalid API key', async () => {
    const res = await call(t.app, 'GET', '/v1/openapi.json', { key: 'nonsense' });
    assert.equal(res.status, 200);
  });

  it('is a valid OpenAPI 3.1.0 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('documents every registered route and nothing else', () => {
    const registered = registeredRoutes(t.app);
    // The /docs pages (src/modules/docs) are HTML for people, not operations: hidden from the document.
    for (const route of registered) if (/^get \/docs(\/|$)/.test(route)) registered.delete(route);
    // So is the guest page (src/modules/guest-page): /t/, /m/ and its assets.
    for (const route of registered) if (/^get \/(t|m|assets\/guest)\//.test(route)) registered.delete(route);
    // And the venue console (src/modules/console): its pages, forms for people, and the board's API
    // (docs/console.md), both signed in by cookie.
    for (const route of registered) if (/^\w+ \/console(\/|$)/.test(route)) registered.delete(route);
    // And GET /metrics: Prometheus text for a scraper (docs/deployment.md).
    registered.delete('get /metrics');
    // The document itself is among the endpoints.
    assert.ok(registered.has('get /v1/openapi.json'), [...registered].join(', '));
    assert.ok(registered.has('get /v1/reference'), [...registered].join(', '));
    assert.ok(registered.has('post /admin/v1/venues'), [...registered].join(', '));
    assert.deepEqual([...documentedRoutes(doc)].sort(), [...registered].sort());
  });

  it('includes the foundation routes', () => {
    const documented = documentedRoutes(doc);
    for (const route of [
      'get /health',
      'get /ready',
      'get /v1/reference',
      'post /admin/v1/venues',
      'get /admin/v1/venues/{id}',
      'patch /admin/v1/venues/{id}',
      'post /admin/v1/venues/{id}/api-keys',
      'get /admin/v1/venues/{id}/api-keys',
      'post /admin/v1/api-keys/{id}/regenerate',
      'delete /admin/v1/api-keys/{id}',
    ]) {
      assert.ok(documented.has(route), route);
    }
  });

  it('has the shared ErrorResponse schema and references it from error responses', () => {
    const schema = doc.components.schemas.ErrorResponse;
    assert.ok(schema);
    assert.deepEqual([...schema.required].sort(), ['message', 'path', 'requestId', 'statusCode', 'timestamp']);
    const ref = '#/components/schemas/ErrorResponse';
    const unauthorized = doc.paths['/v1/reference'].get.responses['401'];
    assert.equal(unauthorized.content['application/json'].schema.$ref, ref);
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      // /ready's 503 is a probe answer ({ status }), not an API error.
      if (!path.startsWith('/v1/') && !path.startsWith('/admin/')) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          if (Number(status) >= 400) {
            assert.equal(response.content?.['application/json']?.schema?.$ref, ref, `${method} ${path} ${status}`);
          }
        }
      }
    }
  });

  it('declares the API-key scheme on /v1 operations and the operator token on /admin ones', () => {
    assert.equal(doc.components.securitySchemes.apiKey.scheme, 'bearer');
    assert.equal(doc.components.securitySchemes.adminToken.scheme, 'bearer');
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        // Every /v1 request but the document itself carries a key.
        if (path === '/v1/openapi.json') assert.deepEqual(op.security, [], `${method} ${path}`);
        else if (path.startsWith('/v1/')) assert.deepEqual(op.security, [{ apiKey: [] }], `${method} ${path}`);
        if (path.startsWith('/admin/')) assert.deepEqual(op.security, [{ adminToken: [] }], `${method} ${path}`);
      }
    }
  });
});
