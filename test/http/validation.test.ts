import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'typebox';
import { DECIMALS_KEYWORD, Nullable, StringEnum } from '../../src/http/schemas/common.js';
import { noteParsedBody } from '../../src/http/text-safety.js';
import type { ErrorObject } from 'ajv';
import {
  assertValid,
  fieldPath,
  formatValidationErrors,
  validatorCompiler,
  validatorFactory,
  ValidatorWarmUp,
} from '../../src/http/validation.js';
import { validatorCompiles } from '../../src/http/bounded-errors.js';

/** Validates like a route does and returns the errors[] entries (empty when valid). */
function check(schema: object, data: unknown, httpPart: 'body' | 'querystring' = 'body', root = 'body'): string[] {
  const validate = validatorCompiler({ schema, httpPart, method: 'POST', url: '/x' }) as (d: unknown) => {
    value?: unknown;
    error?: never;
  };
  const result = validate(data);
  return result.error ? formatValidationErrors(result.error, root) : [];
}

describe('fieldPath', () => {
  const cases: [string, string | undefined, string][] = [
    ['', undefined, ''],
    ['', 'foo', 'foo'],
    ['/name', undefined, 'name'],
    ['/products/3/priceMinor', undefined, 'products[3].priceMinor'],
    ['/products/0', 'colour', 'products[0].colour'],
    ['/products/12/modifierGroups/0/options/49', undefined, 'products[12].modifierGroups[0].options[49]'],
    ['/0/name', undefined, '[0].name'],
    ['/matrix/1/2', undefined, 'matrix[1][2]'],
    ['/translations/pt-BR/name', undefined, 'translations.pt-BR.name'],
    ['/a~1b/c~0d', undefined, 'a/b.c~d'],
  ];
  for (const [instancePath, child, expected] of cases) {
    it(`turns '${instancePath}'${child ? ` + '${child}'` : ''} into '${expected}'`, () => {
      assert.equal(fieldPath(instancePath, child), expected);
    });
  }
});

describe('formatValidationErrors', () => {
  const Product = Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 10 }),
      priceMinor: Type.Integer({ minimum: 0 }),
      unit: Type.Optional(StringEnum(['PCS', 'G', 'ML'] as const)),
      note: Type.Optional(Nullable(Type.String({ maxLength: 5 }))),
      at: Type.Optional(Type.String({ format: 'date-time' })),
      tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2 })),
    },
    { additionalProperties: false },
  );
  const Sync = Type.Object({ products: Type.Array(Product, { maxItems: 3 }) }, { additionalProperties: false });
  const valid = { name: 'Tea', priceMinor: 100 };

  it('accepts a valid body', () => {
    assert.deepEqual(check(Sync, { products: [valid] }), []);
  });

  it("reports a range as '<path> must be >= <limit>'", () => {
    const errs = check(Sync, { products: [valid, valid, { ...valid, priceMinor: -1 }] });
    assert.deepEqual(errs, ['products[2].priceMinor must be >= 0']);
  });

  it("reports an unknown property as '<path> is not allowed'", () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, colour: 'red' }] }), ['products[0].colour is not allowed']);
    assert.deepEqual(check(Sync, { products: [], extra: 1 }), ['extra is not allowed']);
  });

  it("reports an array over its cap as '<path> must have at most <n> items'", () => {
    assert.deepEqual(check(Sync, { products: [valid, valid, valid, valid] }), ['products must have at most 3 items']);
  });

  it('reports an array under its minimum', () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, tags: [] }] }), ['products[0].tags must have at least 1 item']);
  });

  it("reports a missing field as '<path> is required'", () => {
    assert.deepEqual(check(Sync, { products: [{ name: 'Tea' }] }), ['products[0].priceMinor is required']);
    assert.deepEqual(check(Sync, {}), ['products is required']);
  });

  it('reports wrong types without coercing a body', () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, priceMinor: '12' }] }), ['products[0].priceMinor must be an integer']);
    assert.deepEqual(check(Sync, { products: [{ ...valid, priceMinor: 1.5 }] }), ['products[0].priceMinor must be an integer']);
    assert.deepEqual(check(Sync, { products: {} }), ['products must be an array']);
    assert.deepEqual(check(Sync, { products: [{ ...valid, name: 5 }] }), ['products[0].name must be a string']);
  });

  it('reads an absent body (null from Fastify) as {}, so the schema says what is missing', () => {
    const Optional = Type.Object({ dryRun: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
    assert.deepEqual(check(Optional, undefined), []);
    assert.deepEqual(check(Optional, null), []);
    assert.deepEqual(check(Sync, null), ['products is required']);
  });

  it('names the root when the whole body has the wrong type', () => {
    assert.deepEqual(check(Sync, 'text'), ['body must be an object']);
    assert.deepEqual(check(Sync, [1]), ['body must be an object']);
  });

  it('lists the allowed values of an enum', () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, unit: 'KG' }] }), ['products[0].unit must be one of: PCS, G, ML']);
  });

  it('reports string lengths', () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, name: '' }] }), ['products[0].name must not be empty']);
    assert.deepEqual(check(Sync, { products: [{ ...valid, name: 'x'.repeat(11) }] }), ['products[0].name must be at most 10 characters']);
  });

  it("reports a nullable field's real rule, or the accepted types", () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, note: null }] }), []);
    assert.deepEqual(check(Sync, { products: [{ ...valid, note: 'too long' }] }), ['products[0].note must be at most 5 characters']);
    assert.deepEqual(check(Sync, { products: [{ ...valid, note: 5 }] }), ['products[0].note must be one of: string, null']);
  });

  it('asks for a timezone on a naive timestamp', () => {
    assert.deepEqual(check(Sync, { products: [{ ...valid, at: '2026-01-01T10:00:00Z' }] }), []);
    assert.deepEqual(check(Sync, { products: [{ ...valid, at: '2026-01-01T10:00:00' }] }), [
      'products[0].at must be an ISO 8601 timestamp with a timezone',
    ]);
  });

  it('reports every violated rule, each once, each starting with its path', () => {
    const errs = check(Sync, {
      products: [
        { name: '', priceMinor: -5, colour: 'x' },
        { ...valid, unit: 'KG' },
      ],
    });
    assert.deepEqual(errs.sort(), [
      'products[0].colour is not allowed',
      'products[0].name must not be empty',
      'products[0].priceMinor must be >= 0',
      'products[1].unit must be one of: PCS, G, ML',
    ]);
    assert.equal(new Set(errs).size, errs.length);
  });

  it('coerces query strings and names the query root', () => {
    const Query = Type.Object({ page: Type.Integer({ minimum: 1 }) });
    assert.deepEqual(check(Query, { page: '2' }, 'querystring', 'query'), []);
    assert.deepEqual(check(Query, { page: '0' }, 'querystring', 'query'), ['page must be >= 1']);
    assert.deepEqual(check(Type.Integer({ minimum: 1 }), 0, 'querystring', 'query'), ['query must be >= 1']);
  });
});

describe('numbers no route can use', () => {
  const Query = Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  });
  const max = Number.MAX_SAFE_INTEGER;

  it('refuses a query integer that text coerces to Infinity or past the safe integers', () => {
    for (const text of ['Infinity', '1e308', '1e400', '9007199254740993']) {
      assert.deepEqual(check(Query, { page: text }, 'querystring', 'query'), [`page must be <= ${max}`], text);
    }
    assert.deepEqual(check(Query, { page: '-Infinity' }, 'querystring', 'query'), ['page must be >= 1']);
    assert.deepEqual(check(Query, { limit: 'Infinity' }, 'querystring', 'query'), ['limit must be <= 100']);
    for (const text of ['NaN', '1.5', '', 'abc']) {
      assert.deepEqual(check(Query, { page: text }, 'querystring', 'query'), ['page must be an integer'], text);
    }
    assert.deepEqual(check(Query, { page: String(max) }, 'querystring', 'query'), []);
  });

  it('refuses a body number JSON read as Infinity, in a field of any name at any depth', () => {
    const Body = Type.Object({
      default: Type.Integer(),
      items: Type.Array(Type.Object({ ratio: Type.Number(), at: Type.Optional(Nullable(Type.Integer({ maximum: 5 }))) })),
    });
    const body = JSON.parse('{"default":1e400,"items":[{"ratio":-1e400,"at":1e400}]}');
    assert.deepEqual(check(Body, body).sort(), [
      'default must be <= 9007199254740991',
      'items[0].at must be <= 5',
      `items[0].ratio must be >= ${-Number.MAX_VALUE}`,
    ]);
    assert.deepEqual(check(Body, { default: -max, items: [{ ratio: 0.5, at: null }] }), []);
  });

  it('leaves the schema the OpenAPI document shows as it was', () => {
    const Body = Type.Object({ n: Type.Integer() });
    check(Body, { n: 1 });
    assert.equal((Body.properties.n as { maximum?: number }).maximum, undefined);
  });
});

describe('assertValid (the CLI path)', () => {
  const Body = Type.Object({ currency: StringEnum(['EUR', 'USD'] as const) }, { additionalProperties: false });

  it('returns valid input unchanged', () => {
    assert.deepEqual(assertValid(Body, { currency: 'EUR' }), { currency: 'EUR' });
  });

  it("throws 'Validation failed' with the same errors[] entries as the routes", () => {
    assert.throws(
      () => assertValid(Body, { currency: 'BTC', x: 1 }),
      (err: Error & { errors?: string[] }) => {
        assert.equal(err.message, 'Validation failed');
        assert.deepEqual(err.errors?.sort(), ['currency must be one of: EUR, USD', 'x is not allowed']);
        return true;
      },
    );
  });

  it('names the input root when the whole value is wrong', () => {
    assert.throws(
      () => assertValid(Body, null),
      (err: Error & { errors?: string[] }) => {
        assert.deepEqual(err.errors, ['input must be an object']);
        return true;
      },
    );
  });
});

describe('bounded validation', () => {
  // The shapes of the reported attacks: errors by the million, and one anyOf per array element.
  const Option = Type.Object({ ingredientExternalId: Type.String({ minLength: 1 }) }, { additionalProperties: false });
  const Group = Type.Object({ name: Type.String(), options: Type.Array(Option, { maxItems: 50 }) }, { additionalProperties: false });
  const Product = Type.Object(
    {
      externalId: Type.String(),
      salePriceMinor: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
      modifierGroups: Type.Optional(Type.Array(Group, { maxItems: 20 })),
    },
    { additionalProperties: false },
  );
  const Body = Type.Object({ products: Type.Array(Product, { maxItems: 500 }) }, { additionalProperties: false });

  /** As the route sees it: parsed from JSON text (so known free of text PostgreSQL cannot store). */
  const timed = (value: unknown) => {
    const text = JSON.stringify(value);
    const data = JSON.parse(text);
    noteParsedBody(text, data);
    const started = performance.now();
    const errors = check(Body, data);
    return { errors, ms: performance.now() - started };
  };

  it('reports an over-long array once, without looking at its 1.7 million items', () => {
    const { errors, ms } = timed({ products: Array.from({ length: 1_700_000 }, () => ({})) });
    assert.deepEqual(errors, ['products must have at most 500 items']);
    assert.ok(ms < 200, `${Math.round(ms)} ms`);
  });

  it('lists at most 100 errors and counts the rest in one line, in time linear in the body', () => {
    const products = Array.from({ length: 500 }, (_, i) => ({
      externalId: `p${i}`,
      modifierGroups: Array.from({ length: 20 }, () => ({ name: 'g', options: Array.from({ length: 50 }, () => ({})) })),
    }));
    const { errors, ms } = timed({ products });
    assert.equal(errors.length, 101);
    assert.equal(errors[0], 'products[0].modifierGroups[0].options[0].ingredientExternalId is required');
    assert.match(errors[100], /^body has (\d+ more errors and )?\d+ more invalid items, not listed$/);
    assert.ok(ms < 500, `${Math.round(ms)} ms`);
  });

  it('describes an invalid nullable field on every element once each, not once per pair', () => {
    const { errors, ms } = timed({ products: Array.from({ length: 500 }, (_, i) => ({ externalId: `p${i}`, salePriceMinor: 'x' })) });
    assert.equal(errors[0], 'products[0].salePriceMinor must be one of: integer, null');
    assert.equal(errors[1], 'products[1].salePriceMinor must be one of: integer, null');
    assert.equal(errors.length, 101);
    assert.ok(ms < 200, `${Math.round(ms)} ms`);
  });

  it('counts exactly when every error was found', () => {
    const errors = check(Body, { products: Array.from({ length: 150 }, () => ({ externalId: 1 })) });
    assert.equal(errors.length, 101);
    assert.equal(errors[100], 'body has 50 more errors, not listed');
  });

  it('cuts a property name sent by the caller at 64 characters', () => {
    const name = 'k'.repeat(500);
    const [message] = check(Body, { products: [], [name]: 1 });
    assert.equal(message, `${'k'.repeat(64)}… is not allowed`);
    assert.equal(fieldPath(`/translations/${name}/name`), `translations.${'k'.repeat(64)}….name`);
  });

  it('still reports a nested range rule under an anyOf', () => {
    assert.deepEqual(check(Body, { products: [{ externalId: 'a', salePriceMinor: -1 }] }), ['products[0].salePriceMinor must be >= 0']);
  });
});

describe('at most n decimals (x-decimals, instead of a multipleOf 0.1 that binary floating point breaks)', () => {
  const Grams = Type.Object({ fat: Type.Number({ minimum: 0, maximum: 1000, [DECIMALS_KEYWORD]: 1 }) });

  it('takes every one-decimal value, those that are not multiples of 0.1 in binary included', () => {
    for (const fat of [0, 0.1, 0.3, 0.7, 1.2, 2.9, 8.2, 12.3, 999.9, 1000, ...Array.from({ length: 100 }, (_, i) => i / 10)]) {
      assert.deepEqual(check(Grams, { fat }), [], String(fat));
    }
  });

  it('refuses more decimals as a 400 naming the field, however the number is written', () => {
    for (const fat of [0.05, 12.34, 0.1 + 0.2, 1e-7, 999.99])
      assert.deepEqual(check(Grams, { fat }), ['fat must have at most one decimal'], String(fat));
    assert.deepEqual(check(Type.Object({ x: Type.Number({ [DECIMALS_KEYWORD]: 2 }) }), { x: 1.234 }), ['x must have at most 2 decimals']);
  });
});

describe('validator warm-up', () => {
  it('compiles the body validators and every level of their explanations at once; nothing compiles on use, and they explain as before', () => {
    const schema = Type.Object(
      {
        items: Type.Array(
          Type.Object({ name: Type.String({ maxLength: 3 }), options: Type.Array(Type.Object({ n: Type.Integer({ minimum: 0 }) })) }),
          { maxItems: 10 },
        ),
      },
      { additionalProperties: false },
    );
    const warmUp = new ValidatorWarmUp();
    const compile = (validatorFactory(warmUp) as unknown as () => typeof validatorCompiler)();
    const warmed = compile({ schema, httpPart: 'body', method: 'POST', url: '/x' }) as (d: unknown) => { error?: ErrorObject[] };
    const before = validatorCompiles();
    warmUp.compileAll();
    // The checker, the body's explanation, and each array level's checker and explanation.
    assert.equal(validatorCompiles() - before, 6);
    const compiled = validatorCompiles();
    const bad = {
      items: [
        { name: 'long', options: [{ n: -1 }] },
        { name: 'ok', options: [] },
      ],
    };
    assert.deepEqual(formatValidationErrors(warmed(bad).error ?? []), [
      'items[0].name must be at most 3 characters',
      'items[0].options[0].n must be >= 0',
    ]);
    assert.equal(warmed({ items: [] }).error, undefined);
    assert.equal(validatorCompiles(), compiled, 'nothing compiled on use');
    const cold = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/x' }) as (d: unknown) => { error?: ErrorObject[] };
    assert.deepEqual(formatValidationErrors(cold(bad).error ?? []), formatValidationErrors(warmed(bad).error ?? []));
  });
});
