// The PGlite thread (pglite-thread.ts starts it): PostgreSQL compiled to WebAssembly runs its
// statements synchronously, so it runs here, off the thread that serves requests. One statement at
// a time, in the order they arrive; the caller keeps transactions whole.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

export interface WorkerRequest {
  id: number;
  /** `more`: the next rows of statement `id`'s result (ROWS_PER_REPLY at a time). */
  op: 'query' | 'exec' | 'close' | 'more';
  text: string;
  params?: unknown[];
  /** Text parameters sent as UTF-8 bytes (pglite-thread.ts): their place in `params`, their bytes in parts. */
  large?: Array<[number, Uint8Array[]]>;
}

export interface WorkerReply {
  id: number;
  rows?: unknown[];
  /** More rows follow: the other thread asks for them with a `more` request once it has taken these. */
  more?: true;
  affectedRows?: number;
  /** A failed statement: the error's message and its own fields (code, constraint, ...). */
  error?: Record<string, unknown> & { message: string };
}

/**
 * Rows per reply. The other thread takes a reply in one task (structured clone), and a large
 * menu's rows (500 products of 20 groups of 8 options, 3.7 MB) took it 60-100 ms at once: in
 * replies of 50 rows, asked for one after another, it answers other requests in between.
 */
const ROWS_PER_REPLY = 50;

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

function withLargeTexts(params: unknown[], large: Array<[number, Uint8Array[]]>): unknown[] {
  const out = [...params];
  // A part never ends inside a character (utf8PartsInTurns cuts between code points).
  for (const [i, parts] of large)
    out[i] = parts.map((part) => Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('utf8')).join('');
  return out;
}

try {
  const pg = dataDir ? await PGlite.create(dataDir, options) : await PGlite.create(options);
  let chain = Promise.resolve();
  // The rows of a result not yet sent, by statement id.
  const unsent = new Map<number, { rows: unknown[]; affectedRows?: number }>();
  const sendRows = (id: number, rows: unknown[], affectedRows: number | undefined) => {
    if (rows.length <= ROWS_PER_REPLY) {
      port.postMessage({ id, rows, affectedRows } satisfies WorkerReply);
      return;
    }
    unsent.set(id, { rows: rows.slice(ROWS_PER_REPLY), affectedRows });
    port.postMessage({ id, rows: rows.slice(0, ROWS_PER_REPLY), more: true } satisfies WorkerReply);
  };
  port.on('message', (request: WorkerRequest) => {
    if (request.op === 'more') {
      // Outside the chain: the statement is done, and the other thread sends nothing else until it has all its rows.
      const rest = unsent.get(request.id);
      unsent.delete(request.id);
      if (rest) sendRows(request.id, rest.rows, rest.affectedRows);
      return;
    }
    chain = chain.then(async () => {
      try {
        if (request.op === 'query') {
          const params = request.large ? withLargeTexts(request.params ?? [], request.large) : request.params;
          const result = await pg.query(request.text, params);
          sendRows(request.id, result.rows, result.affectedRows);
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
