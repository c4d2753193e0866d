import type { App } from '../../src/http/types.js';

export interface RouteKey {
  method: string;
  /** The pattern as routed, e.g. `/v1/products/:ref`. */
  url: string;
}

// One line of `printRoutes({ commonPrefix: false })`: tree guides, the path part, its methods.
const LINE_RE = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/;

/**
 * Every route the router holds (HEAD included), read from Fastify's own table rather than from
 * an onRoute hook of ours, so a suite that walks it sees exactly what is served.
 */
export function routeTable(app: App): RouteKey[] {
  const routes: RouteKey[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE_RE.exec(line);
    if (!match) throw new Error(`unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = match[1].length / 4;
    const url = (depth === 0 ? '' : parents[depth - 1]) + match[2];
    parents[depth] = url;
    parents.length = depth + 1;
    for (const method of match[3] ? match[3].split(', ') : []) routes.push({ method, url });
  }
  return routes;
}

/** The `:name` parameters of a pattern, each with the path segment before it (`products/:ref`). */
export function pathParams(url: string): string[] {
  const segments = url.split('/');
  return segments.flatMap((s, i) => (s.startsWith(':') ? [`${segments[i - 1]}/${s}`] : []));
}

/**
 * Every URL a pattern gives when each parameter takes each of its values (the cartesian product).
 * A parameter without values is an error: a suite that fills patterns must know every parameter.
 */
export function fillPattern(url: string, values: Record<string, readonly string[]>): string[] {
  let urls = [''];
  const segments = url.split('/');
  segments.forEach((segment, i) => {
    if (i === 0) return;
    let options = [segment];
    if (segment.startsWith(':')) {
      const key = `${segments[i - 1]}/${segment}`;
      const given = values[key];
      if (!given || given.length === 0) throw new Error(`no sample value for ${key} in ${url}`);
      options = given.map((v) => encodeURIComponent(v));
    }
    urls = urls.flatMap((prefix) => options.map((o) => `${prefix}/${o}`));
  });
  return urls;
}
