// The time an order is for, as the checkout picks it (scheduled orders): "as soon as
// possible" or a day of the venue's zone, then one of that day's quarter hours. No DOM: the
// checkout's picker (when-picker.ts) draws it, the unit tests drive it.

/** A day the guest may order for (its number in the venue's zone) with its slots, epoch milliseconds. */
export interface SlotDay {
  day: number;
  slots: number[];
}

export const ASAP = 'asap';

export class TimePick {
  /** A day's number as text, or ASAP. */
  day = ASAP;
  /** The picked slot as an ISO instant, on a day. */
  slot: string | null = null;
  /** Whether the checkout offers days at all (scheduled orders on, and a slot ahead). */
  offered = false;

  /**
   * Settles the pick on what `days` offer: a day still offered stays picked; else "as soon as
   * possible" while ordering is open, the first day when it is not.
   */
  settle(days: readonly SlotDay[], open: boolean): void {
    this.offered = days.length > 0;
    if (!this.offered) return;
    const known = days.some((d) => String(d.day) === this.day);
    if (this.day === ASAP ? !open : !known) this.day = open ? ASAP : String(days[0].day);
  }

  chooseDay(day: string): void {
    this.day = day;
    this.slot = null;
  }

  chooseSlot(slot: string): void {
    this.slot = slot;
  }

  /**
   * The picked day's slots as ISO instants, the pick settled on one of them (the first when the one
   * picked before is not among them); null for "as soon as possible".
   */
  slotsOf(days: readonly SlotDay[]): { slots: number[]; values: string[] } | null {
    const day = days.find((d) => String(d.day) === this.day);
    if (!day) return null;
    const values = day.slots.map((slot) => new Date(slot).toISOString());
    if (this.slot === null || !values.includes(this.slot)) this.slot = values[0];
    return { slots: day.slots, values };
  }

  /** The slot picked, as an ISO instant; null for an order for now. */
  get scheduledFor(): string | null {
    return this.offered && this.day !== ASAP ? this.slot : null;
  }
}
