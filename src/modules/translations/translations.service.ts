import type { Database } from '../../db/port.js';
import { errors } from '../../errors.js';
import { audit, type Actor } from '../audit/index.js';
import { translateDraft, checkTranslations } from '../menu/index.js';
import { translateBanners } from '../merch/index.js';
import { readSettings } from '../settings/index.js';
import type { TranslationsInput, TranslationsResult } from './translations.schemas.js';
import { lockMenu } from '../../db/venue-locks.js';

const LABEL = { products: 'Product', categories: 'Category', ingredients: 'Ingredient' } as const;

/** PUT /v1/translations: all or nothing, with merge semantics. */
export class TranslationsService {
  constructor(private readonly db: Database) {}

  async put(actor: Actor, input: TranslationsInput): Promise<TranslationsResult> {
    const venueId = actor.venue.venueId;
    return this.db.transaction(
      async (tx) => {
        const settings = await readSettings(tx, venueId);
        const enabled = new Set(settings.enabledLanguages);
        const check = (label: string, t: Record<string, Record<string, string | undefined>>) => {
          const problem = checkTranslations(t, enabled);
          if (problem) throw errors.translation(problem.code, `${label}: ${problem.message}`);
        };
        for (const table of ['products', 'categories', 'ingredients'] as const) {
          for (const e of input[table] ?? []) check(`${LABEL[table]} ${e.ref}`, e.translations);
        }
        for (const e of input.modifierGroups ?? []) check(`Modifier group ${e.id}`, e.translations);
        for (const e of input.banners ?? []) check(`Banner ${e.id}`, e.translations);

        // Each module merges its own tables' translations; banners act live (docs/merchandising.md).
        await lockMenu(tx, venueId);
        const draft = await translateDraft(tx, venueId, input);
        const banners = await translateBanners(tx, venueId, input.banners ?? []);
        const records = [...draft.records, ...banners.records];
        if (records.length > 0) await audit(tx, actor, records);
        return { applied: draft.applied + banners.applied, notFound: [...draft.notFound, ...banners.notFound] };
      },
      { venueId },
    );
  }
}
