import type { Database, Queryable } from '../../db/port.js';
import { errors } from '../../errors.js';
import { assertIfMatch } from '../../shared/etag.js';
import { listEnvelope, pageWindow } from '../../shared/pagination.js';
import { randomBase62, uuidv7 } from '../../ids.js';
import { audit, type Actor } from '../audit/index.js';
import { readSettings } from '../settings/index.js';
import { requireActiveSubscription } from '../venues/index.js';
import { countRows, deleteRow, insertRow, updateRow } from '../../db/keyed-rows.js';
import { lockMerch } from '../../db/venue-locks.js';
import { assertRoom, ChangeSet } from '../../shared/writes.js';
import { mapViolations } from './merch-rules.js';
import { etagged, type Etagged } from '../../shared/etag.js';
import { CODES_PER_PAGE, qrPng, qrSheet, qrSvg } from './qr.js';
import { activeTables, findTable, findTableByToken, listTables, type TableRow } from './tables.repository.js';
import type { GuestTableView, TableCreateInput, TablePatchInput, TableView } from './tables.schemas.js';

/** 128 bits from the CSPRNG in base62: the unguessable part of a table's link. */
const newToken = () => randomBase62(22);

const PLAIN_FIELDS = { externalId: 'external_id', name: 'name', seats: 'seats', zone: 'zone', isActive: 'is_active' } as const;

/** QR tables: CRUD, plan limit, their codes and printable sheets. */
export class TablesService {
  constructor(
    private readonly db: Database,
    private readonly publicBaseUrl: string,
  ) {}

  /** The guest's link: PUBLIC_BASE_URL/t/<token>. */
  qrUrl(token: string): string {
    return `${this.publicBaseUrl}/t/${token}`;
  }

  private view(row: TableRow): TableView {
    return {
      id: row.id,
      externalId: row.external_id,
      name: row.name,
      seats: row.seats,
      zone: row.zone,
      isActive: row.is_active,
      qrUrl: this.qrUrl(row.token),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private async load(db: Queryable, venueId: string, id: string, forUpdate = false): Promise<TableRow> {
    const row = await findTable(db, venueId, id, forUpdate);
    if (!row) throw errors.tableNotFound();
    return row;
  }

  async list(venueId: string, query: { page?: number; limit?: number }) {
    const { page, limit, offset } = pageWindow(query);
    const { rows, total } = await listTables(this.db, venueId, limit, offset);
    return listEnvelope(
      rows.map((r) => this.view(r)),
      total,
      page,
      limit,
    );
  }

  async get(venueId: string, id: string): Promise<Etagged<TableView>> {
    return etagged(this.view(await this.load(this.db, venueId, id)));
  }

  /** 400 TABLE_LIMIT_REACHED past the plan; 409 TABLE_NAME_ALREADY_EXISTS, decided by the database. */
  async create(actor: Actor, input: TableCreateInput): Promise<Etagged<TableView>> {
    const { venue } = actor;
    const venueId = venue.venueId;
    return this.db.transaction(
      async (tx) => {
        await lockMerch(tx, venueId);
        assertRoom(venue.planDefinition.limits.maxQrTables, await countRows(tx, venueId, 'venue_tables'), (d) =>
          errors.merchLimit('TABLE_LIMIT_REACHED', 'QR tables', d),
        );
        const id = uuidv7();
        await mapViolations({ externalId: input.externalId }, () =>
          insertRow(tx, venueId, 'venue_tables', {
            id,
            external_id: input.externalId ?? null,
            name: input.name,
            seats: input.seats ?? null,
            zone: input.zone ?? null,
            is_active: input.isActive ?? true,
            token: newToken(),
          }),
        );
        await audit(tx, actor, [
          {
            action: 'table.create',
            entityType: 'table',
            entityRef: input.externalId ?? id,
            changes: { id, externalId: input.externalId ?? null },
          },
        ]);
        return etagged(this.view(await this.load(tx, venueId, id)));
      },
      { venueId },
    );
  }

  async patch(actor: Actor, id: string, input: TablePatchInput, ifMatch: string | undefined): Promise<Etagged<TableView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        const current = etagged(this.view(row));
        assertIfMatch(ifMatch, current.etag);
        const change = new ChangeSet(row).plain(input, PLAIN_FIELDS);
        if (change.empty) return current;
        await mapViolations({ externalId: input.externalId }, () => updateRow(tx, venueId, 'venue_tables', row.id, change.changes));
        await audit(tx, actor, [
          { action: 'table.update', entityType: 'table', entityRef: row.external_id ?? row.id, changes: { fields: change.fields } },
        ]);
        return etagged(this.view(await this.load(tx, venueId, row.id)));
      },
      { venueId },
    );
  }

  /** A new link for a table whose code leaked: the old one stops working at once. */
  async regenerateToken(actor: Actor, id: string): Promise<Etagged<TableView>> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        await updateRow(tx, venueId, 'venue_tables', row.id, { token: newToken() });
        await audit(tx, actor, [
          { action: 'table.update', entityType: 'table', entityRef: row.external_id ?? row.id, changes: { fields: ['qrUrl'] } },
        ]);
        return etagged(this.view(await this.load(tx, venueId, row.id)));
      },
      { venueId },
    );
  }

  async delete(actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const row = await this.load(tx, venueId, id, true);
        await deleteRow(tx, venueId, 'venue_tables', row.id);
        await audit(tx, actor, [
          {
            action: 'table.delete',
            entityType: 'table',
            entityRef: row.external_id ?? row.id,
            changes: { id: row.id, externalId: row.external_id },
          },
        ]);
        return { id: row.id, deleted: true as const };
      },
      { venueId },
    );
  }

  async qr(venueId: string, id: string, format: 'svg'): Promise<string>;
  async qr(venueId: string, id: string, format: 'png', size: number): Promise<Buffer>;
  async qr(venueId: string, id: string, format: 'svg' | 'png', size = 512): Promise<string | Buffer> {
    const row = await this.load(this.db, venueId, id);
    return format === 'svg' ? qrSvg(this.qrUrl(row.token)) : qrPng(this.qrUrl(row.token), size);
  }

  /** Every active table's code on A4 pages (12 a page), or the one page asked for. */
  async sheet(venueId: string, page: number | undefined): Promise<string> {
    const { name } = await readSettings(this.db, venueId);
    const rows = await activeTables(this.db, venueId);
    const pages = Math.max(1, Math.ceil(rows.length / CODES_PER_PAGE));
    if (page !== undefined && page > pages)
      throw errors.validation([`page must be at most ${pages} (${rows.length} active tables, ${CODES_PER_PAGE} a page)`]);
    const wanted = page === undefined ? Array.from({ length: pages }, (_, i) => i + 1) : [page];
    return qrSheet(
      name,
      rows.map((r) => ({ url: this.qrUrl(r.token), name: r.name, zone: r.zone })),
      wanted,
    );
  }

  /** An active table of the venue by its id, or null: what a dine-in order may name. */
  async activeTable(venueId: string, id: string): Promise<{ id: string; name: string } | null> {
    const row = await findTable(this.db, venueId, id);
    return row && row.is_active ? { id: row.id, name: row.name } : null;
  }

  /** The page of an active table (its QR link's path), or null: where a dine-in guest goes back to. */
  async guestPath(venueId: string, tableId: string): Promise<string | null> {
    const row = await findTable(this.db, venueId, tableId);
    return row && row.is_active ? `/t/${row.token}` : null;
  }

  /** What a guest's QR code leads to; an unknown or deactivated table is 404 TABLE_NOT_FOUND. */
  async forGuest(token: string): Promise<GuestTableView> {
    const row = await findTableByToken(this.db, token);
    if (!row || !row.is_active) throw errors.tableNotFound();
    requireActiveSubscription(row.subscription_status);
    return { venue: { slug: row.slug, name: row.venue_name }, table: { id: row.id, name: row.name, zone: row.zone } };
  }
}
