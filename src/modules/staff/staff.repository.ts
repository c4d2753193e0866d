// SQL of staff accounts (migration 0021): members, the invites issued to them and the end of their
// sessions when the account changes. Sign-in, sessions and invites taken are the console's
// (console/sessions.repository.ts). Every function takes the venue id first, but for the directory
// look-up that finds the tenant: a member by id (the operator API).
import type { Queryable } from '../../db/port.js';

export type StaffRole = 'owner' | 'manager' | 'staff';

export interface StaffRow {
  venue_id: string;
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  disabled: boolean;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

const MEMBER = 'venue_id, id, email, name, role, disabled, password_hash, created_at, updated_at';

export async function insertMember(
  db: Queryable,
  venueId: string,
  m: { id: string; email: string; name: string; role: StaffRole; at: Date },
): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRow>(
    `insert into staff_members (venue_id, id, email, name, role, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $6)
     on conflict (venue_id, email) do nothing
     returning ${MEMBER}`,
    [venueId, m.id, m.email, m.name, m.role, m.at],
  );
  return rows[0] ?? null;
}

export async function listMembers(
  db: Queryable,
  venueId: string,
  limit: number,
  offset: number,
): Promise<{ rows: StaffRow[]; total: number }> {
  const { rows } = await db.query<StaffRow & { total: number }>(
    `select ${MEMBER}, (count(*) over ())::int as total from staff_members where venue_id = $1
     order by created_at, id limit $2 offset $3`,
    [venueId, limit, offset],
  );
  if (rows.length > 0 || offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const counted = await db.query<{ total: number }>('select count(*)::int as total from staff_members where venue_id = $1', [venueId]);
  return { rows, total: counted.rows[0].total };
}

/** Directory look-up: the operator API names a member by id alone. */
export async function findMemberById(db: Queryable, id: string): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRow>(`select ${MEMBER} from staff_members where id = $1`, [id]);
  return rows[0] ?? null;
}

export async function findMember(db: Queryable, venueId: string, id: string): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRow>(`select ${MEMBER} from staff_members where venue_id = $1 and id = $2`, [venueId, id]);
  return rows[0] ?? null;
}

export async function updateMember(
  db: Queryable,
  venueId: string,
  id: string,
  patch: { name?: string; role?: StaffRole; disabled?: boolean; at: Date },
): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRow>(
    `update staff_members set name = coalesce($3, name), role = coalesce($4, role), disabled = coalesce($5, disabled), updated_at = $6
     where venue_id = $1 and id = $2 returning ${MEMBER}`,
    [venueId, id, patch.name ?? null, patch.role ?? null, patch.disabled ?? null, patch.at],
  );
  return rows[0] ?? null;
}

export async function setPassword(db: Queryable, venueId: string, id: string, passwordHash: string | null, at: Date): Promise<void> {
  await db.query('update staff_members set password_hash = $3, updated_at = $4 where venue_id = $1 and id = $2', [
    venueId,
    id,
    passwordHash,
    at,
  ]);
}

/** The same password under today's hashing parameters: only if the hash is still the one verified. */
export async function rehashPassword(db: Queryable, venueId: string, id: string, verified: string, rehashed: string): Promise<void> {
  await db.query('update staff_members set password_hash = $4 where venue_id = $1 and id = $2 and password_hash = $3', [
    venueId,
    id,
    verified,
    rehashed,
  ]);
}

export async function deleteMember(db: Queryable, venueId: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>('delete from staff_members where venue_id = $1 and id = $2 returning id', [venueId, id]);
  return rows.length > 0;
}

// ---- invites --------------------------------------------------------------------------------------

/** The member's one live invite: any older one is deleted in the same statement's transaction. */
export async function replaceInvite(
  db: Queryable,
  venueId: string,
  invite: { id: string; staffId: string; tokenHash: string; at: Date; expiresAt: Date },
): Promise<void> {
  await db.query('delete from staff_invites where venue_id = $1 and staff_id = $2', [venueId, invite.staffId]);
  await db.query(`insert into staff_invites (venue_id, id, staff_id, token_hash, created_at, expires_at) values ($1, $2, $3, $4, $5, $6)`, [
    venueId,
    invite.id,
    invite.staffId,
    invite.tokenHash,
    invite.at,
    invite.expiresAt,
  ]);
}

// ---- sessions ended by an account change ------------------------------------------------------------

/**
 * Signs the member out everywhere. Staff sits below the console (MODULE_ORDER), so a change to the
 * account ends the sessions here, in its own transaction; the console's other session SQL is its own.
 */
export async function deleteMemberSessions(db: Queryable, venueId: string, staffId: string): Promise<void> {
  await db.query('delete from staff_sessions where venue_id = $1 and staff_id = $2', [venueId, staffId]);
}
