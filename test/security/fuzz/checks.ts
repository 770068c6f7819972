/**
 * The properties every answer must have, as one function: it returns the rules a request and its
 * answer broke (empty when all hold).
 *
 * - an answer comes, within the time limit, and is never a 5xx;
 * - a refusal (any status but 2xx) is the envelope {message, resultCode} as JSON, and 401 goes
 *   with codes 1, 10 and 11 and only with them;
 * - a success is the operation's success body (checked against its schema in the document), and
 *   only a valid key of the operation's kind gets one;
 * - a body beyond the body limit is refused with 413 (after a valid key), or the connection is
 *   closed while it is being sent;
 * - a refused request changes no row of the database;
 * - no answer to another marketplace or a partner carries shop-a's seeded data.
 */
import type { Reply } from './http-send.js';
import type { Operation } from './openapi-operations.js';
import type { FuzzRequest } from './request-cases.js';
import { schemaErrors } from './schema-check.js';

export interface Verdict {
  /** "200", "400 rc=3", "timeout", "no-answer" */
  outcome: string;
  broken: string[];
}

const AUTH_CODES = new Set([1, 10, 11]);

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isEnvelope(value: unknown): value is { message: string; resultCode: number } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value).sort();
  const v = value as Record<string, unknown>;
  return keys.length === 2 && keys[0] === 'message' && keys[1] === 'resultCode' && typeof v.message === 'string' && Number.isInteger(v.resultCode);
}

export interface CheckInput {
  op: Operation;
  req: FuzzRequest;
  reply: Reply;
  /** Tables a request changed (compared only for refused requests). */
  changedTables: string[];
  /** A text only shop-a's seeded order carries. */
  secret: string;
  bodyLimit: number;
}

export function check({ op, req, reply, changedTables, secret, bodyLimit }: CheckInput): Verdict {
  if (reply.kind === 'timeout') return { outcome: 'timeout', broken: ['no answer within the time limit'] };
  // A server may close the connection of a request whose body is beyond its limit (RFC 9110,
  // 413): a reset while such a body is still being sent is allowed.
  if (reply.kind === 'no-answer' && (req.body?.length ?? 0) > bodyLimit) return { outcome: 'closed while sending', broken: [] };
  if (reply.kind === 'no-answer') return { outcome: 'no-answer', broken: [`connection ended without an answer (${reply.error})`] };
  const broken: string[] = [];
  const { status } = reply;
  const parsed = parse(reply.text);
  const success = status >= 200 && status < 300;
  let outcome = String(status);
  if (status >= 500) broken.push('5xx answer');
  if (!success) {
    if (!parsed.ok || !isEnvelope(parsed.value)) broken.push(`refusal is not the envelope: ${reply.text.slice(0, 120)}`);
    else {
      outcome = `${status} rc=${parsed.value.resultCode}`;
      if (AUTH_CODES.has(parsed.value.resultCode) !== (status === 401)) broken.push(`status ${status} with resultCode ${parsed.value.resultCode}`);
    }
    if (!/^application\/json\b/i.test(reply.contentType)) broken.push(`refusal with Content-Type "${reply.contentType}"`);
    if (changedTables.length > 0) broken.push(`refused request changed the database: ${changedTables.join(', ')}`);
  } else {
    if (op.keyKind && req.caller?.kind !== op.keyKind) broken.push(`success without a valid ${op.keyKind} key (${req.auth})`);
    if (!parsed.ok) broken.push('success body is not JSON');
    else if (op.success) {
      const errors = schemaErrors(parsed.value, op.success);
      if (errors.length > 0) broken.push(`success body off its schema: ${errors.join('; ')}`);
    }
  }
  if (req.input === 'oversize-body' && req.auth === 'right' && status !== 413 && status !== 429) broken.push(`body beyond the limit answered ${status}, not 413`);
  const foreign = req.caller && req.caller.kind !== 'operator' && req.caller.owner !== 'shop-a';
  if (foreign && reply.text.includes(secret)) broken.push(`answer to ${req.caller!.owner} carries shop-a's data`);
  return { outcome, broken };
}
