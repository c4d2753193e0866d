// Whether guests may order now, pure: the order settings, the opening hours and an
// instant in; the guest menu's `ordering` object and the rules for `scheduledFor` out.
import { DAY_MS, ORDERING_HORIZON_MS } from '../../limits.js';
import type { OrderingView } from './availability.schemas.js';
import { isoOrNull, Validity } from './item-availability.js';
import type { Hours } from '../../shared/opening-hours.js';

/** What the rules read of the order settings. */
export interface OrderingConfig {
  acceptingOrders: boolean;
  pausedUntil: string | null;
  prepTimeMinutes: number;
  scheduledOrders: { enabled: boolean; maxDaysAhead: number };
}

/** The guest menu's `ordering` at `at`, and the next instant it may change (a cache bound). */
export function orderingAt(config: OrderingConfig, hours: Hours, at: number): { view: OrderingView; validUntil: number } {
  const paused = config.pausedUntil === null ? null : Date.parse(config.pausedUntil);
  const isPaused = paused !== null && paused > at;
  const validity = new Validity(at);
  validity.boundary(paused);
  validity.boundary(hours.nextChange(at, validity.until - at));
  const validUntil = validity.until;
  const base = {
    prepTimeMinutes: config.prepTimeMinutes,
    scheduledOrders: { enabled: config.scheduledOrders.enabled, maxDaysAhead: config.scheduledOrders.maxDaysAhead },
  };
  if (!config.acceptingOrders)
    return { view: { open: false, reason: 'not_accepting', opensAt: null, closesAt: null, ...base }, validUntil };
  if (isPaused) {
    // Open again once the pause has ended and the hours are open.
    const opens = hours.opensAt(paused, ORDERING_HORIZON_MS - (paused - at));
    return { view: { open: false, reason: 'paused', opensAt: isoOrNull(opens), closesAt: null, ...base }, validUntil };
  }
  if (!hours.isOpenAt(at))
    return {
      view: { open: false, reason: 'closed', opensAt: isoOrNull(hours.opensAt(at, ORDERING_HORIZON_MS)), closesAt: null, ...base },
      validUntil,
    };
  return {
    view: { open: true, reason: null, opensAt: null, closesAt: isoOrNull(hours.closesAfter(at, ORDERING_HORIZON_MS)), ...base },
    validUntil,
  };
}

/** Problems of a `scheduledFor`, each naming it; none: the time is acceptable. */
export function scheduledForProblems(scheduledFor: string, config: OrderingConfig, hours: Hours, now: number): string[] {
  const at = Date.parse(scheduledFor);
  if (!config.scheduledOrders.enabled) return ['scheduledFor is not accepted: this venue does not take scheduled orders'];
  if (at < now + config.prepTimeMinutes * 60_000) return [`scheduledFor must be at least ${config.prepTimeMinutes} minutes from now`];
  if (at > now + config.scheduledOrders.maxDaysAhead * DAY_MS)
    return [`scheduledFor must be at most ${config.scheduledOrders.maxDaysAhead} days ahead`];
  if (!hours.isOpenAt(at)) return ["scheduledFor must be within the venue's opening hours"];
  return [];
}
