// The PGlite thread (pglite-thread.ts starts it): PostgreSQL compiled to WebAssembly runs its
// statements synchronously, so it runs here, off the thread that serves requests. One statement at
// a time, in the order they arrive; the caller keeps transactions whole.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

export interface WorkerRequest {
  id: number;
  op: 'query' | 'exec' | 'close';
  text: string;
  params?: unknown[];
}

export interface WorkerReply {
  id: number;
  rows?: unknown[];
  affectedRows?: number;
  /** A failed statement: the error's message and its own fields (code, constraint, ...). */
  error?: Record<string, unknown> & { message: string };
}

const port = parentPort!;
const { dataDir, options } = workerData as { dataDir: string | null; options: PGliteOptions };

/** What the other thread can rebuild: message, name and every own field that is plain data. */
function plainError(err: unknown): WorkerReply['error'] {
  const error = err instanceof Error ? err : new Error(String(err));
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value;
  }
  return { ...fields, name: error.name, message: error.message };
}

try {
  const pg = dataDir ? await PGlite.create(dataDir, options) : await PGlite.create(options);
  let chain = Promise.resolve();
  port.on('message', (request: WorkerRequest) => {
    chain = chain.then(async () => {
      try {
        if (request.op === 'query') {
          const result = await pg.query(request.text, request.params);
          port.postMessage({ id: request.id, rows: result.rows, affectedRows: result.affectedRows } satisfies WorkerReply);
        } else if (request.op === 'exec') {
          await pg.exec(request.text);
          port.postMessage({ id: request.id } satisfies WorkerReply);
        } else {
          await pg.close();
          port.postMessage({ id: request.id } satisfies WorkerReply);
          port.close();
        }
      } catch (err) {
        port.postMessage({ id: request.id, error: plainError(err) } satisfies WorkerReply);
      }
    });
  });
  port.postMessage({ id: 0 } satisfies WorkerReply);
} catch (err) {
  port.postMessage({ id: 0, error: plainError(err) } satisfies WorkerReply);
}
