import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { bin, carta, cartaEnv, cliSkipReason, dataDirFromTemplate, root } from '../helpers/cli.js';
import { freePort, sleep } from '../helpers/net.js';

// DATA_DIR holds customers' details, webhook secrets and the operator token: its owner's alone.
// These run as whatever user the suite runs as (root included): they set modes and read them back.

const skip = cliSkipReason() || (process.platform === 'win32' && 'DATA_DIR modes are POSIX mode bits');

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

/** Every entry under `dir` that group or others may use, with its mode. */
function openToOthers(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => !fs.lstatSync(file).isSymbolicLink() && modeOf(file) & 0o077)
    .map((file) => `${file} ${modeOf(file).toString(8)}`);
}

interface Served {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** `carta serve` until /health answers, then SIGTERM; its two streams apart, read to their end. */
async function serveOnce(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const env = cartaEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', ...extraEnv });
  const child = spawn(process.execPath, [bin, 'serve'], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // 'close': the process has exited and both pipes are drained.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`carta serve exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`carta serve did not start: ${stderr}`);
    }
    await sleep(50);
  }
  child.kill('SIGTERM');
  // Awaited before the streams are read: the log's last lines arrive as the process exits.
  const code = await closed;
  return { stdout, stderr, code };
}

describe('the data directory', { skip }, () => {
  const made: string[] = [];
  /** An empty folder for a DATA_DIR of the given mode (the suite's umask set aside). */
  const emptyDir = (mode: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carta-datadir-'));
    made.push(dir);
    fs.chmodSync(dir, mode);
    return dir;
  };
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates a missing DATA_DIR 0700, keeps every file in it from group and others, and prints the token on stderr only', async () => {
    const parent = emptyDir(0o755);
    const dataDir = path.join(parent, 'data');
    const run = await serveOnce(dataDir, { LOG_LEVEL: 'info' });
    assert.equal(run.code, 0, run.stderr);

    assert.equal(modeOf(dataDir), 0o700);
    assert.ok(fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION')), 'a new database was made');
    assert.deepEqual(openToOthers(dataDir), []);

    const token = fs.readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    assert.ok(run.stderr.includes(token), 'the generated token is printed on stderr');
    assert.equal(run.stdout.includes(token), false, 'the token never reaches the log stream');
    assert.ok(
      run.stdout.split('\n').some((line) => line.startsWith('{') && JSON.parse(line).msg === 'carta is serving'),
      'stdout carries the JSON log',
    );
  });

  it('closes an existing DATA_DIR that group and others can read (0755, as earlier versions made it) to 0700, its files too', async () => {
    const dataDir = dataDirFromTemplate();
    made.push(dataDir);
    // An earlier version's modes: folders 0755, PGlite's files 0666, the server note 0644.
    for (const file of [
      dataDir,
      ...fs.readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).map((name) => path.join(dataDir, name)),
    ]) {
      fs.chmodSync(file, fs.statSync(file).isDirectory() ? 0o755 : 0o666);
    }
    const run = await serveOnce(dataDir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(modeOf(dataDir), 0o700);
    assert.deepEqual(openToOthers(dataDir), []);
    assert.match(run.stderr, /now 0700/);
  });

  for (const mode of [0o775, 0o757]) {
    const shown = `0${mode.toString(8)}`;
    it(`refuses to serve on a DATA_DIR that ${mode & 0o020 ? 'group' : 'others'} can write (${shown}) and writes nothing in it`, async () => {
      const dataDir = emptyDir(mode);
      const run = await carta(dataDir, ['serve'], { PORT: String(await freePort()) });
      assert.notEqual(run.code, 0);
      assert.equal(run.stderr, `carta: DATA_DIR ${dataDir} is writable by group or others (mode ${shown}); run chmod 700 ${dataDir}\n`);
      assert.equal(run.stdout, '');
      assert.deepEqual(fs.readdirSync(dataDir), []);
      assert.equal(modeOf(dataDir), mode, 'the refused directory is left as it was');
    });
  }

  it('refuses a carta command that would open the database on a DATA_DIR others can write', async () => {
    const dataDir = emptyDir(0o777);
    for (const args of [['migrate'], ['venue', 'create', '--name', 'Open Cafe', '--currency', 'EUR']]) {
      const run = await carta(dataDir, args);
      assert.notEqual(run.code, 0, args.join(' '));
      assert.match(run.stderr, /^carta: DATA_DIR .* is writable by group or others \(mode 0777\); run chmod 700 /);
      assert.deepEqual(fs.readdirSync(dataDir), []);
    }
  });
});
