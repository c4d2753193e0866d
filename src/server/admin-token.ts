import fs from 'node:fs';
import path from 'node:path';
import { randomBase62 } from '../ids.js';

export const ADMIN_TOKEN_FILE = 'admin-token';

export function adminTokenPath(dataDir: string): string {
  return path.join(dataDir, ADMIN_TOKEN_FILE);
}

export function readStoredAdminToken(dataDir: string): string | null {
  try {
    return fs.readFileSync(adminTokenPath(dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * The embedded default's operator token: generated on the first start and kept under DATA_DIR
 * (readable by its owner only). `created` tells the caller to print it, once.
 */
export function ensureAdminToken(dataDir: string): { token: string; created: boolean } {
  const stored = readStoredAdminToken(dataDir);
  if (stored) return { token: stored, created: false };
  fs.mkdirSync(dataDir, { recursive: true });
  const token = `carta_admin_${randomBase62(40)}`;
  fs.writeFileSync(adminTokenPath(dataDir), `${token}\n`, { mode: 0o600 });
  return { token, created: true };
}
