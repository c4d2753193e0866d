// The public data types, taken from the generated schema (never written by hand), so a change
// of the OpenAPI document changes them and breaks this package's type check first.
import type { components, paths } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The body of POST /v1/sync (spec 4.1): any subset of categories, ingredients and products. */
export type SyncMenu = Json<paths['/v1/sync']['post']['requestBody']>;
export type SyncCategory = NonNullable<SyncMenu['categories']>[number];
export type SyncIngredient = NonNullable<SyncMenu['ingredients']>[number];
export type SyncProduct = NonNullable<SyncMenu['products']>[number];
/** One POST /v1/sync response (201). */
export type SyncResponse = Json<paths['/v1/sync']['post']['responses'][201]>;

/** GET /v1/menu (decisions 3). */
export type Menu = Json<paths['/v1/menu']['get']['responses'][200]>;
/** POST /v1/publish (201). */
export type PublishResult = Json<paths['/v1/publish']['post']['responses'][201]>;
/** One order (spec 2.7). */
export type Order = Json<paths['/v1/orders/{id}']['get']['responses'][200]>;
/** A page of GET /v1/orders. */
export type OrderPage = Json<paths['/v1/orders']['get']['responses'][200]>;
export type OrderListQuery = NonNullable<paths['/v1/orders']['get']['parameters']['query']>;

/** The error envelope of every 4xx and 5xx response (spec 7). */
export type ErrorEnvelope = components['schemas']['ErrorResponse'];
