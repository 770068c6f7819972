/**
 * JSON Schema -> fast-check arbitrary of values the schema accepts (or nearly: patterns and
 * formats are honoured, cross-field rules of the domain are not). Sizes are kept small: the
 * limits themselves are probed by the mutations, not here.
 *
 * `hints` name plausible values per property name (the seeded orders' ids, the fleet's lockers),
 * so that valid-ish requests reach past "not found" into the domain code.
 */
import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

export type Hints = Readonly<Record<string, fc.Arbitrary<unknown>>>;

const SMALL = 3; // most items an array or string grows to here

function withHint(name: string | undefined, hints: Hints, generated: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const hint = name !== undefined ? hints[name] : undefined;
  return hint ? fc.oneof({ arbitrary: hint, weight: 4 }, { arbitrary: generated, weight: 1 }) : generated;
}

function integerArbitrary(s: JsonSchema): fc.Arbitrary<number> {
  const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? Number.MIN_SAFE_INTEGER);
  const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : (s.maximum ?? Number.MAX_SAFE_INTEGER);
  const near = [min, max, 0, 1, 2, 100].filter((n) => n >= min && n <= max);
  const lo = Math.max(min, Number.MIN_SAFE_INTEGER);
  const hi = Math.min(max, Number.MAX_SAFE_INTEGER);
  return fc.oneof(fc.constantFrom(...near), fc.integer({ min: Math.max(lo, -1000), max: Math.max(Math.min(hi, 1000), Math.max(lo, -1000)) }), fc.integer({ min: lo, max: hi }));
}

function stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
  if (s.pattern !== undefined) return fc.stringMatching(new RegExp(s.pattern), { maxLength: 40 });
  if (s.format === 'date') {
    return fc.date({ min: new Date('2030-03-02T00:00:00Z'), max: new Date('2030-03-20T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  }
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 24, 24));
  return fc.string({ minLength, maxLength });
}

export function schemaArbitrary(schema: JsonSchema, hints: Hints, name?: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alt) => schemaArbitrary(alt, hints, name)));
  if (schema.allOf?.length) return schemaArbitrary(Object.assign({}, ...schema.allOf) as JsonSchema, hints, name);
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => schemaArbitrary({ ...schema, type }, hints, name)));
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of Object.entries(props)) model[key] = schemaArbitrary(sub, hints, key);
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? SMALL, SMALL));
      return fc.array(schemaArbitrary(schema.items ?? {}, hints, name), { minLength, maxLength });
    }
    case 'string':
      return withHint(name, hints, stringArbitrary(schema));
    case 'integer':
      return withHint(name, hints, integerArbitrary(schema));
    case 'number':
      return withHint(name, hints, fc.oneof(integerArbitrary(schema), fc.double({ noNaN: true, noDefaultInfinity: true })));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case undefined:
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
