// A client of its own process for test/http/oversize-answers.test.ts: posts an oversized body
// `rounds` times in a row and prints, as one JSON array on stdout, each answer (status, body, the
// Connection header) or the error the client read instead. In the test's own process the server
// and the client take turns on one event loop, which hides the race a reset loses the answer to.
//
//   node --import tsx test/helpers/oversize-client.ts '{"url":...,"key":...,"bytes":...,"chunked":false,"client":"fetch","rounds":20}'
import http from 'node:http';
import { fetch as undiciFetch } from 'undici';

export type OversizeClient = 'fetch' | 'undici' | 'http';

export interface OversizeRun {
  url: string;
  key: string;
  bytes: number;
  chunked: boolean;
  client: OversizeClient;
  rounds: number;
}

export type OversizeResult = { status: number; body: any; connection: string | null } | { error: string };

const CHUNK = 256 * 1024;

async function viaFetch(run: OversizeRun, body: Buffer): Promise<OversizeResult> {
  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < body.length; at += CHUNK) controller.enqueue(body.subarray(at, at + CHUNK));
        controller.close();
      },
    });
  const init = {
    method: 'POST',
    headers: { authorization: `Bearer ${run.key}`, 'content-type': 'application/json' },
    body: run.chunked ? stream() : body,
    ...(run.chunked ? { duplex: 'half' } : {}),
  };
  const res = run.client === 'fetch' ? await fetch(run.url, init as RequestInit) : await undiciFetch(run.url, init as never);
  return { status: res.status, body: await res.json(), connection: res.headers.get('connection') };
}

function viaHttp(run: OversizeRun, body: Buffer): Promise<OversizeResult> {
  return new Promise((resolve, reject) => {
    const framing = run.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) };
    const req = http.request(
      run.url,
      { method: 'POST', agent: false, headers: { authorization: `Bearer ${run.key}`, 'content-type': 'application/json', ...framing } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), connection: res.headers.connection ?? null });
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (run.chunked) for (let at = 0; at < body.length; at += CHUNK) req.write(body.subarray(at, at + CHUNK));
    req.end(run.chunked ? undefined : body);
  });
}

async function main(): Promise<void> {
  const run = JSON.parse(process.argv[2]) as OversizeRun;
  const body = Buffer.alloc(run.bytes, 0x20);
  const results: OversizeResult[] = [];
  for (let round = 0; round < run.rounds; round += 1) {
    try {
      results.push(run.client === 'http' ? await viaHttp(run, body) : await viaFetch(run, body));
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string }; code?: string };
      results.push({ error: e.cause?.code ?? e.code ?? e.cause?.message ?? e.message });
    }
  }
  process.stdout.write(JSON.stringify(results));
}

if (process.argv[2]) await main();
