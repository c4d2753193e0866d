// @carta/client: the typed client for the Carta API.
export { createCartaClient, unwrap, type CartaApi, type CartaClient, type CartaClientOptions } from './client.js';
export { CartaError, type CartaErrorInit } from './errors.js';
export { localizeMenu } from './menu-locale.js';
export type { FollowOrdersOptions, OrderEventType } from './follow-orders.js';
export type { PollOrdersOptions } from './poll-orders.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export { parseRetryAfter } from './retry-after.js';
export type { components, operations, paths } from './schema.js';
export {
  SyncCatalogError,
  type SectionResult,
  type SyncCatalogOptions,
  type SyncCatalogResult,
  type SyncProgress,
} from './sync-catalog.js';
export type {
  AvailabilityEntry,
  AvailabilityInput,
  AvailabilityResult,
  ErrorEnvelope,
  Menu,
  MenuDiff,
  MenuDiffSection,
  OpeningHours,
  Order,
  OrderListQuery,
  OrderPage,
  Publication,
  PublicationListQuery,
  PublicationPage,
  PublishResult,
  RestoreResult,
  Settings,
  SettingsPatch,
  SoldOut,
  SoldOutItem,
  SyncCategory,
  SyncChange,
  SyncIngredient,
  SyncMenu,
  SyncProduct,
  SyncResponse,
} from './types.js';
export { CLIENT_VERSION } from './version.js';
