// SQL of the console's sign-in and sessions (migration 0021's staff_sessions, staff_sign_in_*
// tables and the invites' use): the accounts themselves are the staff module's. Every function
// takes the venue id first, but for the directory look-ups that find the tenant: members by email
// (sign-in), an invite or a session by its token's hash, and the sweep across venues. The look-ups
// read staff_members with what they find, in one statement.
import type { Queryable } from '../../db/port.js';
import type { StaffRole, StaffRow } from '../staff/index.js';

// ---- sign-in ------------------------------------------------------------------------------------

/** A member as sign-in sees them from one client address: locked there, or signed in from there lately. */
export interface SignInMemberRow extends StaffRow {
  locked: boolean;
  known: boolean;
}

/**
 * Directory look-up for sign-in: every venue's member with this (lower-case) email, oldest first,
 * with whether `address` is locked for them at `now` and whether they signed in from it since
 * `knownSince`. One statement whatever the email, so a known email costs what an unknown one does.
 */
export async function findSignInMembers(
  db: Queryable,
  email: string,
  address: string,
  now: Date,
  knownSince: Date,
  limit: number,
): Promise<SignInMemberRow[]> {
  const { rows } = await db.query<SignInMemberRow>(
    `select m.venue_id, m.id, m.email, m.name, m.role, m.disabled, m.password_hash, m.created_at, m.updated_at,
       exists (select 1 from staff_sign_in_locks l
               where l.venue_id = m.venue_id and l.staff_id = m.id and l.address = $2 and l.locked_until > $3) as locked,
       exists (select 1 from staff_sign_in_addresses a
               where a.venue_id = m.venue_id and a.staff_id = m.id and a.address = $2 and a.signed_in_at >= $4) as known
     from staff_members m where m.email = $1 order by m.created_at, m.id limit $5`,
    [email, address, now, knownSince, limit],
  );
  return rows;
}

// ---- invites taken ------------------------------------------------------------------------------

export interface InviteRow {
  venue_id: string;
  id: string;
  staff_id: string;
  expires_at: Date;
}

/** Directory look-up: an invite by its token's hash. */
export async function findInviteByHash(db: Queryable, tokenHash: string): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>('select venue_id, id, staff_id, expires_at from staff_invites where token_hash = $1', [
    tokenHash,
  ]);
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

// ---- failed sign-ins, locks and known addresses (per member and client address) ---------------

/**
 * Records a failure from `address` and returns how many from there count now: those within the
 * window (a lock deletes the ones that led to it, so the count starts afresh after it). Older ones
 * are dropped.
 */
export async function recordFailure(
  db: Queryable,
  venueId: string,
  staffId: string,
  address: string,
  at: Date,
  windowStart: Date,
): Promise<number> {
  // One statement: the count reads the rows as they were before it, so the new failure is the + 1
  // (the dropped rows are older than the window and never counted).
  const { rows } = await db.query<{ n: number }>(
    `with dropped as (
       delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2 and address = $3 and failed_at < $5
     ), added as (
       insert into staff_sign_in_failures (venue_id, staff_id, address, failed_at) values ($1, $2, $3, $4)
     )
     select count(*)::int + 1 as n from staff_sign_in_failures where venue_id = $1 and staff_id = $2 and address = $3 and failed_at >= $5`,
    [venueId, staffId, address, at, windowStart],
  );
  return rows[0].n;
}

/** Locks sign-in for the member from `address` until `until`; the failures that led to it are spent. */
export async function lockAddress(db: Queryable, venueId: string, staffId: string, address: string, until: Date): Promise<void> {
  await db.query(
    `insert into staff_sign_in_locks (venue_id, staff_id, address, locked_until) values ($1, $2, $3, $4)
     on conflict (venue_id, staff_id, address) do update set locked_until = excluded.locked_until`,
    [venueId, staffId, address, until],
  );
  await db.query('delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2 and address = $3', [venueId, staffId, address]);
}

/** A successful sign-in from `address`: its failures are forgiven and the address is known for the member. */
export async function signedInFrom(db: Queryable, venueId: string, staffId: string, address: string, at: Date): Promise<void> {
  await db.query('delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2 and address = $3', [venueId, staffId, address]);
  await rememberAddress(db, venueId, staffId, address, at);
}

export async function rememberAddress(db: Queryable, venueId: string, staffId: string, address: string, at: Date): Promise<void> {
  await db.query(
    `insert into staff_sign_in_addresses (venue_id, staff_id, address, signed_in_at) values ($1, $2, $3, $4)
     on conflict (venue_id, staff_id, address) do update set signed_in_at = excluded.signed_in_at`,
    [venueId, staffId, address, at],
  );
}

/** A new password through an invite link: every failure and lock of the member, from anywhere, ends. */
export async function clearFailuresAndLocks(db: Queryable, venueId: string, staffId: string): Promise<void> {
  await db.query('delete from staff_sign_in_failures where venue_id = $1 and staff_id = $2', [venueId, staffId]);
  await db.query('delete from staff_sign_in_locks where venue_id = $1 and staff_id = $2', [venueId, staffId]);
}

/**
 * The sweep (a maintenance statement across venues, like the media sweep's look-up): sessions idle
 * since `idleBefore` or opened before `openedBefore`, invite links expired and locks ended before
 * `now`, failed sign-ins older than `failedBefore`, which no lock counts any more, and addresses
 * not signed in from since `knownBefore`. Returns how many rows went.
 */
export async function sweepExpired(
  db: Queryable,
  at: { idleBefore: Date; openedBefore: Date; now: Date; failedBefore: Date; knownBefore: Date },
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `with sessions as (
       delete from staff_sessions where last_seen_at < $1 or created_at < $2 returning 1
     ), invites as (
       delete from staff_invites where expires_at < $3 returning 1
     ), failures as (
       delete from staff_sign_in_failures where failed_at < $4 returning 1
     ), locks as (
       delete from staff_sign_in_locks where locked_until <= $3 returning 1
     ), addresses as (
       delete from staff_sign_in_addresses where signed_in_at < $5 returning 1
     )
     select ((select count(*) from sessions) + (select count(*) from invites) + (select count(*) from failures)
             + (select count(*) from locks) + (select count(*) from addresses))::int as n`,
    [at.idleBefore, at.openedBefore, at.now, at.failedBefore, at.knownBefore],
  );
  return rows[0].n;
}
