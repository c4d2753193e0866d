import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, sleep } from './net.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = path.join(root, 'bin/carta.js');

/** What bin/carta.js runs: the start bundle `npm run build` makes. */
export const compiled = path.join(root, 'dist/bundle/carta.js');
export const notBuilt = 'dist/bundle/carta.js is missing: run `npm run build`';

/**
 * Why the compiled CLI cannot be tested here, or false. It opens PGlite under DATA_DIR in its own
 * process; on PostgreSQL it would need a schema of its own, which it has no option for, so the
 * CLI and `carta serve` are covered on PGlite only.
 */
export function cliSkipReason(): string | false {
  if (process.env.DATABASE_URL) return 'the compiled CLI is tested on PGlite only';
  if (!fs.existsSync(compiled)) return notBuilt;
  return false;
}

/** The environment of a child `carta`: DATA_DIR set, nothing inherited that would change its database or token. */
export function cartaEnv(dataDir: string, extraEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'off' };
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'REDIS_URL', 'PORT', 'HOST']) delete env[name];
  return { ...env, ...extraEnv };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `carta <args>` as a child process and collects its exit code and output. */
export function carta(dataDir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: cartaEnv(dataDir, extraEnv), cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A DATA_DIR holding a copy of the run's migrated template database (a fresh PGlite costs seconds). */
export function dataDirFromTemplate(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-cli-'));
  const template = process.env.CARTA_TEST_TEMPLATE;
  if (template) fs.cpSync(template, path.join(dir, 'pglite'), { recursive: true });
  return dir;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * A server as a process of its own on a free port (`args` after node: the built CLI's `serve`, or
 * the sources through tsx); resolves once `readyPath` answers 2xx.
 */
export async function spawnServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { readyPath?: string; timeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`${url}${options.readyPath ?? '/health'}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not start: ${out}`);
    await sleep(100);
  }
  return { child, url, output: () => out, exited };
}
