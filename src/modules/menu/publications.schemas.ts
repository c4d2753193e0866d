import { Type, type Static } from 'typebox';
import { ListEnvelope, Nullable, Timestamp } from '../../http/schemas/common.js';

// ---- menu diff ------------------------------------------------------------------------------

const Ref = Type.String({ description: 'The externalId, else the id' });

/** One section of a menu diff: items matched by ref. */
export const SectionDiff = Type.Object({
  added: Type.Array(Ref, { description: 'In `to`, not in `from`; in the order of `to`' }),
  removed: Type.Array(Ref, { description: 'In `from`, not in `to`; in the order of `from`' }),
  changed: Type.Array(
    Type.Object({
      ref: Ref,
      fields: Type.Array(Type.String(), { description: 'Read-shape field names, in alphabetical order' }),
    }),
    { description: 'In both, with differing fields; in the order of `to`' },
  ),
});
export type SectionDiffValue = Static<typeof SectionDiff>;

/** The three sections of a diff; the response adds `from` and `to`. */
export const MenuDiffSections = Type.Object({ categories: SectionDiff, ingredients: SectionDiff, products: SectionDiff });
export type MenuDiffSectionsValue = Static<typeof MenuDiffSections>;

// ---- history and restore --------------------------------------------------------------------

const Counts = Type.Object({ categories: Type.Integer(), ingredients: Type.Integer(), products: Type.Integer() });

export const Publication = Type.Object({
  id: Type.String(),
  publishedAt: Timestamp,
  counts: Counts,
  restoredFrom: Nullable(
    Type.String({ description: 'The publication a restore made this one from (kept as it was when that one is pruned)' }),
  ),
});
export const PublicationList = ListEnvelope(Publication);

export const PublicationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

const MenuRef = Type.String({ minLength: 1, maxLength: 64, description: '`draft`, `published` or a publication id' });
export const MenuDiffQuery = Type.Object({
  from: Type.Optional(Type.String({ ...MenuRef, default: 'published' })),
  to: Type.Optional(Type.String({ ...MenuRef, default: 'draft' })),
});
export const MenuDiff = Type.Object({
  from: Type.String({ description: 'As asked: `draft`, `published` or a publication id' }),
  to: Type.String(),
  ...MenuDiffSections.properties,
});
export type MenuDiffValue = Static<typeof MenuDiff>;

// An absent body reads as {} (the validator's rule for optional bodies).
export const RestoreBody = Type.Object(
  { publish: Type.Optional(Type.Boolean({ description: 'Publish the restored draft in the same transaction (default false)' })) },
  { additionalProperties: false },
);
export type RestoreInput = Static<typeof RestoreBody>;

export const RestoreResponse = Type.Object({
  restoredFrom: Type.String(),
  counts: Type.Object(Counts.properties, { description: "The snapshot's totals" }),
  publicationId: Nullable(Type.String({ description: 'The new publication when publish is true, else null' })),
});
export type RestoreResult = Static<typeof RestoreResponse>;
