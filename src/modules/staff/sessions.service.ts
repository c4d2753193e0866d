import type { Database } from '../../db/port.js';
import { uuidv7 } from '../../ids.js';
import type { Plan, SubscriptionStatus } from '../venues/plans.js';
import type { VenuesService } from '../venues/venues.service.js';
import { hashPassword, passwordProblem, verifyPassword, PASSWORD_MAX_LENGTH } from './passwords.js';
import * as staff from './staff.repository.js';
import { hashToken, newToken } from './staff.service.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
/** Decisions 17: a session ends after 12 hours without a request, and after 7 days in any case. */
export const SESSION_IDLE_MS = 12 * HOUR;
export const SESSION_MAX_MS = 7 * 24 * HOUR;
/** Decisions 17: five failed sign-ins for one email within 15 minutes lock it for 15 minutes. */
export const LOCK_FAILURES = 5;
export const LOCK_WINDOW_MS = 15 * MINUTE;
export const LOCK_MS = 15 * MINUTE;
// last_seen is written at most once a minute per session: a board's requests need not each write.
const TOUCH_EVERY_MS = MINUTE;
// Members one email may be in (across venues) that a sign-in tries.
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

/**
 * The console's accounts side (decisions 17): invite links that set a password, sign-in with the
 * lock, sessions with idle and absolute expiry on the injected clock. Sessions, failures and the
 * last-seen time are bookkeeping no memo reads, written through `db.unread` (they move no epoch).
 */
export class ConsoleAuthService {
  constructor(
    private readonly db: Database,
    private readonly venues: Pick<VenuesService, 'get'>,
    private readonly clock: () => number,
  ) {}

  /** Whether the invite link still works (exists, not used, not expired). */
  async inviteValid(token: string): Promise<boolean> {
    const invite = await staff.findInviteByHash(this.db, hashToken(token));
    return invite !== null && invite.expires_at.getTime() > this.clock();
  }

  /** Sets the password through the link, which then works no more; any session of the member ends. */
  async acceptInvite(token: string, password: string): Promise<InviteOutcome> {
    const invite = await staff.findInviteByHash(this.db, hashToken(token));
    if (!invite || invite.expires_at.getTime() <= this.clock()) return { ok: false, reason: 'invalid' };
    const problem = passwordProblem(password);
    if (problem) return { ok: false, reason: 'password', problem };
    const passwordHash = await hashPassword(password);
    const at = new Date(this.clock());
    const taken = await this.db.transaction(async (tx) => {
      // Deleting the invite is what uses it: of two submissions at once, one deletes it.
      if (!(await staff.takeInvite(tx, invite.venue_id, invite.id))) return false;
      await staff.setPassword(tx, invite.venue_id, invite.staff_id, passwordHash, at);
      await staff.deleteMemberSessions(tx, invite.venue_id, invite.staff_id);
      await staff.clearFailures(tx, invite.venue_id, invite.staff_id);
      return true;
    }, { venueId: invite.venue_id });
    return taken ? { ok: true } : { ok: false, reason: 'invalid' };
  }

  /**
   * A new session's token, or null: the same null for an unknown email, a wrong password, a
   * disabled member or a locked email, each after the same scrypt work (no account enumeration).
   */
  async signIn(email: string, password: string): Promise<string | null> {
    const now = this.clock();
    const members = await staff.findMembersByEmail(this.db, email.trim().toLowerCase(), MAX_MEMBERSHIPS);
    const open = members.filter((m) => m.locked_until === null || m.locked_until.getTime() <= now);
    const candidates = open.filter((m) => !m.disabled && m.password_hash !== null);
    let member: staff.StaffRow | null = null;
    if (password.length <= PASSWORD_MAX_LENGTH) {
      for (const m of candidates) {
        if (await verifyPassword(password, m.password_hash)) {
          member = m;
          break;
        }
      }
    }
    if (candidates.length === 0) await verifyPassword(password, null);
    if (!member) {
      await this.recordFailure(open, now);
      return null;
    }
    const { token, hash } = newToken();
    await staff.clearFailures(this.db.unread, member.venue_id, member.id);
    await staff.insertSession(this.db.unread, member.venue_id, { id: uuidv7(), staffId: member.id, tokenHash: hash, at: new Date(now) });
    return token;
  }

  private async recordFailure(members: staff.StaffRow[], now: number): Promise<void> {
    for (const m of members) {
      const count = await staff.recordFailure(this.db.unread, m.venue_id, m.id, new Date(now), new Date(now - LOCK_WINDOW_MS));
      if (count >= LOCK_FAILURES) await staff.lockMember(this.db.unread, m.venue_id, m.id, new Date(now + LOCK_MS));
    }
  }

  /** The session the cookie's token names, or null when there is none or it has expired (then it is deleted). */
  async session(token: string): Promise<ConsoleSession | null> {
    const row = await staff.findSessionByHash(this.db, hashToken(token));
    if (!row) return null;
    const now = this.clock();
    const expired = now - row.last_seen_at.getTime() > SESSION_IDLE_MS || now - row.created_at.getTime() > SESSION_MAX_MS;
    if (expired || row.member_disabled) {
      await staff.deleteSession(this.db.unread, row.venue_id, row.id);
      return null;
    }
    if (now - row.last_seen_at.getTime() >= TOUCH_EVERY_MS) await staff.touchSession(this.db.unread, row.venue_id, row.id, new Date(now));
    const venue = await this.venues.get(row.venue_id);
    return { sessionId: row.id, venueId: row.venue_id, venueName: venue.name, plan: venue.plan, currency: venue.currency, subscriptionStatus: venue.subscriptionStatus, memberId: row.staff_id, memberName: row.member_name, role: row.member_role };
  }

  /** Deletes what has ended on the clock: sessions past their expiry, invite links past theirs, old failures. */
  async sweep(): Promise<number> {
    const now = this.clock();
    return staff.sweepExpired(this.db.unread, {
      idleBefore: new Date(now - SESSION_IDLE_MS),
      openedBefore: new Date(now - SESSION_MAX_MS),
      now: new Date(now),
      failedBefore: new Date(now - LOCK_WINDOW_MS),
    });
  }

  async signOut(session: ConsoleSession): Promise<void> {
    await staff.deleteSession(this.db.unread, session.venueId, session.sessionId);
  }
}
