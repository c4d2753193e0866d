// What the writes of several features share: the changes a PATCH makes, and the room check of a
// create under a plan's limit.
import { jsonEqual } from '../stable-json.js';

/** A create past the plan's limit, with { limit, available, requested }. */
export function assertRoom(
  limit: number,
  current: number,
  refuse: (details: { limit: number; available: number; requested: number }) => Error,
): void {
  if (current + 1 > limit) throw refuse({ limit, available: Math.max(0, limit - current), requested: 1 });
}

/** What a PATCH changes: the columns to write and the names of the fields that moved (for the audit). */
export class ChangeSet<Row extends object> {
  readonly changes: Record<string, unknown> = {};
  readonly fields: string[] = [];

  constructor(private readonly row: Row) {}

  /** Records `field` when its new value differs from the stored one (jsonb may reorder keys). */
  set(field: string, column: keyof Row & string, value: unknown): void {
    if (jsonEqual(this.row[column], value)) return;
    this.changes[column] = value;
    this.fields.push(field);
  }

  /** Fields stored as sent: each one present in the input is set. */
  plain<I extends object>(input: I, columns: Partial<Record<keyof I & string, keyof Row & string>>): this {
    for (const [field, column] of Object.entries(columns) as [keyof I & string, keyof Row & string][]) {
      const value = input[field];
      if (value !== undefined) this.set(field, column, value);
    }
    return this;
  }

  get empty(): boolean {
    return this.fields.length === 0;
  }
}
