import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataDirLockedElsewhere, lockDataDir, type DataDirLock } from './data-dir-lock.js';

// PGlite is one process's database. Whoever opens it under DATA_DIR (a server, or a CLI command
// when no server runs) first takes DATA_DIR's lock (data-dir-lock.ts), which dies with its holder.
// A server also leaves a note of its URL so the CLI talks to it over the operator API instead.
// The note only means something while the lock is held: whoever takes the lock removes any note
// it finds (a killed server's), and a server removes its own before letting the lock go.
export interface ServerNote {
  pid: number;
  url: string;
}

const noteFile = (dataDir: string) => path.join(dataDir, 'server.json');

export function writeServerNote(dataDir: string, note: ServerNote): void {
  fs.writeFileSync(noteFile(dataDir), JSON.stringify(note));
}

export function removeServerNote(dataDir: string): void {
  fs.rmSync(noteFile(dataDir), { force: true });
}

function readServerNote(dataDir: string): ServerNote | null {
  try {
    const note = JSON.parse(fs.readFileSync(noteFile(dataDir), 'utf8')) as Partial<ServerNote>;
    return typeof note.pid === 'number' && typeof note.url === 'string' ? { pid: note.pid, url: note.url } : null;
  } catch {
    return null;
  }
}

/** The running server that holds DATA_DIR, if any: the lock says someone holds it, the note where it listens. */
export async function runningServer(dataDir: string): Promise<ServerNote | null> {
  return (await dataDirLockedElsewhere(dataDir)) ? readServerNote(dataDir) : null;
}

/** The holder that kept a claim out, named as well as the note allows. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly server: ServerNote | null,
  ) {
    super(
      server
        ? `Another Carta server (pid ${server.pid}, ${server.url}) is using ${dataDir}`
        : `Another Carta process is using ${dataDir} (a server still starting, or a carta command with the database open)`,
    );
    this.name = 'DataDirBusyError';
  }
}

const POLL_MS = 50;

async function take(dataDir: string): Promise<DataDirLock | null> {
  const lock = await lockDataDir(dataDir);
  if (lock) removeServerNote(dataDir);
  return lock;
}

/**
 * Takes DATA_DIR for this process before it opens the database. A holder may be on its way out
 * (a killed process is closed by the kernel a moment after the signal; a carta command finishes
 * in a second or two), so this tries for up to `waitMs` before refusing.
 */
export async function claimDataDir(dataDir: string, options: { waitMs: number }): Promise<DataDirLock> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const lock = await take(dataDir);
    if (lock) return lock;
    if (Date.now() >= deadline) throw new DataDirBusyError(dataDir, await runningServer(dataDir));
    await sleep(POLL_MS);
  }
}

/**
 * For a CLI command: DATA_DIR's lock when nobody holds it (the command opens PGlite itself), or
 * the server that holds it (the command goes through its operator API). A holder without a note
 * is a server still starting or another command: wait up to `waitMs` for either to settle.
 */
export async function claimDataDirOrFindServer(
  dataDir: string,
  options: { waitMs: number },
): Promise<{ lock: DataDirLock; server?: never } | { server: ServerNote; lock?: never }> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const lock = await take(dataDir);
    if (lock) return { lock };
    const server = await runningServer(dataDir);
    if (server) return { server };
    if (Date.now() >= deadline) throw new DataDirBusyError(dataDir, null);
    await sleep(POLL_MS);
  }
}
