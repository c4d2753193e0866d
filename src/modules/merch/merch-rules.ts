// Rules the three merchandising resources share: schedules, product references, unique keys
// decided by the database, plan limits.
import { FOREIGN_KEY_VIOLATION, type Queryable, sqlState, UNIQUE_VIOLATION, violatedConstraint } from '../../db/port.js';
import { AppError, errors } from '../../errors.js';
import { findProductByRef } from '../menu/index.js';
import { normaliseScheduleTime, scheduleInstant } from '../../shared/schedule.js';

export interface ScheduleInput {
  startsAt?: string | null;
  endsAt?: string | null;
}

export interface StoredSchedule {
  starts_at: string | null;
  ends_at: string | null;
}

function scheduleTime(field: 'startsAt' | 'endsAt', raw: string | null | undefined, stored: string | null): string | null {
  if (raw === undefined) return stored;
  if (raw === null) return null;
  const value = normaliseScheduleTime(raw);
  if (value === null) {
    throw errors.validation([`${field} must be an ISO 8601 date and time, e.g. 2026-12-24T18:00 (venue time) or 2026-12-24T17:00:00Z`]);
  }
  return value;
}

/**
 * The schedule after a write (omitted keeps, null clears). When the write sets either end, the end
 * must come after the start; a write that leaves both alone is not judged on them (a change of the
 * venue's timezone may since have moved a wall-clock end before an instant start).
 */
export function nextSchedule(input: ScheduleInput, current: StoredSchedule | null, timeZone: string): StoredSchedule {
  const starts = scheduleTime('startsAt', input.startsAt, current?.starts_at ?? null);
  const ends = scheduleTime('endsAt', input.endsAt, current?.ends_at ?? null);
  const touched = input.startsAt !== undefined || input.endsAt !== undefined;
  if (touched && starts !== null && ends !== null && scheduleInstant(ends, timeZone) <= scheduleInstant(starts, timeZone)) {
    throw errors.validation(['endsAt must be after startsAt']);
  }
  return { starts_at: starts, ends_at: ends };
}

/** A product by externalId or id, or 404 PRODUCT_NOT_FOUND (not a warning, as in PATCH). */
export async function productIdOf(db: Queryable, venueId: string, ref: string): Promise<string> {
  const product = await findProductByRef(db, venueId, ref);
  if (!product) throw errors.productNotFound();
  return product.id;
}

/**
 * A write's unique or foreign-key violation as the error the client should see: the database
 * decides races (two creates with one name), not a read before the write.
 */
export function fromViolation(err: unknown, subject: { externalId?: string | null }): AppError | null {
  const constraint = violatedConstraint(err) ?? '';
  if (sqlState(err) === UNIQUE_VIOLATION) {
    if (constraint.endsWith('_external_id_key')) return errors.externalIdTaken(subject.externalId ?? '');
    if (constraint === 'venue_tables_name_key') return errors.tableNameTaken();
    if (constraint === 'promotion_items_product_key') return errors.duplicatePromotionItem();
  }
  // The product was deleted between its look-up and the write.
  if (sqlState(err) === FOREIGN_KEY_VIOLATION && constraint.includes('product')) return errors.productNotFound();
  return null;
}

/** Runs a write, turning its unique and foreign-key violations into their 409 / 404. */
export async function mapViolations<T>(subject: { externalId?: string | null }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw fromViolation(err, subject) ?? err;
  }
}

/** A banner's link must be https. */
export function assertHttpsLink(linkUrl: string | null | undefined): void {
  if (linkUrl === undefined || linkUrl === null) return;
  let url: URL | null = null;
  try {
    url = new URL(linkUrl);
  } catch {
    // reported below
  }
  if (!url || url.protocol !== 'https:' || url.hostname === '') throw errors.validation(['linkUrl must be an https URL']);
}
