/**
 * The document's side of the deprecation plugin (http/plugins/deprecation.ts): each answer of an
 * operation with something retired lists the Deprecation, Sunset and Link headers, and its
 * description says what is retired, until when, and what replaces it.
 */
import type { JsonObject, OpenApiDocument, Operation } from './document-types.js';
import { HTTP_METHODS } from './document-types.js';

export const RETIREMENT_HEADERS: Record<string, JsonObject> = {
  Deprecation: {
    description: 'RFC 9745: when the operation, or the form of the request, was deprecated, as `@<unix time>`. Sent only on answers to something deprecated.',
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
  },
  Sunset: {
    description: 'RFC 8594: the HTTP-date from which it may be removed. Sent only with Deprecation.',
    schema: { type: 'string' },
  },
  Link: {
    description: 'With Deprecation: `<uri>; rel="deprecation"`, where the retirement and its replacement are described.',
    schema: { type: 'string' },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

function describe(op: Operation): void {
  const lines = (op['x-deprecations'] ?? []).map((r) =>
    r.form
      ? `Deprecated form: ${r.form}, since ${r.since}, may be refused from ${r.sunset} on; instead: ${r.replacement} (${r.link}). Answers to a request in this form carry Deprecation, Sunset and Link.`
      : `Deprecated since ${r.since}, may be removed from ${r.sunset} on; instead: ${r.replacement} (${r.link}). Every answer carries Deprecation, Sunset and Link.`,
  );
  op.description = [op.description, ...lines].filter(Boolean).join('\n\n');
  for (const response of Object.values(op.responses)) {
    response.headers = { ...response.headers, ...Object.fromEntries(Object.keys(RETIREMENT_HEADERS).map((h) => [h, ref(h)])) };
  }
}

/** Documents every retirement of `doc`; the header components only when something is retired. */
export function documentRetirements(doc: OpenApiDocument): void {
  let any = false;
  for (const byMethod of Object.values(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = byMethod[method];
      if (op?.['x-deprecations']?.length) {
        describe(op);
        any = true;
      }
    }
  }
  if (any) doc.components.headers = { ...doc.components.headers, ...RETIREMENT_HEADERS };
}
