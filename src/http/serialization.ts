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
  // A nullable shape is chosen by validating the value: multipleOf 0.1 (nutrition grams) needs the
  // same precision as the request validator's (validation.ts), or 0.3 fails and the answer is a 500.
  const build = buildDefault(externalSchemas, { ...options, ajv: { ...(options as { ajv?: object } | undefined)?.ajv, multipleOfPrecision: 9 } });
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= build(route) as (data: unknown) => string)(data);
  };
};
