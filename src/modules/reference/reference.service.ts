import { EpochMemo } from '../../db/epoch-memo.js';
import type { Database, Queryable } from '../../db/port.js';
import {
  BODY_LIMIT_BYTES,
  CLEANUP_ARRAY_CAP,
  IP_RATE_LIMITS,
  MB,
  MEDIA_BODY_LIMIT_BYTES,
  SYNC_ARRAY_CAPS,
  SYNC_NESTED_CAPS,
  VENUE_RATE_LIMITS,
  VENUE_RATE_WINDOW_SEC,
} from '../../limits.js';
import { ORDER_STATUSES, ORDER_STATUS_TRANSITIONS } from '../../shared/order-status.js';
import type { VenueContext } from '../venues/index.js';
import {
  BADGE_COLORS,
  ALLERGENS,
  CARD_STYLES,
  DIETARY_LABELS,
  CURRENCIES,
  LANGUAGES,
  MODIFIER_TYPES_ACCEPTED,
  MODIFIER_TYPES_CANONICAL,
  MODIFIER_TYPES_DEPRECATED,
  UNITS,
} from '../../shared/catalog.js';
import type { ReferenceView } from './reference.schemas.js';
import { countUsage, type Usage } from './usage.repository.js';

export interface RouteEntry {
  method: string;
  url: string;
}

/** Plan usage in the caller's transaction: sync checks its limits against the same counts GET /v1/reference shows. */
export function planUsage(db: Queryable, venueId: string): Promise<Usage> {
  return countUsage(db, venueId);
}

/** Groups /v1 routes by their first path segment: the `resources` index of GET /v1/reference. */
export function resourceIndex(routes: readonly RouteEntry[]): ReferenceView['resources'] {
  // Keyed by the segment as routed (`openapi.json`), so basePath is a real prefix of every operation.
  const bySegment = new Map<string, Set<string>>();
  for (const r of routes) {
    if (!r.url.startsWith('/v1/') || r.method === 'HEAD') continue;
    const segment = r.url.split('/')[2];
    const ops = bySegment.get(segment) ?? new Set<string>();
    ops.add(`${r.method} ${r.url}`);
    bySegment.set(segment, ops);
  }
  return [...bySegment.entries()]
    .map(([segment, ops]) => ({ name: segment.replace(/\.json$/, ''), basePath: `/v1/${segment}`, operations: [...ops].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

type StaticReference = Omit<ReferenceView, 'planLimits'>;

export class ReferenceService {
  private staticPart: StaticReference | null = null;
  private readonly usage: EpochMemo<Usage>;
  /** By plan, then venue: both ids are the same strings on every request, whose hashes V8 keeps (a key joined per request was hashed afresh each time). */
  private readonly documents = new Map<string, EpochMemo<Buffer>>();

  constructor(
    private readonly db: Database,
    private readonly routes: () => readonly RouteEntry[],
  ) {
    this.usage = new EpochMemo(db);
  }

  /** The reference as JSON while memoised, else undefined (then `json`). */
  peekJson(venue: VenueContext): Buffer | undefined {
    return this.documents.get(venue.plan)?.peek(venue.venueId);
  }

  /** The reference as JSON, ready to send (encoded once, rebuilt only after a write). */
  async json(venue: VenueContext): Promise<Buffer> {
    // Kept encoded: a hot read sends the bytes without encoding 3 KB of text again.
    let documents = this.documents.get(venue.plan);
    if (!documents) this.documents.set(venue.plan, (documents = new EpochMemo(this.db)));
    return documents.get(venue.venueId, { venueId: venue.venueId }, async () => Buffer.from(JSON.stringify(await this.get(venue))));
  }

  private catalog(): StaticReference {
    this.staticPart ??= {
      units: [...UNITS],
      badgeColors: [...BADGE_COLORS],
      modifierTypes: {
        accepted: [...MODIFIER_TYPES_ACCEPTED],
        canonical: [...MODIFIER_TYPES_CANONICAL],
        deprecated: { ...MODIFIER_TYPES_DEPRECATED },
      },
      orderStatuses: [...ORDER_STATUSES],
      orderStatusTransitions: Object.fromEntries(Object.entries(ORDER_STATUS_TRANSITIONS).map(([from, to]) => [from, [...to]])),
      cardStyles: [...CARD_STYLES],
      currencies: [...CURRENCIES],
      languages: [...LANGUAGES],
      allergens: ALLERGENS.map(({ code, name }) => ({ code, name })),
      dietaryLabels: DIETARY_LABELS.map(({ code, name }) => ({ code, name })),
      requestLimits: {
        bodyLimitMb: BODY_LIMIT_BYTES / MB,
        mediaBodyLimitMb: MEDIA_BODY_LIMIT_BYTES / MB,
        rateLimits: {
          short: { ...IP_RATE_LIMITS.short },
          medium: { ...IP_RATE_LIMITS.medium },
          long: { ...IP_RATE_LIMITS.long },
        },
        planRateLimits: {
          windowSec: VENUE_RATE_WINDOW_SEC,
          keyedBy: 'venue',
          tiers: {
            general: { ...VENUE_RATE_LIMITS.general },
            media: { ...VENUE_RATE_LIMITS.media },
            'media-fast': { ...VENUE_RATE_LIMITS['media-fast'] },
            heavy: { ...VENUE_RATE_LIMITS.heavy },
          },
        },
        syncArrayCaps: { ...SYNC_ARRAY_CAPS },
        syncNestedCaps: { ...SYNC_NESTED_CAPS },
        cleanupArrayCap: CLEANUP_ARRAY_CAP,
      },
      conventions: {
        money: 'Integers in minor currency units (cents, kopecks): 21500 means 215.00',
        timestamps: 'ISO 8601 with an explicit timezone; responses are UTC with millisecond precision and a Z suffix',
      },
      resources: resourceIndex(this.routes()),
      openapi: { url: '/v1/openapi.json', format: 'OpenAPI 3.1' },
    };
    return this.staticPart;
  }

  async get(venue: VenueContext): Promise<ReferenceView> {
    const usage = await this.usage.get(venue.venueId, { venueId: venue.venueId }, () => countUsage(this.db, venue.venueId));
    const plan = venue.planDefinition;
    return {
      ...this.catalog(),
      planLimits: {
        plan: venue.plan,
        rateLimitTier: plan.rateLimitTier,
        limits: { ...plan.limits },
        // Banners and QR tables are counted once those features store rows.
        usage,
        features: { ...plan.features },
      },
    };
  }
}
