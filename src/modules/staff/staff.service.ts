import { createHash } from 'node:crypto';
import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { randomBase62, uuidv7 } from '../../ids.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { auditFrom, withMember, type AuditRecord, type ConsoleMember } from '../audit/index.js';
import type { VenuesService } from '../venues/index.js';
import * as staff from './staff.repository.js';
import type {
  StaffCreateInput,
  StaffInvitedView,
  StaffListQueryValue,
  StaffListView,
  StaffMemberView,
  StaffPatchInput,
} from './staff.schemas.js';

/** An invite link works once, for 7 days. */
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_LENGTH = 43; // base62: 256 bits

/** A console secret (invite link, session) as stored: its sha256, never the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A fresh console secret and its hash. */
export function newToken(): { token: string; hash: string } {
  const token = randomBase62(TOKEN_LENGTH);
  return { token, hash: hashToken(token) };
}

export function memberView(row: staff.StaffRow): StaffMemberView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.password_hash === null ? 'invited' : 'active',
    disabled: row.disabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Who asked for a change: the request (or CLI run) it is audited under; from the console, also the
 * owner who made it and their venue, outside which no member is found.
 */
export interface StaffCall {
  requestId: string;
  console?: { venueId: string; member: ConsoleMember };
}

/**
 * Staff accounts: invite, list, change, re-invite, remove, by the operator or by an
 * owner in the console. Each write is audited in the venue's log with source `operator` or
 * `console` (the owner named): field names, never values, and never a token or hash.
 */
export class StaffService {
  /** Told after a change that may have ended sessions (the console's open boards check theirs). */
  onMembersChanged: (venueId: string) => void = () => {};

  constructor(
    private readonly db: Database,
    private readonly venues: Pick<VenuesService, 'get'>,
    private readonly publicBaseUrl: string,
    private readonly clock: () => number,
  ) {}

  private inviteUrl(token: string): string {
    return `${this.publicBaseUrl}/console/invite/${token}`;
  }

  async invite(venueId: string, input: StaffCreateInput, by: StaffCall): Promise<StaffInvitedView> {
    await this.venues.get(venueId);
    const at = new Date(this.clock());
    const { token, hash } = newToken();
    const expiresAt = new Date(at.getTime() + INVITE_TTL_MS);
    const row = await this.db.transaction(
      async (tx) => {
        const member = await staff.insertMember(tx, venueId, {
          id: uuidv7(),
          email: input.email.toLowerCase(),
          name: input.name,
          role: input.role,
          at,
        });
        if (!member) throw errors.staffEmailTaken();
        await staff.replaceInvite(tx, venueId, { id: uuidv7(), staffId: member.id, tokenHash: hash, at, expiresAt });
        await this.audit(tx, venueId, by, {
          action: 'staff.invite',
          entityType: 'staff_member',
          entityRef: member.id,
          changes: { role: member.role },
        });
        return member;
      },
      { venueId },
    );
    return this.invited(row, token, expiresAt);
  }

  async list(venueId: string, query: StaffListQueryValue): Promise<StaffListView> {
    await this.venues.get(venueId);
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await staff.listMembers(this.db, venueId, limit, offset);
    return listEnvelope(rows.map(memberView), total, page, limit);
  }

  async update(id: string, patch: StaffPatchInput, by: StaffCall): Promise<StaffMemberView> {
    const existing = await this.member(id, by);
    if (patch.role !== undefined || patch.disabled !== undefined) notSelf(id, by);
    const at = new Date(this.clock());
    const row = await this.db.transaction(
      async (tx) => {
        const updated = await staff.updateMember(tx, existing.venue_id, id, { ...patch, at });
        if (!updated) throw errors.staffNotFound();
        // A disabled member is signed out everywhere at once.
        if (updated.disabled) await staff.deleteMemberSessions(tx, existing.venue_id, id);
        const fields = Object.keys(patch)
          .filter((k) => patch[k as keyof StaffPatchInput] !== undefined)
          .sort();
        await this.audit(tx, existing.venue_id, by, {
          action: 'staff.update',
          entityType: 'staff_member',
          entityRef: id,
          changes: { fields },
        });
        return updated;
      },
      { venueId: existing.venue_id },
    );
    this.onMembersChanged(existing.venue_id);
    return memberView(row);
  }

  /**
   * A fresh link that is also a password reset: older links stop working, the password is
   * cleared (a leaked one stops working too) and every session of the member ends.
   */
  async reinvite(id: string, by: StaffCall): Promise<StaffInvitedView> {
    const existing = await this.member(id, by);
    notSelf(id, by);
    const at = new Date(this.clock());
    const { token, hash } = newToken();
    const expiresAt = new Date(at.getTime() + INVITE_TTL_MS);
    await this.db.transaction(
      async (tx) => {
        await staff.setPassword(tx, existing.venue_id, id, null, at);
        await staff.deleteMemberSessions(tx, existing.venue_id, id);
        await staff.replaceInvite(tx, existing.venue_id, { id: uuidv7(), staffId: id, tokenHash: hash, at, expiresAt });
        await this.audit(tx, existing.venue_id, by, { action: 'staff.reinvite', entityType: 'staff_member', entityRef: id, changes: {} });
      },
      { venueId: existing.venue_id },
    );
    this.onMembersChanged(existing.venue_id);
    return this.invited(existing, token, expiresAt);
  }

  /** Removes the member; their invites, sessions and failure records go with them (cascade). */
  async remove(id: string, by: StaffCall): Promise<void> {
    const existing = await this.member(id, by);
    notSelf(id, by);
    await this.db.transaction(
      async (tx) => {
        if (!(await staff.deleteMember(tx, existing.venue_id, id))) throw errors.staffNotFound();
        await this.audit(tx, existing.venue_id, by, {
          action: 'staff.remove',
          entityType: 'staff_member',
          entityRef: id,
          changes: { role: existing.role },
        });
      },
      { venueId: existing.venue_id },
    );
    this.onMembersChanged(existing.venue_id);
  }

  private async member(id: string, by: StaffCall): Promise<staff.StaffRow> {
    const row = await staff.findMemberById(this.db, id);
    if (!row || (by.console && row.venue_id !== by.console.venueId)) throw errors.staffNotFound();
    return row;
  }

  private invited(row: staff.StaffRow, token: string, expiresAt: Date): StaffInvitedView {
    return {
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role,
      status: 'invited',
      inviteUrl: this.inviteUrl(token),
      inviteExpiresAt: expiresAt.toISOString(),
    };
  }

  private audit(tx: Parameters<typeof auditFrom>[0], venueId: string, by: StaffCall, record: AuditRecord): Promise<void> {
    if (by.console) return auditFrom(tx, venueId, by.requestId, 'console', [withMember(record, by.console.member)]);
    return auditFrom(tx, venueId, by.requestId, 'operator', [record]);
  }
}

/** An owner keeps the console: they cannot change their own role, disable, reset or remove themselves. */
function notSelf(id: string, by: StaffCall): void {
  if (by.console?.member.id === id) throw errors.staffSelfChange();
}
