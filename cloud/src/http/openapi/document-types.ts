/** The parts of an OpenAPI 3.1 document that the cloud's document is finished with (finish.ts). */
import type { DocumentedRetirement } from '../plugins/deprecation.js';

export type JsonObject = Record<string, unknown>;

export interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

export interface MediaType {
  schema?: JsonObject;
  examples?: Record<string, ExampleObject>;
}

export interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: JsonObject;
  examples?: Record<string, ExampleObject>;
}

export interface Response {
  description: string;
  headers?: Record<string, JsonObject>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  deprecated?: boolean;
  /** Set by the deprecation plugin (http/plugins/deprecation.ts): what is retired and when. */
  'x-deprecations'?: DocumentedRetirement[];
}

export interface OpenApiDocument {
  openapi: string;
  info: JsonObject;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
    headers?: Record<string, JsonObject>;
  };
  tags?: { name: string; description: string }[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
