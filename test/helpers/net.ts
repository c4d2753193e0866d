import net from 'node:net';
import type { Resolver } from '../../src/outbound/guarded-connector.js';

/** A port nothing listens on right now (the OS just handed it out and it was closed again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Name resolution for every app a test builds: `localhost` (with or without the trailing dot) is
 * 127.0.0.1, and any other name fails as unknown, so no test ever sends a DNS query off this machine.
 */
export const loopbackResolver: Resolver = async (hostname) => {
  if (hostname.toLowerCase().replace(/\.$/, '') === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (tests resolve localhost only)`), { code: 'ENOTFOUND' });
};

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 20 ms until it gives a value (returned), or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
