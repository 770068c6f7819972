/**
 * The shape of an operation's examples in the OpenAPI document. Each operation (by its
 * operationId) has requests and answers; every request names the answer it gets when all the
 * examples run in their order against the example fleet (deploy/fleet.example.json) on a fresh
 * database on 2030-03-04 at 12:00 Moscow time, which test/openapi/examples.test.ts does.
 */
import type { ResultCode } from '../../../../../shared/src/enums.js';

export interface RequestExample {
  summary: string;
  description?: string;
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  /** Request headers; the API key only when it is not the example fleet's demo key of the security scheme (e.g. the sandbox's). */
  headers?: Record<string, string>;
  body?: unknown;
  /** Invalid on purpose (a refusal with code 3): the examples test expects it to break its schema. */
  invalid?: true;
  /** Not sent by the example run, and why (e.g. an answer that never ends); its answer is shown all the same. */
  notSent?: string;
  /** HTTP status of the answer. */
  status: number;
  /** Name of the answer example under that status: by default this request's name; `code<N>` names a refusal with resultCode N. */
  answer?: string;
}

export interface AnswerExample {
  /** Default 200. */
  status?: number;
  summary: string;
  description?: string;
  /**
   * The answer with every field; arrays may show fewer items than the server sends (the example
   * run checks the items shown, in order).
   */
  value: unknown;
}

export interface OperationExamples {
  /** What a success answer is: the description of its response. */
  success: string;
  /** Descriptions of answer statuses the shared ones (finish.ts) do not cover, e.g. { '409': '...' }. */
  statuses?: Record<string, string>;
  /** Result codes of the operation's own refusals, beyond the ones every operation of its key kind answers. */
  codes?: ResultCode[];
  requests: Record<string, RequestExample>;
  /** Success answers, by name. Refusals are made from the result codes. */
  answers: Record<string, AnswerExample>;
}

/** The name of the refusal example of a result code. */
export const codeExampleName = (code: number): string => `code${code}`;
