import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// PGlite's files are one process's alone. The lock on a data directory is a listening local
// socket named after it, which the kernel closes the moment its holder exits, however it exits
// (kill -9, the OOM killer, a zombie its parent has not reaped yet). A recorded pid proves nothing:
// a killed process answers kill(pid, 0) until it is reaped, and after a container restart the pid
// can belong to another process.

export interface DataDirLock {
  release(): Promise<void>;
}

/** The addresses this process holds: its own lock is not "another holder". */
const heldHere = new Set<string>();

function lockAddress(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true });
  // realpath: two spellings of one directory (a symlink, a relative path) must meet on one lock.
  const id = crypto.createHash('sha256').update(fs.realpathSync(dataDir)).digest('hex').slice(0, 32);
  const name = `carta-lock-${id}`;
  // Linux: the abstract namespace, no file at all. Windows: a named pipe, gone with its holder.
  if (process.platform === 'linux') return `\0${name}`;
  if (process.platform === 'win32') return `\\\\.\\pipe\\${name}`;
  // Elsewhere a socket file, which outlives a killed holder: connecting tells a live one from a
  // stale file. Unix socket paths are limited to about 100 bytes, hence the short name in tmpdir.
  return path.join(os.tmpdir(), `${name}.sock`);
}

const socketFile = (address: string) => !address.startsWith('\0') && !address.startsWith('\\\\.\\pipe\\');

function listen(address: string): Promise<net.Server | null> {
  return new Promise((resolve, reject) => {
    // A probe connects only to learn that the lock is held; it is told nothing.
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen({ path: address, exclusive: true }, () => {
      // The lock must never be what keeps a process alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Whether a live process listens on the address (a refused or missing socket is a dead one). */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: address });
    socket.unref();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      // Anything but "nobody listens" (a full backlog, say) is taken as held: the safe side.
      resolve(!(err.code === 'ECONNREFUSED' || err.code === 'ENOENT'));
    });
  });
}

/**
 * Takes the data directory's lock for this process, or returns null when another live process
 * holds it (this process holding it already counts as held too: PGlite cannot be opened twice).
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock | null> {
  const address = lockAddress(dataDir);
  let server = await listen(address);
  if (!server && socketFile(address) && !(await answers(address))) {
    // A socket file left by a holder that died. Two processes that find it stale at the same
    // moment could both take it; that race exists only on the socket-file fallback.
    fs.rmSync(address, { force: true });
    server = await listen(address);
  }
  if (!server) return null;
  const held = server;
  heldHere.add(address);
  let released: Promise<void> | null = null;
  return {
    release: () =>
      (released ??= new Promise<void>((resolve) => {
        heldHere.delete(address);
        // Closing a socket-file server also unlinks the file.
        held.close(() => resolve());
      })),
  };
}

/** Whether a live process other than this one holds the data directory's lock. */
export async function dataDirLockedElsewhere(dataDir: string): Promise<boolean> {
  const address = lockAddress(dataDir);
  return !heldHere.has(address) && answers(address);
}
