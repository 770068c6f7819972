/**
 * The cloud's OpenAPI document with every component schema reference replaced by the schema it
 * names, for tests that walk request and answer schemas as plain JSON Schema (the schemas hold no
 * cycles).
 */
export function inlineSchemaRefs<T>(doc: T): T {
  const schemas = (doc as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const prefix = '#/components/schemas/';
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    if (typeof $ref === 'string' && $ref.startsWith(prefix)) {
      const target = schemas[$ref.slice(prefix.length)];
      if (target === undefined) throw new Error(`unresolved reference ${$ref}`);
      return { ...(inline(target) as object), ...(inline(rest) as object) };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  return inline(doc) as T;
}
