/**
 * The operations of the cloud's OpenAPI document (served at /docs/json): every path and method,
 * the header its security scheme names, its path and query parameters, the request body schema
 * and the success answer schema. The fuzz suite covers exactly this list, so a new operation is
 * fuzzed without touching the suite.
 */
import { inlineSchemaRefs } from '../../helpers/openapi-refs.js';

/** The subset of JSON Schema that the zod-generated document uses. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
}

export type KeyKind = 'marketplace' | 'partner' | 'operator';

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "PUT /api/v4/auth/delivery/order/update" */
  readonly id: string;
  readonly method: string;
  /** The path template, e.g. /operator/postamats/{postamatId}/cells/{cellId}/flags. */
  readonly path: string;
  /** The key the operation asks for; undefined for open operations (/health). */
  readonly keyKind: KeyKind | undefined;
  readonly keyHeader: string | undefined;
  readonly pathParams: Parameter[];
  readonly queryParams: Parameter[];
  readonly body: JsonSchema | undefined;
  readonly success: JsonSchema | undefined;
}

interface DocOperation {
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, DocOperation>>;
  components?: { securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
}

/** Which kind of key each scheme stands for, by the header it names. */
const KIND_OF_HEADER: Record<string, KeyKind> = {
  'x-service-api-key': 'marketplace',
  'partner-api-key': 'partner',
  'x-operator-api-key': 'operator',
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);
/** Streams answer without end (server-sent events): no request/answer to fuzz. */
const STREAMING = new Set(['GET /operator/stream']);

export function operationsOf(document: OpenApiDocument): Operation[] {
  const doc = inlineSchemaRefs(document);
  const schemes = doc.components?.securitySchemes ?? {};
  const operations: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      if (!METHODS.has(method) || STREAMING.has(`${method.toUpperCase()} ${path}`)) continue;
      const schemeName = Object.keys(op.security?.[0] ?? {})[0];
      const header = schemeName ? schemes[schemeName]?.name?.toLowerCase() : undefined;
      if (schemeName && (!header || !KIND_OF_HEADER[header])) throw new Error(`${method} ${path}: unknown security scheme ${schemeName}`);
      const params = (where: string): Parameter[] =>
        (op.parameters ?? []).filter((p) => p.in === where).map((p) => ({ name: p.name, required: p.required ?? false, schema: p.schema }));
      operations.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        keyKind: header ? KIND_OF_HEADER[header] : undefined,
        keyHeader: header,
        pathParams: params('path'),
        queryParams: params('query'),
        body: op.requestBody?.content?.['application/json']?.schema,
        success: op.responses?.['200']?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}
