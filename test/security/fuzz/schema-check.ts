/** A small checker for the JSON Schema subset of the OpenAPI document (success answers, examples). */
import type { JsonSchema } from './openapi-operations.js';

/** Errors of `value` against the schema subset the document uses (first few only). */
export function schemaErrors(value: unknown, schema: JsonSchema, at = '$', out: string[] = []): string[] {
  if (out.length >= 3) return out;
  if (schema.enum && !schema.enum.some((e) => e === value)) out.push(`${at}: not one of the enum`);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && !alternatives.some((alt) => schemaErrors(value, alt, at).length === 0)) out.push(`${at}: matches no alternative`);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((t) => typeMatches(value, t))) {
    out.push(`${at}: not ${types.join('|')}`);
    return out;
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => schemaErrors(v, schema.items!, `${at}[${i}]`, out));
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in obj)) out.push(`${at}.${key}: missing`);
    for (const [key, sub] of Object.entries(schema.properties ?? {})) if (key in obj && obj[key] !== undefined) schemaErrors(obj[key], sub, `${at}.${key}`, out);
    if (schema.additionalProperties === false) for (const key of Object.keys(obj)) if (!(key in (schema.properties ?? {}))) out.push(`${at}.${key}: not in the schema`);
  }
  return out;
}

function typeMatches(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}
