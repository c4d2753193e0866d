import fs from 'node:fs';
import path from 'node:path';

// PGlite is one process's database: while a server holds DATA_DIR, the CLI must not open the
// same files. The server leaves this note so the CLI talks to it over the operator API instead.
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running server that holds DATA_DIR, if any (a stale note from a crash is ignored). */
export function runningServer(dataDir: string): ServerNote | null {
  try {
    const note = JSON.parse(fs.readFileSync(noteFile(dataDir), 'utf8')) as ServerNote;
    return note.pid !== process.pid && alive(note.pid) ? note : null;
  } catch {
    return null;
  }
}
