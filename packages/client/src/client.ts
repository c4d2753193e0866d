import createClient, { type Client } from 'openapi-fetch';
import { CartaError } from './errors.js';
import { localizeMenu } from './menu-locale.js';
import { followOrders, type FollowOrdersOptions } from './follow-orders.js';
import { pollOrders, type PollOrdersOptions } from './poll-orders.js';
import { isSafeMethod, retryingFetch, retryPolicy, type RetryOptions } from './retry.js';
import type { paths } from './schema.js';
import { syncCatalog, type SyncCatalogOptions, type SyncCatalogResult } from './sync-catalog.js';
import type {
  AvailabilityInput,
  AvailabilityResult,
  Menu,
  MenuDiff,
  PublicationListQuery,
  PublicationPage,
  PublishResult,
  RestoreResult,
  SoldOut,
  SyncMenu,
} from './types.js';
import { CLIENT_VERSION } from './version.js';

export interface CartaClientOptions extends RetryOptions {
  /** Where the server is, e.g. `https://carta.example.com` (the /v1 paths are appended). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  fetch?: typeof fetch;
  userAgent?: string;
}

/** The typed openapi-fetch client: `api.GET('/v1/menu', { params: { query: { version: 'draft' } } })`. */
export type CartaApi = Client<paths>;

export interface CartaClient {
  /** Every operation of the OpenAPI document, typed; retries and Idempotency-Key included. */
  api: CartaApi;
  /** POST /v1/sync for a catalogue of any size, in as many requests as the caps need. */
  syncCatalog(menu: SyncMenu, options?: SyncCatalogOptions): Promise<SyncCatalogResult>;
  /** POST /v1/publish. */
  publish(): Promise<PublishResult>;
  /** GET /v1/menu; `locale` resolves names client-side from the translation maps. */
  getMenu(options?: { version?: 'draft' | 'published'; locale?: string }): Promise<Menu>;
  /**
   * GET /v1/publications: the kept publications, newest first, a page at a time
   * (every one of the last 90 days and always the latest 20).
   */
  listPublications(query?: PublicationListQuery): Promise<PublicationPage>;
  /** GET /v1/publications/:id: that snapshot in the read shape of getMenu; unknown: CartaError 404 PUBLICATION_NOT_FOUND. */
  getPublication(id: string, options?: { locale?: string }): Promise<Menu>;
  /**
   * GET /v1/menu/diff: what changes from `from` to `to`, each `draft`, `published` or a publication id
   * (defaults: from `published`, to `draft`): per section the refs added, removed and changed with field names.
   */
  diffMenus(options?: { from?: string; to?: string }): Promise<MenuDiff>;
  /**
   * POST /v1/publications/:id/restore: the draft becomes that snapshot in one transaction (draft items it lacks
   * cleaned up); with `publish: true` it is published in the same transaction (`publicationId` of the new one).
   */
  restorePublication(id: string, options?: { publish?: boolean }): Promise<RestoreResult>;
  /**
   * PUT /v1/availability: marks products and ingredients sold out (`available: false`, until `until`
   * or until marked available) or available again, at once and without a publish. All or nothing:
   * an unknown ref is a CartaError 400 whose `errors` name it, and nothing is written.
   */
  setAvailability(input: AvailabilityInput): Promise<AvailabilityResult>;
  /** GET /v1/availability: the products and ingredients sold out now. */
  listAvailability(): Promise<SoldOut>;
  /** Every new or changed order, once per version, until `signal` aborts (then it resolves). */
  pollOrders(options: PollOrdersOptions): Promise<void>;
  /** The live order stream: every change as it commits, once, across reconnects, until `signal` aborts. */
  followOrders(options: FollowOrdersOptions): Promise<void>;
}

/** The data of a successful `api.*` call; a CartaError for any other answer. */
export async function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(
  call: Promise<R>,
): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await call;
  if (!response.ok) throw CartaError.fromResponse(response, error);
  return data as Exclude<R['data'], undefined>;
}

/**
 * Sets a fresh Idempotency-Key on every write that has none, so a write whose answer was lost
 * can be sent again and the server runs it once (it replays the first answer). The key is set
 * before the retry layer, so every retry of one call carries the same key.
 */
function withIdempotencyKey(next: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return (request) => {
    if (!isSafeMethod(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    return next(request);
  };
}

export function createCartaClient(options: CartaClientOptions): CartaClient {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { 'user-agent': options.userAgent ?? `carta-client/${CLIENT_VERSION}` };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  const policy = retryPolicy(options);
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    // Bound here: an unbound global fetch would be called with another `this`.
    fetch: withIdempotencyKey(retryingFetch((input, init) => baseFetch(input, init), policy)),
  });

  return {
    api,
    syncCatalog: (menu, syncOptions) => syncCatalog(api, menu, syncOptions),
    async publish() {
      return unwrap(api.POST('/v1/publish', { body: {} }));
    },
    async getMenu(menuOptions = {}) {
      const menu = await unwrap(api.GET('/v1/menu', { params: { query: { version: menuOptions.version ?? 'draft' } } }));
      return menuOptions.locale === undefined ? menu : localizeMenu(menu, menuOptions.locale);
    },
    async listPublications(query = {}) {
      return unwrap(api.GET('/v1/publications', { params: { query } }));
    },
    async getPublication(id, publicationOptions = {}) {
      const menu = await unwrap(api.GET('/v1/publications/{id}', { params: { path: { id } } }));
      return publicationOptions.locale === undefined ? menu : localizeMenu(menu, publicationOptions.locale);
    },
    async diffMenus(diffOptions = {}) {
      return unwrap(api.GET('/v1/menu/diff', { params: { query: { from: diffOptions.from, to: diffOptions.to } } }));
    },
    async restorePublication(id, restoreOptions = {}) {
      const body = restoreOptions.publish === undefined ? {} : { publish: restoreOptions.publish };
      return unwrap(api.POST('/v1/publications/{id}/restore', { params: { path: { id } }, body }));
    },
    async setAvailability(input) {
      return unwrap(api.PUT('/v1/availability', { body: input }));
    },
    async listAvailability() {
      return unwrap(api.GET('/v1/availability'));
    },
    pollOrders: (pollOptions) => pollOrders(api, pollOptions),
    followOrders: (followOptions) => followOrders(api, policy, followOptions),
  };
}
