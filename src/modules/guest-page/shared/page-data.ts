// What the server hands the page's script, in a JSON data block (not executed, so the CSP holds).
import type { OpenWindow, OrderingInfo } from './availability.js';
import type { FoodNames } from './food.js';
import type { UiStrings } from './strings.js';

export type PageMode = 'table' | 'menu';
export type GuestOrderType = 'dine_in' | 'pickup' | 'delivery';
export type GuestPayment = 'cash' | 'terminal';

export interface PageData {
  slug: string;
  mode: PageMode;
  table: { id: string; name: string } | null;
  locale: string;
  currency: string;
  /** The venue's timezone (IANA): times are shown in it. */
  timeZone: string;
  /** The order types this link can place, in the order offered; empty when the venue takes no orders. */
  orderTypes: GuestOrderType[];
  /** Whether guests can order now, as the guest menu says it when the page was made. */
  ordering: OrderingInfo;
  /**
   * The venue's open windows from when the page was made to a day past maxDaysAhead, when scheduled
   * orders are on (empty otherwise): the script offers the quarter hours inside them.
   */
  windows: OpenWindow[];
  payments: GuestPayment[];
  deliveryFeeMinor: number;
  freeDeliveryFromMinor: number | null;
  minOrderMinor: number;
  /** The guest menu JSON (modifier groups and option ids), in this page's locale. */
  menuUrl: string;
  orderUrl: string;
  /** The status page of an order: this, then its token. */
  statusPageBase: string;
  strings: UiStrings;
  /** The allergen and dietary label names in this page's language only. */
  food: FoodNames;
}

export interface StatusPageData {
  slug: string;
  locale: string;
  currency: string;
  orderUrl: string;
  menuPage: string;
  strings: UiStrings;
}

/** The order of the steps the status page shows (cancelled replaces them). */
export const STATUS_STEPS = ['new', 'confirmed', 'preparing', 'delivering', 'completed'] as const;
export type GuestOrderStatus = (typeof STATUS_STEPS)[number] | 'cancelled';

export type StepState = 'done' | 'current' | 'todo';

/**
 * Where an order is among its steps; none once cancelled. Delivering is a step of deliveries, and
 * of any order the venue moves there (the state machine allows it for every type). A completed
 * order has every step done, the last too: it looks finished, not like a step to come.
 */
export function stepStates(status: GuestOrderStatus, type: GuestOrderType): { step: (typeof STATUS_STEPS)[number]; state: StepState }[] {
  if (status === 'cancelled') return [];
  const steps = STATUS_STEPS.filter((s) => s !== 'delivering' || type === 'delivery' || status === 'delivering');
  const at = status === 'completed' ? steps.length : steps.indexOf(status);
  return steps.map((step, i) => ({ step, state: i < at ? 'done' : i === at ? 'current' : 'todo' }));
}

/** Statuses after which nothing changes: the status page stops polling. */
export const FINAL_STATUSES: readonly GuestOrderStatus[] = ['completed', 'cancelled'];

/** What the status page says under the steps once the order is over; null while it goes on. */
export function finalNote(status: GuestOrderStatus, strings: Pick<UiStrings, 'cancelledHelp' | 'completedHelp'>): string | null {
  if (status === 'cancelled') return strings.cancelledHelp;
  return status === 'completed' ? strings.completedHelp : null;
}
