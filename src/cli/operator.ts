import type { Config } from '../config.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import type { Database } from '../db/port.js';
import { AppError } from '../errors.js';
import type {
  ApiKeyCreateInput,
  ApiKeyCreatedView,
  ApiKeySummaryView,
  VenueCreateInput,
  VenuePatchInput,
  VenueView,
} from '../modules/venues/venues.schemas.js';
import type {
  StaffCreateInput,
  StaffInvitedView,
  StaffListView,
  StaffMemberView,
  StaffPatchInput,
} from '../modules/staff/staff.schemas.js';
import { randomUUID } from 'node:crypto';
import { readStoredAdminToken } from '../server/admin-token.js';
import { secureDataDir } from '../server/data-dir-mode.js';
import { claimDataDirOrFindServer, type ServerNote } from '../server/server-file.js';
import { createServices } from '../services.js';

/** The operator operations, the same whether the CLI runs them in-process or over /admin/v1. */
export interface Operator {
  createVenue(input: VenueCreateInput): Promise<VenueView>;
  getVenue(id: string): Promise<VenueView>;
  updateVenue(id: string, patch: VenuePatchInput): Promise<VenueView>;
  createKey(venueId: string, input: ApiKeyCreateInput): Promise<ApiKeyCreatedView>;
  listKeys(venueId: string): Promise<{ items: ApiKeySummaryView[] }>;
  regenerateKey(keyId: string): Promise<ApiKeyCreatedView>;
  revokeKey(keyId: string): Promise<void>;
  inviteStaff(venueId: string, input: StaffCreateInput): Promise<StaffInvitedView>;
  listStaff(venueId: string, page: { page?: number; limit?: number }): Promise<StaffListView>;
  updateStaff(id: string, patch: StaffPatchInput): Promise<StaffMemberView>;
  reinviteStaff(id: string): Promise<StaffInvitedView>;
  removeStaff(id: string): Promise<void>;
  close(): Promise<void>;
}

function inProcess({ db, close }: LocalDatabase, config: Config): Operator {
  const services = createServices({ config, db });
  return {
    createVenue: (input) => services.venues.create(input),
    getVenue: (id) => services.venues.get(id),
    updateVenue: (id, patch) => services.venues.update(id, patch),
    createKey: (venueId, input) => services.apiKeys.create(venueId, input),
    listKeys: (venueId) => services.apiKeys.list(venueId),
    regenerateKey: (keyId) => services.apiKeys.regenerate(keyId),
    revokeKey: (keyId) => services.apiKeys.revoke(keyId),
    // Audited under a request id of the command's own, as the server would give a request.
    inviteStaff: (venueId, input) => services.staff.invite(venueId, input, { requestId: `cli-${randomUUID()}` }),
    listStaff: (venueId, page) => services.staff.list(venueId, page),
    updateStaff: (id, patch) => services.staff.update(id, patch, { requestId: `cli-${randomUUID()}` }),
    reinviteStaff: (id) => services.staff.reinvite(id, { requestId: `cli-${randomUUID()}` }),
    removeStaff: (id) => services.staff.remove(id, { requestId: `cli-${randomUUID()}` }),
    close,
  };
}

function overHttp(baseUrl: string, token: string): Operator {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return undefined as T;
    const payload = (await res.json()) as Record<string, unknown>;
    if (!res.ok) {
      throw new AppError({
        statusCode: res.status,
        message: String(payload.message ?? res.statusText),
        errors: payload.errors as string[] | undefined,
      });
    }
    return payload as T;
  };
  return {
    createVenue: (input) => call('POST', '/venues', input),
    getVenue: (id) => call('GET', `/venues/${encodeURIComponent(id)}`),
    updateVenue: (id, patch) => call('PATCH', `/venues/${encodeURIComponent(id)}`, patch),
    createKey: (venueId, input) => call('POST', `/venues/${encodeURIComponent(venueId)}/api-keys`, input),
    listKeys: (venueId) => call('GET', `/venues/${encodeURIComponent(venueId)}/api-keys`),
    regenerateKey: (keyId) => call('POST', `/api-keys/${encodeURIComponent(keyId)}/regenerate`),
    revokeKey: (keyId) => call('DELETE', `/api-keys/${encodeURIComponent(keyId)}`),
    inviteStaff: (venueId, input) => call('POST', `/venues/${encodeURIComponent(venueId)}/staff`, input),
    listStaff: (venueId, page) =>
      call('GET', `/venues/${encodeURIComponent(venueId)}/staff?page=${page.page ?? 1}&limit=${page.limit ?? 100}`),
    updateStaff: (id, patch) => call('PATCH', `/staff/${encodeURIComponent(id)}`, patch),
    reinviteStaff: (id) => call('POST', `/staff/${encodeURIComponent(id)}/invite`),
    removeStaff: (id) => call('DELETE', `/staff/${encodeURIComponent(id)}`),
    close: async () => {},
  };
}

// How long a command waits for DATA_DIR to settle when its holder has left no note: a server still
// starting (a first start initialises PGlite) or another command that has the database open.
const CLAIM_WAIT_MS = 20_000;

export interface LocalDatabase {
  db: Database;
  /** Closes the database, then lets DATA_DIR go. */
  close(): Promise<void>;
}

/**
 * The command's own database: PostgreSQL, or PGlite under DATA_DIR held by this process's lock
 * until close(), so no server can open the same files meanwhile. Or, when a server holds
 * DATA_DIR, that server. On PGlite, DATA_DIR is checked and closed first, as a server does.
 */
export async function openLocalDatabase(config: Config): Promise<LocalDatabase | { server: ServerNote }> {
  if (config.databaseUrl !== null) {
    const db = await openDatabase(config);
    return { db, close: () => db.close() };
  }
  secureDataDir(config.dataDir);
  const claim = await claimDataDirOrFindServer(config.dataDir, { waitMs: CLAIM_WAIT_MS });
  if (claim.server) return { server: claim.server };
  const { lock } = claim;
  try {
    const db = await openDatabase(config);
    return {
      db,
      close: async () => {
        try {
          await db.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * In-process on PostgreSQL, or on PGlite when no server holds the data directory; through the
 * running server's operator API when one does (PGlite files are one process's alone).
 */
export async function connectOperator(config: Config): Promise<Operator> {
  const local = await openLocalDatabase(config);
  if ('server' in local) {
    const token = config.adminToken ?? readStoredAdminToken(config.dataDir);
    if (!token) throw new Error(`A server is running on ${local.server.url} but no ADMIN_TOKEN is set or stored in ${config.dataDir}`);
    return overHttp(local.server.url, token);
  }
  try {
    await migrate(local.db);
  } catch (err) {
    await local.close();
    throw err;
  }
  return inProcess(local, config);
}
