import type { Database } from '../../db/port.js';
import { uuidv7 } from '../../ids.js';
import * as staff from '../staff/index.js';
import type { Plan, SubscriptionStatus, VenuesService } from '../venues/index.js';
import { passwordProblem } from './password-strength.js';
import { PASSWORD_MAX_LENGTH, type PasswordHasher } from './passwords.js';
import * as sessions from './sessions.repository.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
/** A session ends after 12 hours without a request, and after 7 days in any case. */
export const SESSION_IDLE_MS = 12 * HOUR;
export const SESSION_MAX_MS = 7 * 24 * HOUR;
/**
 * Per client address (docs/decisions.md): five failed sign-ins for one email from one
 * address within 15 minutes lock that email for that address for 15 minutes.
 */
export const LOCK_FAILURES = 5;
export const LOCK_WINDOW_MS = 15 * MINUTE;
export const LOCK_MS = 15 * MINUTE;
/** An address a member signed in from (or set their password from) is known for them this long. */
export const KNOWN_ADDRESS_MS = 30 * 24 * HOUR;
// last_seen is written at most once a minute per session: a board's requests need not each write.
const TOUCH_EVERY_MS = MINUTE;
// Memberships of one email (across venues) a sign-in looks at; it checks the oldest that may sign in.
const MAX_MEMBERSHIPS = 5;

/** The signed-in member, as every console route sees them. */
export interface ConsoleSession {
  sessionId: string;
  venueId: string;
  venueName: string;
  /** What the venue's rules need: its plan and currency (the console acts on the live venue). */
  plan: Plan;
  currency: string;
  /** The live venue's subscription as the session was read: an inactive one refuses the board's API. */
  subscriptionStatus: SubscriptionStatus;
  memberId: string;
  memberName: string;
  role: staff.StaffRole;
}

export type InviteOutcome = { ok: true } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'password'; problem: string };

/** Why a sign-in failed, for the operators' log (the person signing in is told none of it). */
export type SignInFailure = 'unknown_email' | 'wrong_password' | 'too_long' | 'disabled' | 'no_password' | 'locked';

export type SignInOutcome =
  | { ok: true; token: string; memberId: string }
  | {
      ok: false;
      reason: SignInFailure;
      /** The member the email names (the oldest, with several venues), when there is one. */
      memberId: string | null;
      /** Set when this failure locked the address for a member. */
      lockedUntil: Date | null;
    };

/** Gives back what a limit counted, when the attempt succeeded or was never made. */
export type Refund = () => Promise<void>;

/**
 * What sign-in must pass before it hashes (the HTTP layer's SignInBudget, docs/security.md):
 * failure budgets per client address and per email, and a cap on hashes at once. Each throws a
 * 429 (or 503) at once when spent; attempts are counted up front and given back when they succeed,
 * so only failures spend a budget.
 */
export interface SignInLimits {
  admitAddress(address: string): Promise<Refund>;
  /** Asked only from an address the email's member has not signed in from lately. */
  admitEmail(email: string): Promise<Refund>;
  /** A hashing slot for the address (after its earlier attempts, if any wait); returns its release. */
  hashingSlot(address: string): Promise<() => void>;
}

/**
 * The console's accounts side: invite links that set a password, sign-in with its
 * limits and locks, sessions with idle and absolute expiry on the injected clock. Sessions, failures and the
 * last-seen time are bookkeeping no memo reads, written through `db.unread` (they move no epoch).
 */
export class ConsoleAuthService {
  constructor(
    private readonly db: Database,
    private readonly venues: Pick<VenuesService, 'get'>,
    private readonly clock: () => number,
    private readonly hasher: PasswordHasher,
    private readonly limits: SignInLimits,
    /** The name of the session cookie (console routes and the board's API read it). */
    readonly sessionCookie: string,
  ) {}

  /** Whether the invite link still works (exists, not used, not expired). */
  async inviteValid(token: string): Promise<boolean> {
    const invite = await sessions.findInviteByHash(this.db, staff.hashToken(token));
    return invite !== null && invite.expires_at.getTime() > this.clock();
  }

  /**
   * Sets the password through the link, which then works no more; any session of the member ends,
   * and so do their failed sign-ins and locks from every address (a locked member resets this way).
   * `address` is the client's: known for the member from now on.
   */
  async acceptInvite(token: string, password: string, address: string): Promise<InviteOutcome> {
    const invite = await sessions.findInviteByHash(this.db, staff.hashToken(token));
    if (!invite || invite.expires_at.getTime() <= this.clock()) return { ok: false, reason: 'invalid' };
    const member = await staff.findMember(this.db, invite.venue_id, invite.staff_id);
    if (!member) return { ok: false, reason: 'invalid' };
    const venue = await this.venues.get(invite.venue_id);
    const problem = await passwordProblem(password, [member.email, member.name, venue.name]);
    if (problem) return { ok: false, reason: 'password', problem };
    const passwordHash = await this.hasher.hash(password);
    const at = new Date(this.clock());
    const taken = await this.db.transaction(
      async (tx) => {
        // Deleting the invite is what uses it: of two submissions at once, one deletes it.
        if (!(await sessions.takeInvite(tx, invite.venue_id, invite.id))) return false;
        await staff.setPassword(tx, invite.venue_id, invite.staff_id, passwordHash, at);
        await staff.deleteMemberSessions(tx, invite.venue_id, invite.staff_id);
        await sessions.clearFailuresAndLocks(tx, invite.venue_id, invite.staff_id);
        await sessions.rememberAddress(tx, invite.venue_id, invite.staff_id, address, at);
        return true;
      },
      { venueId: invite.venue_id },
    );
    return taken ? { ok: true } : { ok: false, reason: 'invalid' };
  }

  /**
   * A new session's token, or why not. Every attempt that gets past the limits runs exactly one
   * hash at today's cost, whether the email is unknown, the member disabled, invited or locked from
   * this address, or the password too long (no account enumeration by time); the person is told
   * the same in every case. `address` is the client's key (an IPv4 address or an IPv6 /64).
   */
  async signIn(email: string, password: string, address: string): Promise<SignInOutcome> {
    const now = this.clock();
    const normalized = email.trim().toLowerCase();
    // The address's budget and a hashing slot first, before any query: a flood past them costs
    // the server next to nothing.
    const refunds: Refund[] = [await this.limits.admitAddress(address)];
    const refund = () => Promise.all(refunds.map((r) => r())).then(() => undefined);
    let release: () => void;
    try {
      release = await this.limits.hashingSlot(address);
    } catch (err) {
      // Refused before any work: no attempt was made, so none is counted.
      await refund();
      throw err;
    }
    let members: sessions.SignInMemberRow[];
    let candidate: sessions.SignInMemberRow | null;
    let matched = false;
    let rehashed: string | null = null;
    try {
      members = await sessions.findSignInMembers(
        this.db,
        normalized,
        address,
        new Date(now),
        new Date(now - KNOWN_ADDRESS_MS),
        MAX_MEMBERSHIPS,
      );
      if (!members.some((m) => m.known)) refunds.push(await this.limits.admitEmail(normalized));
      // One membership is checked (the oldest that may sign in from here), so the work is one hash.
      candidate = members.find((m) => !m.locked && !m.disabled && m.password_hash !== null) ?? null;
      matched = await this.hasher.verify(password, candidate?.password_hash ?? null);
      if (matched && this.hasher.outdated(candidate!.password_hash!)) rehashed = await this.hasher.hash(password);
    } catch (err) {
      release();
      await refund();
      throw err;
    }
    release();
    if (!matched || !candidate) return this.failed(members, candidate, password, address, now);
    await refund();
    if (rehashed) await staff.rehashPassword(this.db.unread, candidate.venue_id, candidate.id, candidate.password_hash!, rehashed);
    const { token, hash } = staff.newToken();
    await sessions.signedInFrom(this.db.unread, candidate.venue_id, candidate.id, address, new Date(now));
    await sessions.insertSession(this.db.unread, candidate.venue_id, {
      id: uuidv7(),
      staffId: candidate.id,
      tokenHash: hash,
      at: new Date(now),
    });
    return { ok: true, token, memberId: candidate.id };
  }

  /** Counts the failure from `address` for every member with the email not locked there yet; the fifth locks. */
  private async failed(
    members: sessions.SignInMemberRow[],
    candidate: sessions.SignInMemberRow | null,
    password: string,
    address: string,
    now: number,
  ): Promise<SignInOutcome> {
    let lockedUntil: Date | null = null;
    for (const m of members) {
      if (m.locked) continue;
      const count = await sessions.recordFailure(this.db.unread, m.venue_id, m.id, address, new Date(now), new Date(now - LOCK_WINDOW_MS));
      if (count >= LOCK_FAILURES) {
        lockedUntil = new Date(now + LOCK_MS);
        await sessions.lockAddress(this.db.unread, m.venue_id, m.id, address, lockedUntil);
      }
    }
    return {
      ok: false,
      reason: failureReason(members, candidate, password),
      memberId: candidate?.id ?? members[0]?.id ?? null,
      lockedUntil,
    };
  }

  /** The session the cookie's token names, or null when there is none or it has expired (then it is deleted). */
  async session(token: string): Promise<ConsoleSession | null> {
    const row = await sessions.findSessionByHash(this.db, staff.hashToken(token));
    if (!row) return null;
    const now = this.clock();
    const expired = now - row.last_seen_at.getTime() > SESSION_IDLE_MS || now - row.created_at.getTime() > SESSION_MAX_MS;
    if (expired || row.member_disabled) {
      await sessions.deleteSession(this.db.unread, row.venue_id, row.id);
      return null;
    }
    if (now - row.last_seen_at.getTime() >= TOUCH_EVERY_MS)
      await sessions.touchSession(this.db.unread, row.venue_id, row.id, new Date(now));
    const venue = await this.venues.get(row.venue_id);
    return {
      sessionId: row.id,
      venueId: row.venue_id,
      venueName: venue.name,
      plan: venue.plan,
      currency: venue.currency,
      subscriptionStatus: venue.subscriptionStatus,
      memberId: row.staff_id,
      memberName: row.member_name,
      role: row.member_role,
    };
  }

  /** Deletes what has ended on the clock: sessions past their expiry, invite links past theirs, old failures. */
  async sweep(): Promise<number> {
    const now = this.clock();
    return sessions.sweepExpired(this.db.unread, {
      idleBefore: new Date(now - SESSION_IDLE_MS),
      openedBefore: new Date(now - SESSION_MAX_MS),
      now: new Date(now),
      failedBefore: new Date(now - LOCK_WINDOW_MS),
      knownBefore: new Date(now - KNOWN_ADDRESS_MS),
    });
  }

  async signOut(session: ConsoleSession): Promise<void> {
    await sessions.deleteSession(this.db.unread, session.venueId, session.sessionId);
  }
}

function failureReason(members: sessions.SignInMemberRow[], candidate: sessions.SignInMemberRow | null, password: string): SignInFailure {
  if (candidate) return password.length > PASSWORD_MAX_LENGTH ? 'too_long' : 'wrong_password';
  if (members.length === 0) return 'unknown_email';
  if (members.some((m) => m.locked)) return 'locked';
  if (members.some((m) => m.disabled)) return 'disabled';
  return 'no_password';
}
