import type { Database } from '../../db/port.js';
import { UNIQUE_VIOLATION, sqlState } from '../../db/port.js';
import { errors } from '../../errors.js';
import { uuidv7 } from '../../ids.js';
import * as venues from './venues.repository.js';
import type { VenueCreateInput, VenuePatchInput, VenueView } from './venues.schemas.js';

const SANDBOX_SUFFIX = '-sandbox';

/** "Café Olé & Co" -> "cafe-ole-co"; padded or cut to the slug rule [a-z0-9-]{3,64}. */
export function slugify(name: string): string {
  let slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/g, '');
  if (slug.length < 3) slug = slug ? `${slug}-venue` : 'venue';
  return slug;
}

function view(row: venues.VenueRow): VenueView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    plan: row.plan,
    currency: row.currency as VenueView['currency'],
    defaultLanguage: row.default_language as VenueView['defaultLanguage'],
    subscriptionStatus: row.subscription_status,
    sandbox: { id: row.sandbox_id, slug: row.sandbox_slug },
    createdAt: row.created_at.toISOString(),
  };
}

export class VenuesService {
  /**
   * Told the venue whose subscription status was set: the console's open boards on this server
   * check their right at once (services.ts); elsewhere they do at their next heartbeat.
   */
  onSubscriptionChanged: (venueId: string) => void = () => {};

  constructor(private readonly db: Database) {}

  async create(input: VenueCreateInput): Promise<VenueView> {
    // A derived slug can be taken between the check and the insert by a concurrent create with
    // the same name: then the next free one is tried. An explicit slug that is taken is a 409.
    for (let attempt = 0; ; attempt += 1) {
      const slug = input.slug ?? (await this.freeSlug(slugify(input.name)));
      const id = uuidv7();
      try {
        await venues.insertVenueWithSandbox(this.db, {
          id,
          sandboxId: uuidv7(),
          slug,
          sandboxSlug: `${slug}${SANDBOX_SUFFIX}`,
          name: input.name,
          plan: input.plan ?? 'free',
          currency: input.currency,
          defaultLanguage: input.defaultLanguage ?? 'en',
          subscriptionStatus: input.subscriptionStatus ?? 'active',
        });
        return this.get(id);
      } catch (err) {
        if (sqlState(err) !== UNIQUE_VIOLATION) throw err;
        if (input.slug !== undefined || attempt >= 3) throw errors.slugTaken();
      }
    }
  }

  async get(venueId: string): Promise<VenueView> {
    const row = await venues.findVenue(this.db, venueId);
    if (!row) throw errors.venueNotFound();
    return view(row);
  }

  async update(venueId: string, patch: VenuePatchInput): Promise<VenueView> {
    if (!(await venues.updateVenue(this.db, venueId, patch))) throw errors.venueNotFound();
    if (patch.subscriptionStatus !== undefined) this.onSubscriptionChanged(venueId);
    return this.get(venueId);
  }

  /** The derived slug, or the first free `<slug>-N`, checking the sandbox slug too. */
  private async freeSlug(base: string): Promise<string> {
    const candidates = [base, ...Array.from({ length: 20 }, (_, i) => `${base}-${i + 2}`)];
    const taken = await venues.slugsTaken(
      this.db,
      candidates.flatMap((c) => [c, `${c}${SANDBOX_SUFFIX}`]),
    );
    const free = candidates.find((c) => !taken.has(c) && !taken.has(`${c}${SANDBOX_SUFFIX}`));
    return free ?? `${base}-${uuidv7().slice(-8)}`;
  }
}
