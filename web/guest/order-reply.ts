// What the server's answer to placing an order means for the page: placed (on to its status page),
// items sold out since the menu was read, ordering closed since the page was read, or errors to
// show at the checkout. No DOM: the checkout (checkout.ts) acts on it, the unit tests read it.
import type { OrderingInfo } from '../../src/modules/guest-page/shared/availability.js';
import type { PageData } from '../../src/modules/guest-page/shared/page-data.js';

/** The error envelope as the checkout reads it; details as ITEM_UNAVAILABLE and ORDERING_CLOSED give them. */
export interface ErrorEnvelope {
  code?: string;
  message?: string;
  errors?: string[];
  details?: { items?: { productId: string; optionId: string | null }[]; reason?: OrderingInfo['reason']; opensAt?: string | null };
}

export type OrderReply =
  | { kind: 'placed'; token: string }
  | { kind: 'unavailable'; items: { productId: string; optionId: string | null }[] }
  | { kind: 'closed'; reason?: OrderingInfo['reason']; opensAt?: string | null }
  /** `messages` empty: nothing readable came back (show the network error). */
  | { kind: 'refused'; messages: string[] };

/** Reads an answer: its status, its Location (the order's token is its last segment) and its body when an error. */
export function readReply(status: number, location: string | null, envelope: ErrorEnvelope | null): OrderReply {
  if (status === 201 || status === 200) return { kind: 'placed', token: (location ?? '').split('/').pop() ?? '' };
  if (status === 409 && envelope?.code === 'ITEM_UNAVAILABLE') return { kind: 'unavailable', items: envelope.details?.items ?? [] };
  if (status === 409 && envelope?.code === 'ORDERING_CLOSED') {
    return { kind: 'closed', reason: envelope.details?.reason, opensAt: envelope.details?.opensAt };
  }
  if (envelope?.errors?.length) return { kind: 'refused', messages: envelope.errors };
  const message = envelope?.message ?? null;
  return { kind: 'refused', messages: message === null ? [] : [message] };
}

/** The status page of a placed order, in the page's language. */
export function statusPageUrl(data: Pick<PageData, 'statusPageBase' | 'locale'>, token: string): string {
  return `${data.statusPageBase}${encodeURIComponent(token)}?lang=${encodeURIComponent(data.locale)}`;
}
