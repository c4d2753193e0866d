import fs from 'node:fs';

// DATA_DIR holds the embedded database (menus, orders with customers' contact details, webhook
// signing secrets, API key hashes), the operator token and the server note: its owner's alone.
// A directory that group or others can write is refused rather than repaired: someone else may
// already have put or swapped files in it. One they can only read or enter is closed at start
// (0755 is what earlier versions created).

const GROUP_OR_OTHERS = 0o077;
const GROUP_OR_OTHERS_WRITE = 0o022;

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;

/** The path as a shell argument, for the command a message suggests. */
const shellArg = (p: string) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replaceAll("'", "'\\''")}'`);

/**
 * Readies DATA_DIR before anything under it is opened: created 0700 when missing, closed to 0700
 * when group or others can read or enter it, refused (with the one line the command prints) when
 * they can write it. Also sets this process's umask to 077, so what it creates from then on (PGlite's
 * new files, the server note) is its owner's alone.
 */
export function secureDataDir(dataDir: string): void {
  // Windows has no mode bits to check: its access lists are the operator's to set.
  if (process.platform === 'win32') {
    fs.mkdirSync(dataDir, { recursive: true });
    return;
  }
  process.umask(0o077);
  // A no-op on an existing directory; a new one (and any missing parent) is made 0700.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  if (mode & GROUP_OR_OTHERS_WRITE) {
    throw new Error(`DATA_DIR ${dataDir} is writable by group or others (mode ${octal(mode)}); run chmod 700 ${shellArg(dataDir)}`);
  }
  if ((mode & GROUP_OR_OTHERS) === 0) return;
  try {
    fs.chmodSync(dataDir, 0o700);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    throw new Error(
      `DATA_DIR ${dataDir} is readable by group or others (mode ${octal(mode)}) and owned by another user; run chmod 700 ${shellArg(dataDir)} as its owner`,
    );
  }
  process.stderr.write(`carta: DATA_DIR ${dataDir} was readable by group or others (mode ${octal(mode)}); it is now 0700\n`);
}
