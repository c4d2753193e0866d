// SQL of the staff tables (migration 0021). Every function takes the venue id first, but for the
// directory look-ups that find the tenant: a member by id (the operator API), members by email
// (sign-in), an invite or a session by its token's hash.
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
  locked_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

const MEMBER = 'venue_id, id, email, name, role, disabled, password_hash, locked_until, created_at, updated_at';

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

export async function listMembers(db: Queryable, venueId: string, limit: number, offset: number): Promise<{ rows: StaffRow[]; total: number }> {
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

/** Directory look-up for sign-in: every venue's member with this (lower-case) email, oldest first. */
export async function findMembersByEmail(db: Queryable, email: string, limit: number): Promise<StaffRow[]> {
  const { rows } = await db.query<StaffRow>(
    `select ${MEMBER} from staff_members where email = $1 order by created_at, id limit $2`,
    [email, limit],
  );
  return rows;
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
  await db.query(
    'update staff_members set password_hash = $3, locked_until = null, updated_at = $4 where venue_id = $1 and id = $2',
    [venueId, id, passwordHash, at],
  );
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
  await db.query(
    `insert into staff_invites (venue_id, id, staff_id, token_hash, created_at, expires_at) values ($1, $2, $3, $4, $5, $6)`,
    [venueId, invite.id, invite.staffId, invite.tokenHash, invite.at, invite.expiresAt],
  );
}

export interface InviteRow {
  venue_id: string;
  id: string;
  staff_id: string;
  expires_at: Date;
}

/** Directory look-up: an invite by its token's hash. */
export async function findInviteByHash(db: Queryable, tokenHash: string): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>('select venue_id, id, staff_id, expires_at from staff_invites where token_hash = $1', [tokenHash]);
  return rows[0] ?? null;
}

/** Uses the invite: true for the one caller whose statement deleted it. */
export async function takeInvite(db: Queryable, venueId: string, id: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>('delete from staff_invites where venue_id = $1 and id = $2 returning id', [venueId, id]);
  return rows.length > 0;
}

// ---- sessions -------------------------------------------------------------------------------------

export async function insertSession(
  db: Queryable,
  venueId: string,
  s: { id: string; staffId: string; tokenHash: string; at: Date },
): Promise<void> {
  await db.query(
    'insert into staff_sessions (venue_id, id, staff_id, token_hash, created_at, last_seen_at) values ($1, $2, $3, $4, $5, $5)',
    [venueId, s.id, s.staffId, s.tokenHash, s.at],
  );
}

export interface SessionRow {
  venue_id: string;
  id: string;
  staff_id: string;
  created_at: Date;
  last_seen_at: Date;
  member_name: string;
  member_email: string;
  member_role: StaffRole;
  member_disabled: boolean;
}

/** Directory look-up: a session by its token's hash, with its member. */
export async function findSessionByHash(db: Queryable, tokenHash: string): Promise<SessionRow | null> {
  const { rows } = await db.query<SessionRow>(
    `select s.venue_id, s.id, s.staff_id, s.created_at, s.last_seen_at,
            m.name as member_name, m.email as member_email, m.role as member_role, m.disabled as member_disabled
     from staff_sessions s
     join staff_members m on m.venue_id = s.venue_id and m.id = s.staff_id
     where s.token_hash = $1`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function touchSession(db: Queryable, venueId: string, id: string, at: Date): Promise<void> {
  await db.query('update staff_sessions set last_seen_at = $3 where venue_id = $1 and id = $2', [venueId, id, at]);
}

export async function deleteSession(db: Queryable, venueId: string, id: string): Promise<void> {
  await db.query('delete from staff_sessions where venue_id = $1 and id = $2', [venueId, id]);
}

export async function deleteMemberSessions(db: Queryable, venueId: string, staffId: string): Promise<void> {
  await db.query('delete from staff_sessions where venue_id = $1 and staff_id = $2', [venueId, staffId]);
}

// ---- failed sign-ins ------------------------------------------------------------------------------

/**
 * Records a failure and returns how many count now: those within the window that came after the
 * member's last lock (a lock, once over, starts the count afresh). Older ones are dropped.
 */
export async function recordFailure(db: Queryable, venueId: string, staffId: string, at: Date, windowStart: Date): Promise<number> {
  await db.query('delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2 and failed_at < $3', [venueId, staffId, windowStart]);
  await db.query('insert into staff_sign_in_failures (venue_id, staff_id, failed_at) values ($1, $2, $3)', [venueId, staffId, at]);
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from staff_sign_in_failures f
     join staff_members m on m.venue_id = f.venue_id and m.id = f.staff_id
     where f.venue_id = $1 and f.staff_id = $2 and f.failed_at >= $3 and (m.locked_until is null or f.failed_at >= m.locked_until)`,
    [venueId, staffId, windowStart],
  );
  return rows[0].n;
}

export async function lockMember(db: Queryable, venueId: string, staffId: string, until: Date): Promise<void> {
  await db.query('update staff_members set locked_until = $3 where venue_id = $1 and id = $2', [venueId, staffId, until]);
}

export async function clearFailures(db: Queryable, venueId: string, staffId: string): Promise<void> {
  await db.query('delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2', [venueId, staffId]);
}

/**
 * The sweep (a maintenance statement across venues, like the media sweep's look-up): sessions idle
 * since `idleBefore` or opened before `openedBefore`, invite links expired before `now`, and failed
 * sign-ins older than `failedBefore`, which no lock counts any more. Returns how many rows went.
 */
export async function sweepExpired(db: Queryable, at: { idleBefore: Date; openedBefore: Date; now: Date; failedBefore: Date }): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `with sessions as (
       delete from staff_sessions where last_seen_at < $1 or created_at < $2 returning 1
     ), invites as (
       delete from staff_invites where expires_at < $3 returning 1
     ), failures as (
       delete from staff_sign_in_failures where failed_at < $4 returning 1
     )
     select ((select count(*) from sessions) + (select count(*) from invites) + (select count(*) from failures))::int as n`,
    [at.idleBefore, at.openedBefore, at.now, at.failedBefore],
  );
  return rows[0].n;
}
