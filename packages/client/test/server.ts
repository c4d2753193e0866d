// A real Carta server for the client's tests: the root test helpers' app (its own database),
// listening on a loopback port, so every request goes through real HTTP.
import type { AddressInfo } from 'node:net';
import type { Config } from '../../../src/config.js';
import { admin, createVenue, startApp, type TestApp, type VenueFixture } from '../../../test/helpers/app.js';

export interface TestServer {
  t: TestApp;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const t = await startApp(overrides);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      // A keep-alive connection the server does not see as idle at close would hold close() until the
      // client's keep-alive timeout (about 70 s); a test server ends every connection at once.
      t.app.server.closeAllConnections();
      await t.close();
    },
  };
}

export { admin, createVenue, type VenueFixture };

/** A fetch that records every request it sends (method, path, Idempotency-Key) and each answer's status. */
export function recordingFetch(
  log: { method: string; path: string; key: string | null; status: number | 'error'; replayed: boolean }[],
): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const entry = {
      method: request.method,
      path: new URL(request.url).pathname + new URL(request.url).search,
      key: request.headers.get('idempotency-key'),
      status: 'error' as number | 'error',
      replayed: false,
    };
    log.push(entry);
    const response = await fetch(request);
    entry.status = response.status;
    entry.replayed = response.headers.get('idempotent-replayed') === 'true';
    return response;
  };
}
