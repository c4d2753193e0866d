// Request limits. The validators, the body-size
// caps, the rate limiters and GET /v1/reference all read these same constants.

export const MB = 1024 * 1024;

export const BODY_LIMIT_BYTES = 5 * MB;
export const MEDIA_BODY_LIMIT_BYTES = 21 * MB;

/** Media: the decoded image or the downloaded source, at most. */
export const MEDIA_BINARY_CAP_BYTES = 15 * MB;
/** The fast lane takes a ready WebP of at most this size. */
export const PREOPTIMIZED_MAX_BYTES = 1 * MB;
/**
 * Decoded pixels an input may have (width x height x frames): about a 58-megapixel photo. Past it an
 * image is refused before it is decoded: a small file can declare a huge canvas (a decompression bomb).
 */
export const MEDIA_MAX_INPUT_PIXELS = 60_000_000;
/** Redirects a remote source may take, each hop checked again by the outbound guard. */
export const MEDIA_MAX_REDIRECTS = 3;

export const SYNC_ARRAY_CAPS = { categories: 200, ingredients: 200, products: 500 } as const;
export const SYNC_NESTED_CAPS = {
  modifierGroupsPerProduct: 20,
  optionsPerModifierGroup: 50,
  ingredientRefsPerProduct: 100,
} as const;
export const CLEANUP_ARRAY_CAP = 1000;
export const TRANSLATIONS_SECTION_CAP = 500;
export const DAY_MS = 86_400_000;

/** PUT /v1/availability entries per section, and how far ahead a sold-out mark may end. */
export const AVAILABILITY_SECTION_MAX = 500;
export const AVAILABILITY_MAX_AHEAD_MS = 30 * DAY_MS;
/** How far ahead the guest menu looks for when ordering opens or closes. */
export const ORDERING_HORIZON_MS = 14 * DAY_MS;
/** A pause of ordering ends at most this far ahead. */
export const PAUSE_MAX_AHEAD_MS = DAY_MS;
export const SYNC_WINDOW_MS = 30_000;

/**
 * Webhook endpoints a venue (and, apart, its sandbox) may register (docs/events.md). One number for
 * every plan that has them: webhooks ride on the paid plans' ordersApi feature, and those plans
 * share their limits.
 */
export const WEBHOOK_ENDPOINTS_PER_VENUE = 10;
/**
 * Live order streams (GET /v1/orders/stream) a venue may hold open on one server: a kitchen screen,
 * a POS and a few spares. Counted per server (each holds its own connections), so N servers allow
 * N times this; the cap bounds what one venue can hold of one server's sockets and memory.
 */
export const ORDER_STREAMS_PER_VENUE = 10;
/** Console boards one venue may hold open on one server (they share one reader: docs/console.md). */
export const BOARD_STREAMS_PER_VENUE = 100;
/** Guest status pages following their order live, per venue on one server. */
export const GUEST_ORDER_STREAMS_PER_VENUE = 500;
/** The longest webhook endpoint URL, as sent and as stored. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

export interface WindowLimit {
  limit: number;
  windowSec: number;
}

/** Per-IP burst protection, checked before authentication. */
export const IP_RATE_LIMITS = {
  short: { limit: 10, windowSec: 1 },
  medium: { limit: 50, windowSec: 10 },
  long: { limit: 300, windowSec: 60 },
} as const satisfies Record<string, WindowLimit>;

export type VenueBucket = 'general' | 'media' | 'media-fast' | 'heavy';

/** Per-venue budgets in a rolling 60-second window, by the plan's rate tier. */
export const VENUE_RATE_WINDOW_SEC = 60;
export const VENUE_RATE_LIMITS: Readonly<Record<VenueBucket, { free: number; paid: number }>> = {
  general: { free: 30, paid: 120 },
  media: { free: 5, paid: 30 },
  'media-fast': { free: 20, paid: 100 },
  heavy: { free: 10, paid: 60 },
};

/** Publications kept: every one of the last 90 days, and always the latest 20. */
export const PUBLICATION_RETENTION = { days: 90, latest: 20 } as const;
