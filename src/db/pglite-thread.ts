import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PGliteOptions } from '@electric-sql/pglite';
import { utf8PartsInTurns } from '../next-turn.js';
import type { WorkerReply, WorkerRequest } from './pglite-worker.js';

// PGlite runs PostgreSQL in WebAssembly, synchronously: on the thread that serves requests, one
// large statement (a 500-product sync's upsert takes seconds the first time) would keep every other
// request waiting, /health included. So it runs on a worker thread (pglite-worker.ts), and this is
// its handle here: the part of PGlite's API that pglite.ts uses, each statement a message.

export interface ThreadResult {
  rows: unknown[];
  affectedRows?: number;
}

/** Statements inside a transaction (pglite.ts's `t`). */
export interface ThreadTransaction {
  query(text: string, params?: readonly unknown[]): Promise<ThreadResult>;
  exec(sql: string): Promise<void>;
}

/**
 * The worker's file beside this one: compiled (dist/db), bundled (this file in dist/bundle/chunks),
 * or the sources, run by tsx (which a worker thread must register for itself).
 */
function startWorker(workerData: unknown): Worker {
  const candidates = ['./pglite-worker.js', '../pglite-worker.js'].map((p) => new URL(p, import.meta.url));
  const compiled = candidates.find((url) => fs.existsSync(fileURLToPath(url)));
  if (compiled) return new Worker(compiled, { workerData });
  const source = new URL('./pglite-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

export class PgliteThread {
  private readonly pending = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (err: Error) => void }>();
  /** The rows received so far of results that come in parts. */
  private readonly partial = new Map<number, unknown[]>();
  private next = 1;
  /** The end of the queue of statements and transactions: one at a time, as PGlite's own lock does. */
  private tail: Promise<unknown> = Promise.resolve();
  private failed: Error | null = null;
  /** Resolves once PGlite has opened its files (start); every message waits for it. */
  private opened: Promise<void> = Promise.resolve();
  /** Set once `opened` has resolved: a message need not wait for it. */
  private isOpen = false;
  /** The last message still waiting to be posted (for the open, or its large texts' packing). */
  private waiting: Promise<void> | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: WorkerReply) => {
      if (reply.more) {
        // Part of a large result (pglite-worker.ts): kept, and the next part asked for in a later
        // turn, so that taking in the whole result never holds this thread for long.
        const taken = this.partial.get(reply.id);
        if (taken) taken.push(...(reply.rows ?? []));
        else this.partial.set(reply.id, reply.rows ?? []);
        setImmediate(() => {
          if (!this.failed) this.worker.postMessage({ id: reply.id, op: 'more', text: '' } satisfies WorkerRequest);
        });
        return;
      }
      const taken = this.partial.get(reply.id);
      if (taken) {
        this.partial.delete(reply.id);
        reply = { ...reply, rows: taken.concat(reply.rows ?? []) };
      }
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply);
    });
    const fail = (err: Error) => {
      this.failed = err;
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
      this.partial.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the PGlite thread exited (${code})`)));
  }

  static async open(dataDir: string | null, options: PGliteOptions): Promise<PgliteThread> {
    const thread = PgliteThread.start(dataDir, options);
    await thread.whenOpen();
    return thread;
  }

  /**
   * The thread, at once, while PGlite opens its files on it (a second or more on a restart, CPU of
   * the other core): statements sent meanwhile wait, and fail with the open's error if it fails.
   */
  static start(dataDir: string | null, options: PGliteOptions): PgliteThread {
    const worker = startWorker({ dataDir, options });
    const thread = new PgliteThread(worker);
    thread.opened = new Promise<WorkerReply>((resolve, reject) => thread.pending.set(0, { resolve, reject })).then(async (ready) => {
      if (!ready.error) {
        thread.isOpen = true;
        return;
      }
      const err = rebuild(ready.error);
      thread.failed = err;
      await worker.terminate();
      throw err;
    });
    // Each caller awaits it through whenOpen or a statement; unawaited, a failure is not unhandled.
    thread.opened.catch(() => {});
    return thread;
  }

  /** Resolves once the files are open; rejects with the reason they could not be. */
  whenOpen(): Promise<void> {
    return this.opened;
  }

  /**
   * Posts a message to the thread. Messages go in the order they are sent (a transaction's
   * statements rely on it): at once while the files are open and no earlier message is still
   * waiting, else behind the one before, once the open and the packing of large texts are done.
   */
  private send(op: WorkerRequest['op'], text: string, params?: readonly unknown[]): Promise<WorkerReply> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.isOpen && !this.waiting && !hasLargeText(params))
      return this.post(op, text, { values: params as unknown[] | undefined, transfer: [] });
    const before = this.waiting;
    const packed = (async () => {
      await before;
      await this.opened;
      const packs = await packParams(params);
      if (this.failed) throw this.failed;
      return packs;
    })();
    const posted = packed.then((packs) => this.post(op, text, packs));
    const settled = packed.then(
      () => undefined,
      () => undefined,
    );
    this.waiting = settled;
    void settled.then(() => {
      if (this.waiting === settled) this.waiting = null;
    });
    return posted;
  }

  private post(op: WorkerRequest['op'], text: string, { values, large, transfer }: PackedParams): Promise<WorkerReply> {
    const id = this.next++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        // Parameters are structured-cloned: plain data (a Buffer arrives as a Uint8Array). Large
        // texts go as UTF-8 bytes whose memory moves to the thread (packParams).
        this.worker.postMessage({ id, op, text, params: values, large } satisfies WorkerRequest, transfer);
      } catch (err) {
        this.pending.delete(id);
        reject(err as Error);
      }
    }).then((reply) => {
      if (reply.error) throw rebuild(reply.error);
      return reply;
    });
  }

  /** Runs `work` once everything queued before it is done. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private statement = async (text: string, params?: readonly unknown[]): Promise<ThreadResult> => {
    const reply = await this.send('query', text, params);
    return { rows: reply.rows ?? [], affectedRows: reply.affectedRows };
  };

  private script = async (sql: string): Promise<void> => {
    await this.send('exec', sql);
  };

  query(text: string, params?: readonly unknown[]): Promise<ThreadResult> {
    return this.exclusive(() => this.statement(text, params));
  }

  exec(sql: string): Promise<void> {
    return this.exclusive(() => this.script(sql));
  }

  /** BEGIN, `fn`'s statements, COMMIT (ROLLBACK when it throws), with nothing else in between. */
  transaction<T>(fn: (t: ThreadTransaction) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.statement('begin');
      let open = true;
      const t: ThreadTransaction = {
        query: (text, params) => (open ? this.statement(text, params) : Promise.reject(new Error('Transaction is closed'))),
        exec: (sql) => (open ? this.script(sql) : Promise.reject(new Error('Transaction is closed'))),
      };
      try {
        const result = await fn(t);
        open = false;
        await this.statement('commit');
        return result;
      } catch (err) {
        open = false;
        await this.statement('rollback').catch(() => undefined);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    await this.opened.catch(() => undefined);
    if (!this.failed) await this.exclusive(() => this.send('close', '')).catch(() => undefined);
    await this.worker.terminate();
  }
}

/**
 * Texts from this many UTF-16 code units on are sent as bytes. Structured cloning copies a text
 * on this thread at about 6-12 ms per MB (a 500-product sync's 6 MB of rows took 40-160 ms, a
 * publish's document up to 230 ms, in one task); encoded a slice per turn (utf8PartsInTurns) and
 * transferred, the memory moves without a copy and the thread decodes it.
 */
const LARGE_TEXT = 1 << 16;

interface PackedParams {
  values?: unknown[];
  large?: Array<[number, Uint8Array[]]>;
  transfer: ArrayBuffer[];
}

const hasLargeText = (params: readonly unknown[] | undefined) =>
  params?.some((p) => typeof p === 'string' && p.length >= LARGE_TEXT) ?? false;

/** `params` as posted: large texts replaced by null and listed in `large` with their bytes. */
async function packParams(params: readonly unknown[] | undefined): Promise<PackedParams> {
  if (!params || !hasLargeText(params)) return { values: params as unknown[] | undefined, transfer: [] };
  const values = [...params];
  const large: Array<[number, Uint8Array[]]> = [];
  const transfer: ArrayBuffer[] = [];
  for (const [i, p] of params.entries()) {
    if (typeof p !== 'string' || p.length < LARGE_TEXT) continue;
    // A Buffer may share its memory with others (Node's pool): only memory of its own is moved.
    const parts = (await utf8PartsInTurns(p)).map((b) =>
      b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b),
    );
    values[i] = null;
    large.push([i, parts]);
    for (const part of parts) transfer.push(part.buffer as ArrayBuffer);
  }
  return { values, large, transfer };
}

/** The statement's error as PGlite raised it: its message and fields (code, constraint, ...). */
function rebuild({ message, name, ...fields }: NonNullable<WorkerReply['error']>): Error {
  const err = Object.assign(new Error(message), fields);
  if (typeof name === 'string') err.name = name;
  return err;
}
