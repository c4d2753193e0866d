/**
 * The three audiences of the API, each with a reference of its own at /docs (docs/api-docs.md): the
 * integrator's `/v1`, the public guest API and the operator API. Each reference is the generated
 * document (`GET /v1/openapi.json`) cut to its paths, so there is still one source of truth.
 */
export interface ApiReference {
  /** The name in the document's URL: /docs/<id>/openapi.json. */
  id: 'v1' | 'guest' | 'operator';
  /** Where its page is served. */
  page: string;
  label: string;
  /** The base path shown next to the label. */
  base: string;
  /** Paths equal to one of these, or under one, belong to this reference. */
  prefixes: readonly string[];
  summary: string;
}

export const API_REFERENCES: readonly ApiReference[] = [
  {
    id: 'v1',
    page: '/docs',
    label: 'Integrator API',
    base: '/v1',
    prefixes: ['/v1'],
    summary:
      'For a POS or ordering integration, with its venue API key: menu sync and publish, products, ' +
      'orders, media, banners, promotions, tables, settings, translations and reference data.',
  },
  {
    id: 'guest',
    page: '/docs/guest',
    label: 'Guest API',
    base: '/guest/v1',
    // Image URLs are public like the guest menu that links them.
    prefixes: ['/guest/v1', '/media'],
    summary: 'Public, without credentials: the published menu, guest orders, QR tables and the images they link to.',
  },
  {
    id: 'operator',
    page: '/docs/operator',
    label: 'Operator API',
    base: '/admin/v1',
    // The probes are for whoever runs the server, like the operator API.
    prefixes: ['/admin/v1', '/health', '/ready'],
    summary: 'For whoever runs the server, with the operator token: venues, plans, API keys, and the health and readiness probes.',
  },
];

/** The parts of an OpenAPI 3.1 document this module reads; everything else is copied as it is. */
export interface OpenApiDocument {
  info: { title: string; [field: string]: unknown };
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  tags?: { name: string; [field: string]: unknown }[];
  security?: Record<string, string[]>[];
  [field: string]: unknown;
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export function belongsTo(path: string, api: ApiReference): boolean {
  return api.prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** `#/components/<section>/<name>` targets reachable from `start`, following refs inside components too. */
function reachableComponents(start: unknown, components: Record<string, Record<string, unknown>>): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const pending: unknown[] = [start];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
        const [section, name] = value
          .slice('#/components/'.length)
          .split('/')
          .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
        let names = found.get(section);
        if (!names) found.set(section, (names = new Set()));
        if (name !== undefined && !names.has(name)) {
          names.add(name);
          pending.push(components[section]?.[name]);
        }
      } else {
        pending.push(value);
      }
    }
  }
  return found;
}

/**
 * The generated document cut to one reference: its paths, the components they reach, the
 * security schemes and tags they use. A new route lands in the reference its prefix names.
 */
export function referenceDocument(full: OpenApiDocument, api: ApiReference): OpenApiDocument {
  const paths = Object.fromEntries(Object.entries(full.paths ?? {}).filter(([path]) => belongsTo(path, api)));
  const available = full.components ?? {};

  const schemes = new Set<string>();
  const tags = new Set<string>();
  for (const requirement of full.security ?? []) for (const name of Object.keys(requirement)) schemes.add(name);
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!OPERATION_METHODS.has(method) || operation === null || typeof operation !== 'object') continue;
      const { security, tags: operationTags } = operation as { security?: Record<string, string[]>[]; tags?: string[] };
      for (const requirement of security ?? []) for (const name of Object.keys(requirement)) schemes.add(name);
      for (const tag of operationTags ?? []) tags.add(tag);
    }
  }

  const reached = reachableComponents(paths, available);
  const components: Record<string, Record<string, unknown>> = {};
  for (const [section, entries] of Object.entries(available)) {
    const keep = section === 'securitySchemes' ? schemes : (reached.get(section) ?? new Set<string>());
    const kept = Object.fromEntries(Object.entries(entries).filter(([name]) => keep.has(name)));
    if (Object.keys(kept).length > 0) components[section] = kept;
  }

  return {
    ...full,
    info: { ...full.info, title: `${full.info.title}: ${api.label}` },
    ...(full.tags ? { tags: full.tags.filter((tag) => tags.has(tag.name)) } : {}),
    paths,
    components,
  };
}
