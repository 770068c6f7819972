/**
 * The receiver kit: what a marketplace's notification endpoint must do (docs/notifications.md),
 * done once. `handleNotification` takes a request as received and answers as the contract
 * requires; `notificationListener` wraps it for `node:http`/`node:https`.
 *
 * - HTTP Basic credentials are checked in constant time (401 otherwise);
 * - with a signing secret, `X-Signature` (`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`)
 *   must sign the raw body and its timestamp must be within the tolerance (401 otherwise);
 * - the body is parsed into its typed form, one object or the one-element array form alike (400
 *   when it is neither);
 * - delivery is at least once: a notification id already handled is answered 200 without calling
 *   the handler again, and one still being handled is answered 503 (the cloud sends it again);
 * - 200 only after the handler resolved: a handler that throws gets 500, and the cloud retries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { webhooks } from './schema.js';

type BodyOf<K extends keyof webhooks> = webhooks[K]['post'] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type One<B> = B extends readonly (infer E)[] ? E : B;

export type OrderStatus = One<BodyOf<'order-status'>>;
export type UserAccessCode = One<BodyOf<'user-access-code'>>;
export type ExpirationDateChange = One<BodyOf<'expiration-date-changes'>>;

export type Notification =
  | { kind: 'order-status'; body: OrderStatus }
  | { kind: 'user-access-code'; body: UserAccessCode }
  | { kind: 'expiration-date-changes'; body: ExpirationDateChange };

/** A notification with what identifies it. */
export type ReceivedNotification = Notification & {
  /** `X-Notification-Id`: the same on every attempt of one notification. */
  id: string;
  /** `X-Request-Id` of the API call that caused it, when one did. */
  requestId: string | undefined;
};

/** Remembers the notification ids handled. The default keeps the latest 100,000 in memory; a receiver with several processes passes a shared one. */
export interface SeenStore {
  has(id: string): boolean | Promise<boolean>;
  add(id: string): void | Promise<void>;
}

export interface ReceiverOptions {
  /** The pair given to the operator for the fleet file's `receiver.login` and `receiver.password`. */
  login: string;
  password: string;
  /** The fleet file's `receiver.hmacSecret`, when the marketplace has one: then unsigned requests are refused. */
  signingSecret?: string;
  /** Allowed distance between the signature's timestamp and this clock, seconds (default 300). */
  toleranceSeconds?: number;
  seen?: SeenStore;
  /** Unix seconds now (tests). */
  now?: () => number;
}

export interface RawRequest {
  /** The path the cloud posted to: it ends with the notification's kind. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received (the signature covers these bytes). */
  rawBody: string;
}

export interface Answer {
  status: number;
  body: string;
}

const KINDS = ['order-status', 'user-access-code', 'expiration-date-changes'] as const;
/** Notifications are a few hundred bytes; anything much larger is not one. */
export const MAX_NOTIFICATION_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The default SeenStore: a bounded set, oldest forgotten first. */
export class MemorySeenStore implements SeenStore {
  readonly #ids = new Set<string>();
  constructor(private readonly capacity = 100_000) {}
  has(id: string): boolean {
    return this.#ids.has(id);
  }
  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.values().next().value!);
  }
}

function header(h: RawRequest['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function basicOk(value: string | undefined, login: string, password: string): boolean {
  const m = value === undefined ? null : /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!m) return false;
  // Both compared whole, so the time taken does not tell which one was wrong.
  const given = Buffer.from(m[1]!, 'base64').toString('utf8');
  return sameText(given, `${login}:${password}`);
}

/** The check docs/notifications.md gives receivers ("Verifying the signature"). */
export function signatureOk(secret: string, value: string | undefined, rawBody: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  if (!value || value.length > 200) return false;
  const fields = new Map(value.split(',').map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()] as const));
  const t = fields.get('t') ?? '';
  const v1 = fields.get('v1') ?? '';
  if (!/^\d{1,12}$/.test(t) || Math.abs(nowSeconds - Number(t)) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest();
  return timingSafeEqual(Buffer.from(v1, 'hex'), expected);
}

const isText = (v: unknown): v is string => typeof v === 'string';

/** The body's one object, checked for the fields its kind always has; undefined when it is not one. */
function parseBody(kind: (typeof KINDS)[number], raw: string): Notification | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (Array.isArray(value)) {
    if (value.length !== 1) return undefined;
    value = value[0];
  }
  if (!value || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  if (!isText(o.id)) return undefined;
  if (kind === 'order-status' && isText(o.barcode) && isText(o.event_id) && isText(o.status) && isText(o.dt)) return { kind, body: o as OrderStatus };
  if (kind === 'user-access-code' && isText(o.postamat_id) && isText(o.access_code)) return { kind, body: o as UserAccessCode };
  if (kind === 'expiration-date-changes' && isText(o.event_dt) && isText(o.expire_dt)) return { kind, body: o as ExpirationDateChange };
  return undefined;
}

const answer = (status: number, message: string): Answer => ({ status, body: JSON.stringify({ message }) });

/** Answers one notification request as the contract requires, calling `handle` at most once per notification id. */
export function notificationHandler(options: ReceiverOptions, handle: (n: ReceivedNotification) => Promise<void>): (req: RawRequest) => Promise<Answer> {
  const seen = options.seen ?? new MemorySeenStore();
  const inFlight = new Set<string>();
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  return async (req) => {
    const kind = KINDS.find((k) => req.path.replace(/\/+$/, '').endsWith(`/${k}`));
    if (!kind) return answer(404, 'not a notification path');
    if (!basicOk(header(req.headers, 'authorization'), options.login, options.password)) return answer(401, 'wrong credentials');
    if (options.signingSecret !== undefined && !signatureOk(options.signingSecret, header(req.headers, 'x-signature'), req.rawBody, now(), options.toleranceSeconds)) {
      return answer(401, 'bad or stale signature');
    }
    const id = header(req.headers, 'x-notification-id') ?? '';
    if (!UUID.test(id)) return answer(400, 'X-Notification-Id missing or not a UUID');
    if (Buffer.byteLength(req.rawBody) > MAX_NOTIFICATION_BYTES) return answer(413, 'too large for a notification');
    const parsed = parseBody(kind, req.rawBody);
    if (!parsed) return answer(400, `not a ${kind} body`);
    if (await seen.has(id)) return answer(200, 'already received');
    if (inFlight.has(id)) return answer(503, 'being handled');
    inFlight.add(id);
    try {
      await handle({ ...parsed, id, requestId: header(req.headers, 'x-request-id') });
      await seen.add(id);
      return answer(200, 'received');
    } catch {
      return answer(500, 'not stored; send it again');
    } finally {
      inFlight.delete(id);
    }
  };
}

/** `notificationHandler` as a `node:http`/`node:https` request listener: reads the raw body (bounded) and writes the answer. */
export function notificationListener(options: ReceiverOptions, handle: (n: ReceivedNotification) => Promise<void>): (req: IncomingMessage, res: ServerResponse) => void {
  const handler = notificationHandler(options, handle);
  return (req, res) => {
    const send = (a: Answer): void => {
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    };
    if (req.method !== 'POST') {
      send(answer(405, 'POST only'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_NOTIFICATION_BYTES) {
        send(answer(413, 'too large for a notification'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      handler({ path: new URL(req.url ?? '/', 'http://receiver').pathname, headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8') }).then(send, () => send(answer(500, 'receiver failure')));
    });
  };
}
