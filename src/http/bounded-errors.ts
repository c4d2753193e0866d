import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

// Ajv's allErrors mode builds one error object per failure, and the failures of a 5 MB body run
// to millions (1.7 million empty order items, 500 products of 1,000 empty options each): seconds of
// one thread and gigabytes of memory. So a body is first checked by a validator that stops at its
// first error, and only an invalid one is explained, here, with a budget: arrays are walked element
// by element, an over-long array is not walked at all, and once the budget is spent the remaining
// invalid elements are only counted. The work is bounded by the data's size, never by its errors.

/** Raw errors collected before the remaining invalid elements are only counted. */
export const ERROR_BUDGET = 500;

/** The last entry of a capped list: how many errors (at least) were left out of it. */
export const UNLISTED = 'x-unlisted';

interface ArrayAt {
  /** Property names from the node's root to the array. */
  path: string[];
  pointer: string;
  maxItems: number | undefined;
  items: Schema;
  /** Compiled by a warm-up (levelSteps), or else when an explanation first walks it. */
  level?: Level;
}

interface Level {
  /** Stops at the first error: finds the invalid elements. */
  check: ValidateFunction;
  items: Explainer;
}

/** How one schema node explains its errors: its own, then its arrays' elements'. */
export interface Explainer {
  /** allErrors validation of the node with the `items` of the arrays below removed. */
  shell: ValidateFunction;
  arrays: ArrayAt[];
  all: Ajv;
  first: Ajv;
}

type Schema = Record<string, unknown>;

let compiles = 0;
/** How many schemas the request validators have compiled since the process started (a test's view of when they compile). */
export const validatorCompiles = () => compiles;
/** `ajv.compile`, counted. */
export function compileCounted(ajv: Ajv, schema: object): ValidateFunction {
  compiles += 1;
  return ajv.compile(schema);
}
const isSchema = (s: unknown): s is Schema => s !== null && typeof s === 'object' && !Array.isArray(s);

/**
 * Copies `schema` without the `items` of every array reachable through `properties` alone (an
 * array under anyOf, allOf or a $ref stays in the shell, whole), recording each array found.
 */
function stripArrays(schema: Schema, path: string[], found: Array<{ path: string[]; schema: Schema }>): Schema {
  if (schema.type === 'array' && isSchema(schema.items)) {
    found.push({ path, schema });
    const { items: _items, ...rest } = schema;
    return rest;
  }
  if (schema.type !== 'object' || !isSchema(schema.properties)) return schema;
  const properties: Schema = {};
  for (const [key, sub] of Object.entries(schema.properties)) {
    properties[key] = isSchema(sub) ? stripArrays(sub, [...path, key], found) : sub;
  }
  return { ...schema, properties };
}

const pointerOf = (path: string[]) => path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * Compiles the explainer of `schema`'s own level: `all` reports every error, `first` stops at the
 * first. Each array's level below is compiled by levelSteps, or when an explanation first walks it.
 */
export function compileExplainer(schema: object, all: Ajv, first: Ajv): Explainer {
  const found: Array<{ path: string[]; schema: Schema }> = [];
  const shell = compileCounted(all, stripArrays(schema as Schema, [], found));
  return {
    shell,
    arrays: found.map(({ path, schema: array }) => ({
      path,
      pointer: pointerOf(path),
      maxItems: typeof array.maxItems === 'number' ? array.maxItems : undefined,
      items: array.items as Schema,
    })),
    all,
    first,
  };
}

function levelOf(explainer: Explainer, array: ArrayAt): Level {
  return (array.level ??= {
    check: compileCounted(explainer.first, array.items),
    items: compileExplainer(array.items, explainer.all, explainer.first),
  });
}

/** Compiles every level below `explainer` not compiled yet, one level per step (a turn of a warm-up). */
export function* levelSteps(explainer: Explainer): Generator<void> {
  for (const array of explainer.arrays) {
    const compiled = array.level !== undefined;
    const level = levelOf(explainer, array);
    if (!compiled) yield;
    yield* levelSteps(level.items);
  }
}

function valueAt(data: unknown, path: string[]): unknown {
  let node = data;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

interface Budget {
  errors: ErrorObject[];
  /** Invalid elements found after the budget was spent. */
  unlisted: number;
}

function explainInto(explainer: Explainer, data: unknown, prefix: string, budget: Budget): void {
  if (!explainer.shell(data)) {
    for (const e of explainer.shell.errors ?? []) budget.errors.push(prefix === '' ? e : { ...e, instancePath: prefix + e.instancePath });
  }
  for (const array of explainer.arrays) {
    const value = valueAt(data, array.path);
    // Not an array, or longer than allowed: the shell said so, and its elements are not looked at.
    if (!Array.isArray(value) || (array.maxItems !== undefined && value.length > array.maxItems) || value.length === 0) continue;
    const level = levelOf(explainer, array);
    for (let i = 0; i < value.length; i += 1) {
      if (level.check(value[i])) continue;
      if (budget.errors.length >= ERROR_BUDGET) budget.unlisted += 1;
      else explainInto(level.items, value[i], `${prefix}${array.pointer}/${i}`, budget);
    }
  }
}

/**
 * The errors of data already found invalid, at most about ERROR_BUDGET of them; when some were
 * left out, the list ends with an `x-unlisted` entry counting the invalid elements not described.
 */
export function explain(explainer: Explainer, data: unknown): ErrorObject[] {
  const budget: Budget = { errors: [], unlisted: 0 };
  explainInto(explainer, data, '', budget);
  if (budget.unlisted > 0) {
    budget.errors.push({ keyword: UNLISTED, instancePath: '', schemaPath: '', params: { count: budget.unlisted } });
  }
  return budget.errors;
}
