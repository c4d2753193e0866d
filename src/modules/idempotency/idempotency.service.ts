import { setTimeout as sleep } from 'node:timers/promises';
import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import * as keys from './idempotency.repository.js';
import type { StoredResponse } from './idempotency.repository.js';

/**
 * How long a running execution holds its key before a retry may take it over: longer than any
 * request runs (the sync window, media fetches, lock waits), so a live holder is never overtaken;
 * it only matters when the holder's process died.
 */
const LEASE_SEC = 300;
/** How long a retry waits for the same request running elsewhere before it is told to retry. */
const MAX_WAIT_MS = 30_000;
/** One claim in this many also clears the venue's expired keys (an indexed delete). */
const PURGE_EVERY = 64;

export type Begun =
  { kind: 'replay'; response: StoredResponse } | { kind: 'execute'; finish(response: StoredResponse | null): Promise<void> };

/**
 * Idempotency-Key for the /v1 writes: one execution per (venue, key) across every instance, the
 * first answer replayed for 24 hours, another request under the same key refused. The key row is
 * claimed in the database before the route runs, so concurrent copies (here or on another
 * instance) wait for the first and replay it. Within one process they wait on a promise, not
 * by polling.
 */
export class IdempotencyService {
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly db: Database) {}

  async begin(venueId: string, key: string, requestHash: string): Promise<Begun> {
    const id = `${venueId}\n${key}`;
    const deadline = Date.now() + MAX_WAIT_MS;
    for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
      const local = this.running.get(id);
      if (local) {
        await local;
        continue;
      }
      if (await this.write(venueId, (tx) => keys.claimKey(tx, venueId, key, requestHash, LEASE_SEC))) return this.execute(id, venueId, key);
      const row = await keys.findKey(this.db, venueId, key);
      // Released or expired between the two statements: claim again.
      if (!row) continue;
      if (row.request_hash !== requestHash) throw errors.idempotencyKeyReused();
      if (row.status_code !== null) {
        return {
          kind: 'replay',
          response: { statusCode: row.status_code, headers: row.response_headers ?? {}, body: row.response_body ?? '' },
        };
      }
      if (Date.now() > deadline) throw errors.idempotencyInProgress(1);
      await sleep(pause);
    }
  }

  private execute(id: string, venueId: string, key: string): Begun {
    let done!: () => void;
    this.running.set(id, new Promise<void>((resolve) => (done = resolve)));
    if (Math.random() * PURGE_EVERY < 1) void this.write(venueId, (tx) => keys.deleteExpiredKeys(tx, venueId)).catch(() => undefined);
    return {
      kind: 'execute',
      finish: async (response) => {
        try {
          if (response) await this.write(venueId, (tx) => keys.completeKey(tx, venueId, key, response));
          else await this.write(venueId, (tx) => keys.releaseKey(tx, venueId, key));
        } finally {
          this.running.delete(id);
          done();
        }
      },
    };
  }

  /**
   * A key's write, in a transaction of its venue: it writes only idempotency_keys, an order-side
   * table, so it moves that venue's order-side memos only (write-scope.ts), not every memo, as a
   * write through db.query would.
   */
  private write<T>(venueId: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn, { venueId });
  }
}
