import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { compileCounted, compileExplainer, explain, type Explainer, levelSteps, UNLISTED } from './bounded-errors.js';
import { isCleanBody, unmatchableParams, unstorableText } from './text-safety.js';
import { inTimestampRange } from '../shared/timestamps.js';
import { DECIMALS_KEYWORD } from './schemas/common.js';

type AddFormats = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped once or twice.
const formatsModule = ajvFormats as unknown as { default: AddFormats | { default: AddFormats } };
const addFormats: AddFormats = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

// Bodies are validated as sent: no type coercion (a "12" price is an error, not 12), no
// defaults injected (an omitted field means "keep" in sync and patch), and nothing stripped
// (an unknown property is an error). Query strings and path params arrive as text,
// so they are coerced and get their defaults. Every input is checked by a validator that stops at
// its first error; only an invalid one is explained by one that reports them all (bounded-errors.ts).
type Part = 'body' | 'other';
type Mode = 'first' | 'all';
function makeAjv(httpPart: Part, mode: Mode): Ajv {
  const ajv = new Ajv({
    allErrors: mode === 'all',
    strict: false,
    removeAdditional: false,
    coerceTypes: httpPart === 'body' ? false : 'array',
    useDefaults: httpPart !== 'body',
  });
  addFormats(ajv);
  ajv.addKeyword(DECIMALS_KEYWORD_DEFINITION);
  // A timestamp must also be one PostgreSQL stores and gives back as it was sent: years 1 to 9999
  // in UTC (year 0, or year 1 at +14:00, is BC there and a 500 on the way back).
  const dateTime = ajv.formats['date-time'] as { validate: (s: string) => boolean; compare?: (a: string, b: string) => number };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => dateTime.validate(s) && inTimestampRange(Date.parse(s)),
    ...(dateTime.compare ? { compare: dateTime.compare } : {}),
  });
  return ajv;
}

/**
 * DECIMALS_KEYWORD (`x-decimals: n`): a number written with at most n decimals. Not `multipleOf:
 * 0.1`, which most validators (Prism, Ajv by default, generated clients) check by dividing in
 * binary floating point, so 0.3, 1.2 or 2.9 fail there. Counted on the number's shortest text
 * (what JSON.stringify writes): exact for every value a client can send. The published document
 * leaves the keyword out and says "at most one decimal" in words (openapi.ts).
 */
const withinDecimals: SchemaValidateFunction = (decimals: number, value: number) => {
  const text = String(value);
  const point = text.indexOf('.');
  if (Number.isInteger(value) || (!text.includes('e') && point >= 0 && text.length - point - 1 <= decimals)) return true;
  withinDecimals.errors = [{ keyword: DECIMALS_KEYWORD, params: { decimals } }];
  return false;
};
const DECIMALS_KEYWORD_DEFINITION = {
  keyword: DECIMALS_KEYWORD,
  type: 'number' as const,
  schemaType: 'number' as const,
  errors: true,
  validate: withinDecimals,
};

// Built when the first validator compiles.
const ajvs: Partial<Record<`${Part}-${Mode}`, Ajv>> = {};
const ajvFor = (part: Part, mode: Mode) => (ajvs[`${part}-${mode}`] ??= makeAjv(part, mode));

// Keywords whose value is data, not a schema; and those whose value maps names to schemas.
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * `schema` with every integer held to the safe integers and every number to the finite ones.
 * Ajv turns query text into a number with `+text`, so `Infinity`, `1e308` and `9007199254740993`
 * (read as ...992) pass as integers, and JSON reads `1e400` as Infinity; one without a range of
 * its own then reaches arithmetic and SQL as a number no database takes (an offset of Infinity
 * was a 500). Held here, every route refuses them as a 400 naming the field.
 */
export function finiteNumbers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(finiteNumbers);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(schema)) {
    if (VALUE_KEYWORDS.has(key)) out[key] = sub;
    else if (SCHEMA_MAPS.has(key) && sub !== null && typeof sub === 'object') {
      out[key] = Object.fromEntries(Object.entries(sub).map(([name, s]) => [name, finiteNumbers(s)]));
    } else out[key] = finiteNumbers(sub);
  }
  const types = ([] as unknown[]).concat(out.type);
  const bound = types.includes('integer') ? Number.MAX_SAFE_INTEGER : types.includes('number') ? Number.MAX_VALUE : undefined;
  if (bound !== undefined) {
    out.minimum = typeof out.minimum === 'number' ? Math.max(out.minimum, -bound) : -bound;
    out.maximum = typeof out.maximum === 'number' ? Math.min(out.maximum, bound) : bound;
  }
  return out;
}

// One copy per schema, so a shape many routes share (a list's query) is still compiled once.
const boundedSchemas = new WeakMap<object, object>();
function bounded(schema: object): object {
  let copy = boundedSchemas.get(schema);
  if (!copy) boundedSchemas.set(schema, (copy = finiteNumbers(schema) as object));
  return copy;
}

interface SchemaValidator {
  /** The value's errors, bounded (bounded-errors.ts), or null when it is valid. */
  errorsOf(value: unknown, checkText: boolean): ErrorObject[] | null;
  /** Compiles the validator and the explanation of its errors, a level at a time: one compile per step. */
  compileSteps(): Generator<void>;
}

// One explainer per schema and part in a process, like Ajv's own cache of compiled schemas: a
// second app (tests, tools) reuses what the first compiled.
const explainers: Record<Part, WeakMap<object, Explainer>> = { body: new WeakMap(), other: new WeakMap() };
function sharedExplainer(schema: object, part: Part): Explainer {
  let explainer = explainers[part].get(schema);
  if (!explainer) explainers[part].set(schema, (explainer = compileExplainer(schema, ajvFor(part, 'all'), ajvFor(part, 'first'))));
  return explainer;
}

/** Validates against one schema, compiled on first use. */
function schemaValidator(given: object, part: Part): SchemaValidator {
  let schema: object | undefined;
  let check: ValidateFunction | undefined;
  let explainer: Explainer | undefined;
  const checker = () => (check ??= compileCounted(ajvFor(part, 'first'), (schema ??= bounded(given))));
  const explainerOf = () => (explainer ??= sharedExplainer((schema ??= bounded(given)), part));
  return {
    errorsOf(value, checkText) {
      const valid = checker()(value);
      // Text PostgreSQL cannot store is refused for every part and every route (text-safety.ts);
      // a JSON body whose raw text had no escape that could spell it is known clean already.
      const text = !checkText || isCleanBody(value) ? [] : unstorableText(value);
      if (valid && text.length === 0) return null;
      if (valid) return text;
      return [...explain(explainerOf(), value), ...text];
    },
    *compileSteps() {
      checker();
      yield;
      explainerOf();
      yield;
      yield* levelSteps(explainerOf());
    },
  };
}

/**
 * A body's validator and explanations are compiled when the app is ready (ValidatorWarmUp); a query
 * string's, path's or headers' when the route first validates one (a few fields each).
 */
function compilerFor(warmUp?: ValidatorWarmUp): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    const kind: Part = httpPart === 'body' ? 'body' : 'other';
    // Path parameters are made storable before they are validated (below): nothing to walk.
    const checkText = httpPart !== 'params';
    const validator = schemaValidator(schema as object, kind);
    // Query strings, paths and headers are a few fields each: compiled in a moment when first used.
    if (httpPart === 'body') warmUp?.add(validator);
    const validate = (value: unknown) => {
      const error = validator.errorsOf(value, checkText);
      return error === null ? { value } : { error: error as never };
    };
    if (httpPart === 'params') {
      return (params: unknown) => validate(unmatchableParams(params as Record<string, unknown>) ?? params);
    }
    if (kind !== 'body') return validate;
    return (data: unknown) => validate(data === undefined || data === null ? {} : data);
  };
}

/** One route part's validator, compiled on first use (tests and tools). */
export const validatorCompiler: FastifySchemaCompiler<unknown> = compilerFor();

/**
 * The body validators one app built, compiled with the explanations of their errors before it
 * serves (app.ts, when the app is ready). Compiled on first use, the first large invalid sync body
 * after a start held the event loop 0.4-0.6 s while its explanation compiled.
 */
export class ValidatorWarmUp {
  private pending: SchemaValidator[] = [];

  add(validator: SchemaValidator): void {
    this.pending.push(validator);
  }

  /** Compiles every validator added since the last call, with its explanations, at once. */
  compileAll(): void {
    const pending = this.pending;
    this.pending = [];
    for (const validator of pending) for (const _step of validator.compileSteps());
  }
}

/** The validator compiler as Fastify's schema controller takes it (for every route, every part of a request). */
type ValidatorFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator'];
export const validatorFactory = (warmUp: ValidatorWarmUp) => (() => compilerFor(warmUp)) as unknown as ValidatorFactory;

const shortName = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

/** `/products/3/priceMinor` -> `products[3].priceMinor`; a segment over 64 characters is cut. */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const raw of parts) {
    // A property name is the caller's text (a record's key, an unknown property): never at length.
    const segment = shortName(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

function ruleText(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${p.comparison} ${p.limit}`;
    case 'maxItems':
      return `must have at most ${p.limit} items`;
    case 'minItems':
      return `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
    case 'maxLength':
      return `must be at most ${p.limit} characters`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
    case 'maxProperties':
      return `must have at most ${p.limit} entries`;
    case 'type':
      return `must be ${p.type === 'integer' ? 'an integer' : p.type === 'array' ? 'an array' : p.type === 'object' ? 'an object' : `a ${p.type}`}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return p.format === 'date-time' ? 'must be an ISO 8601 timestamp with a timezone' : `must be a valid ${p.format}`;
    case 'pattern':
      return `must match ${p.pattern}`;
    case 'uniqueItems':
      return 'must not list a value twice';
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case DECIMALS_KEYWORD:
      return p.decimals === 1 ? 'must have at most one decimal' : `must have at most ${String(p.decimals)} decimals`;
    default:
      return e.message ?? 'is invalid';
  }
}

/** The most entries a validation error lists; one more line counts the rest. */
export const MAX_LISTED_ERRORS = 100;

/**
 * ajv errors -> the error envelope's errors[] entries, each starting with the field path:
 * `products[3].priceMinor must be >= 0`, `products[0].colour is not allowed`. At most
 * MAX_LISTED_ERRORS of them, then one line for the rest (`body has 20 more errors and 380 more invalid items, not listed`).
 */
export function formatValidationErrors(errs: readonly ErrorObject[], root = 'body'): string[] {
  // A nullable or alternative field fails as an anyOf: report the branch's real rule (a length, a
  // range) when there is one, otherwise one line listing the accepted types. ajv lists a failed
  // anyOf's branch errors just before it, so each anyOf finds its branches by looking back.
  const branchesFrom = new Map<number, number>();
  const isBranch = new Uint8Array(errs.length);
  for (let i = errs.length - 1; i >= 0; i -= 1) {
    const e = errs[i];
    if ((e.keyword !== 'anyOf' && e.keyword !== 'oneOf') || isBranch[i]) continue;
    let j = i - 1;
    while (j >= 0 && errs[j].schemaPath.startsWith(`${e.schemaPath}/`) && errs[j].instancePath.startsWith(e.instancePath)) {
      isBranch[j] = 1;
      j -= 1;
    }
    branchesFrom.set(i, j + 1);
  }
  const out = new Set<string>();
  let unlisted = 0;
  errs.forEach((e, i) => {
    if (isBranch[i]) return;
    if (e.keyword === UNLISTED) {
      unlisted += (e.params as { count: number }).count;
      return;
    }
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') {
      out.add(describe(e, root));
      return;
    }
    const branches = errs.slice(branchesFrom.get(i), i);
    // A rule of the branch itself (a length, a range), or any rule deeper inside it (a nested field).
    const specific = branches.filter(
      (b) => b.instancePath !== e.instancePath || (b.keyword !== 'type' && b.keyword !== 'const' && b.keyword !== 'enum'),
    );
    if (specific.length > 0) {
      for (const b of specific) out.add(describe(b, root));
      return;
    }
    const allowed = branches.flatMap((b) => {
      const p = b.params as Record<string, unknown>;
      if (b.keyword === 'type') return [String(p.type)];
      if (b.keyword === 'const') return [String(p.allowedValue)];
      if (b.keyword === 'enum') return (p.allowedValues as unknown[]).map(String);
      return [];
    });
    const path = fieldPath(e.instancePath);
    out.add(`${path === '' ? root : path} must be one of: ${[...new Set(allowed)].join(', ')}`);
  });
  const listed = [...out];
  if (listed.length <= MAX_LISTED_ERRORS && unlisted === 0) return listed;
  const more = Math.max(0, listed.length - MAX_LISTED_ERRORS);
  const shown = listed.slice(0, MAX_LISTED_ERRORS);
  const rest = [...(more > 0 ? [`${more} more errors`] : []), ...(unlisted > 0 ? [`${unlisted} more invalid items`] : [])];
  shown.push(`${root} has ${rest.join(' and ')}, not listed`);
  return shown;
}

function describe(e: ErrorObject, root: string): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    return `${fieldPath(e.instancePath, String(p.additionalProperty))} is not allowed`;
  }
  if (e.keyword === 'required') {
    return `${fieldPath(e.instancePath, String(p.missingProperty))} is required`;
  }
  const path = fieldPath(e.instancePath);
  return `${path === '' ? root : path} ${ruleText(e)}`;
}

/** Validates input outside HTTP (the CLI) with the same schemas and messages as the routes. */
export function assertValid<T>(schema: object, data: unknown): T {
  const found = schemaValidator(schema, 'body').errorsOf(data, true);
  if (found) throw Object.assign(new Error('Validation failed'), { errors: formatValidationErrors(found, 'input') });
  return data as T;
}
