import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type BuildSerializer = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'];

const buildDefault = SerializerSelector();

/**
 * Fastify's own response serialisers (fast-json-stringify, shared schemas included), each built
 * when its route first answers with that status rather than at start: building every one at start
 * lengthens a restart (docs/performance.md).
 */
export const lazySerializers: BuildSerializer = (externalSchemas, options) => {
  const build = buildDefault(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= build(route) as (data: unknown) => string)(data);
  };
};
