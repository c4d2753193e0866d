import type { App } from './types.js';

const SHORTHANDS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

/**
 * `app` as a route module sees it under `prefix`: every route it declares is registered on `app`
 * itself with the prefix in front. Fastify applies a prefix only to an encapsulated plugin
 * (`app.register`), and each one is a server object of its own, with its own Request and Reply
 * classes; with a scope per prefix Fastify's route handler met one of each per scope and its
 * look-ups went megamorphic (docs/performance.md, "What every request pays"). Hooks, parsers
 * and decorators still reach `app`, so a module that needs a scope of its own is registered in one.
 */
export function prefixed(app: App, prefix: string): App {
  const view = Object.create(app) as App;
  for (const method of SHORTHANDS) {
    const declare = app[method] as (url: string, ...rest: unknown[]) => unknown;
    (view as unknown as Record<string, unknown>)[method] = (url: string, ...rest: unknown[]) => {
      declare.call(app, prefix + url, ...rest);
      return view;
    };
  }
  view.route = (options) => {
    app.route({ ...options, url: prefix + options.url });
    return view;
  };
  return view;
}
