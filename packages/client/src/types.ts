// The public data types, taken from the generated schema (never written by hand), so a change
// of the OpenAPI document changes them and breaks this package's type check first.
import type { components, paths } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The body of POST /v1/sync: any subset of categories, ingredients and products. */
export type SyncMenu = Json<paths['/v1/sync']['post']['requestBody']>;
export type SyncCategory = NonNullable<SyncMenu['categories']>[number];
export type SyncIngredient = NonNullable<SyncMenu['ingredients']>[number];
export type SyncProduct = NonNullable<SyncMenu['products']>[number];
/** One POST /v1/sync response (201). */
export type SyncResponse = Json<paths['/v1/sync']['post']['responses'][201]>;
/** What a dry run says one item would change: `fields` as in a diff, [] for created. */
export type SyncChange = NonNullable<NonNullable<SyncResponse['products']>['changes']>[number];

/** GET /v1/menu. */
export type Menu = Json<paths['/v1/menu']['get']['responses'][200]>;
/** POST /v1/publish (201). */
export type PublishResult = Json<paths['/v1/publish']['post']['responses'][201]>;
/** One order. */
export type Order = Json<paths['/v1/orders/{id}']['get']['responses'][200]>;
/** A page of GET /v1/publications: the kept publications, newest first. */
export type PublicationPage = Json<paths['/v1/publications']['get']['responses'][200]>;
export type Publication = PublicationPage['items'][number];
export type PublicationListQuery = NonNullable<paths['/v1/publications']['get']['parameters']['query']>;
/** GET /v1/menu/diff: what changes from one menu to another, per section. */
export type MenuDiff = Json<paths['/v1/menu/diff']['get']['responses'][200]>;
export type MenuDiffSection = MenuDiff['products'];
/** POST /v1/publications/:id/restore (200). */
export type RestoreResult = Json<paths['/v1/publications/{id}/restore']['post']['responses'][200]>;
/** A page of GET /v1/orders. */
export type OrderPage = Json<paths['/v1/orders']['get']['responses'][200]>;
export type OrderListQuery = NonNullable<paths['/v1/orders']['get']['parameters']['query']>;

/** The body of PUT /v1/availability: products and ingredients by ref, sold out or available again. */
export type AvailabilityInput = Json<paths['/v1/availability']['put']['requestBody']>;
export type AvailabilityEntry = NonNullable<AvailabilityInput['products']>[number];
/** PUT /v1/availability (200): the entries whose state changed, per section. */
export type AvailabilityResult = Json<paths['/v1/availability']['put']['responses'][200]>;
/** GET /v1/availability: what is sold out now. */
export type SoldOut = Json<paths['/v1/availability']['get']['responses'][200]>;
export type SoldOutItem = SoldOut['products'][number];

/** GET /v1/settings. */
export type Settings = Json<paths['/v1/settings']['get']['responses'][200]>;
/** The body of PATCH /v1/settings: any subset of the fields; nested objects merge field by field. */
export type SettingsPatch = Json<paths['/v1/settings']['patch']['requestBody']>;
/** The venue's opening hours when set (null in Settings: always open). */
export type OpeningHours = NonNullable<Settings['openingHours']>;

/** The error envelope of every 4xx and 5xx response. */
export type ErrorEnvelope = components['schemas']['ErrorResponse'];
