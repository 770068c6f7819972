/**
 * The demo marketplaces' notification receiver: a real HTTPS server (certificate from demo/pki.ts)
 * at `/receivers/<marketplace>/<kind>` that does what docs/notifications.md asks of a receiver:
 * checks Basic auth and, where the marketplace has a secret, the HMAC signature; validates the
 * body; deduplicates by X-Notification-Id; answers 200 once the notification is stored.
 *
 * It stands in for the marketplace's back office, so it keeps what it was told (pick-up codes
 * included: passing the code to the customer is the marketplace's job) in a JSON-lines file and
 * shows it on its console page (`/`) and JSON API (`/api/notifications`). Its log lines say what
 * the marketplace was told but never carry a code. It listens on 127.0.0.1 only.
 */
import { FAVICON_CONTENT_TYPE, FAVICON_ICO } from '../shared/src/favicon.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { DemoPki } from './pki.js';

export const NOTIFICATION_KINDS = ['order-status', 'user-access-code', 'expiration-date-changes'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** A marketplace whose notifications this receiver takes. */
export interface ReceiverAccount {
  marketplaceId: string;
  login: string;
  password: string;
  hmacSecret?: string | undefined;
}

export interface ReceivedNotification {
  /** 1, 2, ... in arrival order (kept across restarts). */
  seq: number;
  receivedAt: string;
  marketplace: string;
  kind: NotificationKind;
  notificationId: string;
  /** `ok` when the marketplace has an HMAC secret and the signature matched; `none` without a secret. */
  signature: 'ok' | 'none';
  body: Record<string, unknown>;
}

const BODIES = {
  'order-status': z.object({
    postamat_id: z.string().optional(),
    cell_id: z.number().int().optional(),
    id: z.string().min(1),
    barcode: z.string().min(1),
    event_id: z.string().min(1),
    status: z.string(),
    dt: z.string().min(1),
  }),
  'user-access-code': z.object({ id: z.string().min(1), postamat_id: z.string().min(1), access_code: z.string().regex(/^\d{6,8}$/) }),
  'expiration-date-changes': z.object({ id: z.string().min(1), event_dt: z.string().min(1), expire_dt: z.string().min(1) }),
} satisfies Record<NotificationKind, z.ZodType>;

const MAX_BODY_BYTES = 64 * 1024;
const SIGNATURE_WINDOW_SECONDS = 300;

export interface DemoReceiverOptions {
  pki: DemoPki;
  port: number;
  accounts: ReceiverAccount[];
  /** JSON-lines file of everything received; read back at start. */
  storeFile: string;
  logger: Logger;
  clock: { now(): number };
}

class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class DemoReceiver {
  readonly #opts: DemoReceiverOptions;
  readonly #accounts: Map<string, ReceiverAccount>;
  readonly #received: ReceivedNotification[] = [];
  readonly #ids = new Set<string>();
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #url: string | undefined;

  constructor(opts: DemoReceiverOptions) {
    this.#opts = opts;
    this.#accounts = new Map(opts.accounts.map((a) => [a.marketplaceId, a]));
  }

  /** https://127.0.0.1:PORT (after start). */
  get url(): string {
    if (!this.#url) throw new Error('the demo receiver is not started');
    return this.#url;
  }

  /** The `{receiver_url}` of a marketplace. */
  receiverUrl(marketplaceId: string): string {
    return `${this.url}/receivers/${marketplaceId}`;
  }

  notifications(): readonly ReceivedNotification[] {
    return this.#received;
  }

  async start(): Promise<string> {
    if (this.#url) return this.#url;
    this.#load();
    const server = createServer({ cert: this.#opts.pki.cert, key: this.#opts.pki.key }, (req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        this.#opts.logger.error({ err }, 'receiver failed to answer');
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    server.listen(this.#opts.port, '127.0.0.1');
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err as Error))]);
    const address = server.address();
    this.#server = server;
    this.#url = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : this.#opts.port}`;
    return this.#url;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#url = undefined;
    const closed = once(server, 'close');
    server.close();
    for (const s of this.#sockets) s.destroy();
    await closed;
  }

  #load(): void {
    if (!existsSync(this.#opts.storeFile)) return;
    for (const line of readFileSync(this.#opts.storeFile, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const n = JSON.parse(line) as ReceivedNotification;
        this.#received.push(n);
        this.#ids.add(n.notificationId);
      } catch {
        // a line cut short by a crash: skipped
      }
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://receiver');
    if (req.method === 'GET' && url.pathname === '/') return send(res, 200, consolePage(this.#received), 'text/html; charset=utf-8');
    if (req.method === 'GET' && url.pathname === '/favicon.ico') return send(res, 200, FAVICON_ICO, FAVICON_CONTENT_TYPE);
    if (req.method === 'GET' && url.pathname === '/api/notifications') {
      const after = Number(url.searchParams.get('after') ?? 0);
      const order = url.searchParams.get('order');
      const list = this.#received.filter((n) => n.seq > after && (!order || n.body.id === order));
      return send(res, 200, JSON.stringify(list), 'application/json');
    }
    const m = /^\/receivers\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method !== 'POST' || !m) return send(res, 404, 'not found');
    try {
      send(res, 200, this.#receive(decodeURIComponent(m[1]!), m[2]!, req, await readBody(req)));
    } catch (err) {
      if (!(err instanceof HttpAnswer)) throw err;
      this.#opts.logger.warn({ marketplace: m[1], kind: m[2], status: err.status }, `notification refused: ${err.message}`);
      send(res, err.status, err.message);
    }
  }

  #receive(marketplace: string, kindText: string, req: IncomingMessage, raw: string): string {
    const account = this.#accounts.get(marketplace);
    if (!account) throw new HttpAnswer(404, 'unknown marketplace');
    const expected = `Basic ${Buffer.from(`${account.login}:${account.password}`).toString('base64')}`;
    if (!equal(req.headers.authorization ?? '', expected)) throw new HttpAnswer(401, 'wrong credentials');
    const kind = NOTIFICATION_KINDS.find((k) => k === kindText);
    if (!kind) throw new HttpAnswer(404, 'unknown notification kind');
    if (account.hmacSecret && !this.#signatureOk(account.hmacSecret, req.headers['x-signature'], raw)) throw new HttpAnswer(401, 'bad signature');
    const id = req.headers['x-notification-id'];
    if (typeof id !== 'string' || id === '') throw new HttpAnswer(400, 'no X-Notification-Id');
    if (this.#ids.has(id)) return 'duplicate';

    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new HttpAnswer(400, 'body is not JSON');
    }
    // The marketplace's body form: one object, or a one-element array.
    const element = Array.isArray(json) && json.length === 1 ? (json[0] as unknown) : json;
    const parsed = BODIES[kind].safeParse(element);
    if (!parsed.success) throw new HttpAnswer(400, `body does not match ${kind}`);

    const n: ReceivedNotification = {
      seq: (this.#received.at(-1)?.seq ?? 0) + 1,
      receivedAt: new Date(this.#opts.clock.now()).toISOString(),
      marketplace,
      kind,
      notificationId: id,
      signature: account.hmacSecret ? 'ok' : 'none',
      body: parsed.data,
    };
    appendFileSync(this.#opts.storeFile, `${JSON.stringify(n)}\n`, { mode: 0o600 });
    this.#received.push(n);
    this.#ids.add(id);
    this.#log(n);
    return 'ok';
  }

  #signatureOk(secret: string, header: string | string[] | undefined, raw: string): boolean {
    if (typeof header !== 'string') return false;
    const fields = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
    const t = Number(fields.t);
    if (!Number.isInteger(t) || Math.abs(Math.floor(this.#opts.clock.now() / 1000) - t) > SIGNATURE_WINDOW_SECONDS) return false;
    const expected = createHmac('sha256', secret).update(`${fields.t}.${raw}`).digest();
    const given = Buffer.from(fields.v1 ?? '', 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** What the marketplace was told, without the pick-up code. */
  #log(n: ReceivedNotification): void {
    const b = n.body;
    const log = this.#opts.logger;
    const base = { marketplace: n.marketplace, kind: n.kind, order: b.id };
    switch (n.kind) {
      case 'order-status': {
        const where = b.cell_id !== undefined ? ` (locker ${t(b.postamat_id)}, cell ${t(b.cell_id)})` : '';
        log.info(
          { ...base, barcode: b.barcode, event: b.event_id },
          `${n.marketplace} told: order ${t(b.id)} parcel ${t(b.barcode)} status ${t(b.event_id)} (${t(b.status)})${where}`,
        );
        return;
      }
      case 'user-access-code':
        log.info(
          { ...base, locker: b.postamat_id },
          `${n.marketplace} told: the pick-up code of order ${t(b.id)} at locker ${t(b.postamat_id)} (on the receiver console)`,
        );
        return;
      case 'expiration-date-changes':
        log.info({ ...base, expires: b.expire_dt }, `${n.marketplace} told: storage of order ${t(b.id)} ends ${t(b.expire_dt)}`);
        return;
    }
  }
}

/** A body field as text (bodies were validated, so fields are strings or numbers). */
const t = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpAnswer(413, 'body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function describe(n: ReceivedNotification): string {
  const b = n.body;
  switch (n.kind) {
    case 'order-status':
      return `parcel ${t(b.barcode)}: ${t(b.event_id)} ${t(b.status)}${b.cell_id !== undefined ? `, locker ${t(b.postamat_id)} cell ${t(b.cell_id)}` : ''}`;
    case 'user-access-code':
      return `pick-up code <b>${t(b.access_code)}</b> at locker ${t(b.postamat_id)}`;
    case 'expiration-date-changes':
      return `storage ends ${t(b.expire_dt)}`;
  }
}

/** The marketplace's view: the latest notifications, newest first; refreshes itself. */
function consolePage(received: readonly ReceivedNotification[]): string {
  const rows = received
    .slice(-300)
    .reverse()
    .map(
      (n) =>
        `<tr><td>${n.seq}</td><td>${escapeHtml(n.receivedAt.slice(0, 19).replace('T', ' '))}</td><td>${escapeHtml(n.marketplace)}</td>` +
        `<td>${escapeHtml(n.kind)}</td><td>${escapeHtml(String(n.body.id))}</td><td>${describe({ ...n, body: escapeBody(n.body) })}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="3">
<title>Demo marketplace receiver</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse;width:100%}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
td:nth-child(-n+5),th{white-space:nowrap}td:last-child{overflow-wrap:anywhere}
@media (orientation:portrait){body{margin:.75rem;font-size:15px}td,th{padding:.2rem .35rem}th:nth-child(3),td:nth-child(3){display:none}}</style>
</head><body><h1>Demo marketplace receiver</h1>
<p>What the cloud told the demo marketplaces (newest first; JSON at <a href="/api/notifications">/api/notifications</a>).
Pick-up codes are shown here because handing them to the customer is the marketplace's job; the logs never carry them.</p>
<table><tr><th>#</th><th>received (UTC)</th><th>marketplace</th><th>kind</th><th>order</th><th>what</th></tr>
${rows || '<tr><td colspan="6">nothing yet</td></tr>'}
</table></body></html>`;
}

function escapeBody(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? escapeHtml(v) : v]));
}
