import type { Client } from 'openapi-fetch';
import { CartaError } from './errors.js';
import type { paths } from './schema.js';
import {
  chunkBody,
  chunkSize,
  DEFAULT_REQUEST_BYTES,
  indexMenu,
  mapErrorPaths,
  planChunks,
  SECTIONS,
  SERVER_CAPS,
  splitChunk,
  type ChunkLimits,
  type SyncChunk,
} from './sync-plan.js';
import type { SyncChange, SyncMenu, SyncResponse } from './types.js';

export interface SectionResult {
  created: number;
  updated: number;
  skipped: number;
  errors: string[];
  warnings: string[];
  /** Dry runs: each item the sync would create or update, with the fields an update changes; [] otherwise. */
  changes: SyncChange[];
}

export interface SyncCatalogResult {
  categories: SectionResult;
  ingredients: SectionResult;
  products: SectionResult;
  warnings: string[];
  translationsApplied: number;
  /** POST /v1/sync requests that succeeded. */
  requests: number;
  dryRun: boolean;
}

export interface SyncProgress {
  requestsDone: number;
  /** Grows by one when the server asks for a request to be split (413 SYNC_TOO_LARGE). */
  requestsTotal: number;
  /** Running totals (a copy: safe to keep). */
  result: SyncCatalogResult;
}

export interface SyncCatalogOptions {
  dryRun?: boolean;
  /** Called once before the first request (requestsDone 0) and after every request. */
  onProgress?: (progress: SyncProgress) => void;
  /** At most this many products per request (default 200; at most 500). */
  productsPerRequest?: number;
}

/**
 * A sync that failed part way: the server's error (validation messages with positions in the
 * caller's arrays), and what the requests before it applied. Every request upserts by
 * externalId, so running the whole sync again after a fix is safe.
 */
export class SyncCatalogError extends CartaError {
  override readonly name: string = 'SyncCatalogError';
  readonly result: SyncCatalogResult;

  constructor(error: CartaError, errors: string[] | undefined, result: SyncCatalogResult) {
    super({
      statusCode: error.statusCode,
      message: error.message,
      code: error.code,
      errors,
      details: error.details,
      requestId: error.requestId,
      path: error.path,
      timestamp: error.timestamp,
      retryAfter: error.retryAfter,
    });
    this.result = result;
  }
}

function emptySection(): SectionResult {
  return { created: 0, updated: 0, skipped: 0, errors: [], warnings: [], changes: [] };
}

function copy(result: SyncCatalogResult): SyncCatalogResult {
  const section = (s: SectionResult): SectionResult => ({
    ...s,
    errors: [...s.errors],
    warnings: [...s.warnings],
    changes: s.changes.map((c) => ({ ...c, fields: [...c.fields] })),
  });
  return {
    ...result,
    categories: section(result.categories),
    ingredients: section(result.ingredients),
    products: section(result.products),
    warnings: [...result.warnings],
  };
}

function merge(result: SyncCatalogResult, response: SyncResponse, chunk: SyncChunk, dryRun: boolean): void {
  for (const name of SECTIONS) {
    const section = response[name];
    // A dry run's product chunks carry categories and ingredients only as context (sync-plan).
    if (!section || (dryRun && name !== 'products' && chunk[name].length === 0)) continue;
    const into = result[name];
    into.created += section.created;
    into.updated += section.updated;
    into.skipped += section.skipped;
    into.errors.push(...section.errors);
    into.warnings.push(...section.warnings);
    // A dry run's context items are sent again with later chunks; their changes belong to the chunk that carries them.
    const own = dryRun && name !== 'products' ? new Set(chunk[name].map((e) => e.item.externalId)) : null;
    into.changes.push(...(section.changes ?? []).filter((c) => own === null || own.has(c.externalId)));
  }
  result.warnings.push(...response.warnings);
  result.translationsApplied += response.translations?.applied ?? 0;
}

/** 413 codes that say "send less at once". */
const TOO_LARGE = new Set(['SYNC_TOO_LARGE', 'PAYLOAD_TOO_LARGE']);

export async function syncCatalog(api: Client<paths>, menu: SyncMenu, options: SyncCatalogOptions = {}): Promise<SyncCatalogResult> {
  const dryRun = options.dryRun ?? false;
  const limits: ChunkLimits = {
    ...SERVER_CAPS,
    products: Math.max(1, Math.min(SERVER_CAPS.products, Math.floor(options.productsPerRequest ?? 200))),
    bytes: DEFAULT_REQUEST_BYTES,
  };
  const indexed = indexMenu(menu);
  const queue = planChunks(indexed, limits, dryRun);
  const result: SyncCatalogResult = {
    categories: emptySection(),
    ingredients: emptySection(),
    products: emptySection(),
    warnings: [...indexed.warnings],
    translationsApplied: 0,
    requests: 0,
    dryRun,
  };
  let requestsTotal = queue.length;
  const report = () => options.onProgress?.({ requestsDone: result.requests, requestsTotal, result: copy(result) });
  report();

  // Nothing to send at all still asks the server, for its answer to an empty sync.
  for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
    const { body, indices } = chunkBody(chunk);
    const { data, error, response } = await api.POST('/v1/sync', { body, params: { query: dryRun ? { dryRun: true } : {} } });
    if (response.ok) {
      if (!data) throw new CartaError({ statusCode: response.status, message: 'POST /v1/sync answered without a body' });
      merge(result, data, chunk, dryRun);
      result.requests += 1;
      report();
      continue;
    }
    const failure = CartaError.fromResponse(response, error);
    if (response.status === 413 && TOO_LARGE.has(failure.code ?? '') && chunkSize(chunk) > 1) {
      queue.unshift(...splitChunk(chunk, indexed, dryRun));
      requestsTotal += 1;
      report();
      continue;
    }
    throw new SyncCatalogError(failure, failure.errors && mapErrorPaths(failure.errors, indices), copy(result));
  }
  return result;
}
