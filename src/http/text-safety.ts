import type { ErrorObject } from 'ajv';

// PostgreSQL's text cannot hold a NUL character, and a lone UTF-16 surrogate has no UTF-8 form:
// either one reaching a query is a 500 from the driver, after part of a request may have run.
// They are refused once, here, for every string of every request part, before any handler runs.

/** True when PostgreSQL can store the string as text. */
export function storableText(s: string): boolean {
  return !s.includes('\0') && (s as string & { isWellFormed(): boolean }).isWellFormed();
}

function problem(s: string): string {
  return s.includes('\0') ? 'must not contain NUL characters' : 'must not contain unpaired UTF-16 surrogates';
}

const MAX_REPORTED = 20;

// JSON can only spell a NUL or a lone surrogate with a \u escape (raw control characters are a
// syntax error, and invalid UTF-8 decodes to U+FFFD), so a body whose raw text has no such escape
// needs no walk: the JSON parser marks it clean.
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;
const cleanBodies = new WeakSet<object>();

/** Called by the JSON body parser with the raw text and what it parsed to. */
export function noteParsedBody(raw: string, parsed: unknown): void {
  if (parsed !== null && typeof parsed === 'object' && !SUSPECT_ESCAPE.test(raw)) cleanBodies.add(parsed);
}

export const isCleanBody = (value: unknown): boolean => value !== null && typeof value === 'object' && cleanBodies.has(value);

/** `/a/0/b` for the ajv-style path of a child. */
const child = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * True when every string value and property name in `value` can be stored. This pass runs on the
 * query and headers of every request, so it builds no field paths; only a value that fails it is
 * walked again for its errors. Walks with its own stack: a body nested a million deep is data, not
 * a reason to overflow ours.
 */
function allStorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (!storableText(node)) return false;
    } else if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) {
        if (!storableText(key)) return false;
        stack.push((node as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}

/**
 * Every string value and property name in `value` that PostgreSQL could not store, as ajv-style
 * errors so they are formatted like every other validation error (`customerPhone must not
 * contain NUL characters`).
 */
export function unstorableText(value: unknown): ErrorObject[] {
  if (allStorable(value)) return [];
  const found: ErrorObject[] = [];
  const report = (instancePath: string, message: string) =>
    found.push({ keyword: 'text', instancePath, schemaPath: '#/text', params: {}, message });
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0 && found.length < MAX_REPORTED) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (!storableText(node)) report(path, problem(node));
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], child(path, i)]);
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i];
        // The key itself is not echoed: it may be what cannot be printed.
        if (!storableText(key)) report(path, `property names ${problem(key)}`);
        else stack.push([(node as Record<string, unknown>)[key], child(path, key)]);
      }
    }
  }
  return found;
}

/**
 * A path parameter names a resource, and no resource can have a name PostgreSQL could not store:
 * the character is replaced by U+FFFD, so the route looks the name up and answers the not-found
 * it is (`GET /guest/v1/venues/a%00b/menu` -> 404 VENUE_NOT_FOUND).
 */
export function unmatchableParams(params: Record<string, unknown>): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(params)) {
    const v = params[key];
    if (typeof v === 'string' && !storableText(v)) {
      out ??= { ...params };
      out[key] = (v as string & { toWellFormed(): string }).toWellFormed().replace(/\0/g, '\ufffd');
    }
  }
  return out;
}
