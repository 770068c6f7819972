/**
 * One attempt to deliver one notification: POST {receiver_url}/<kind> with the stored body (as an
 * object or a one-element array, per marketplace), `Content-Type: application/json`, Basic auth,
 * `X-Notification-Id` (the row's uid, stable across attempts), `X-Request-Id` (the API call that
 * caused it, when one did) and, with an HMAC secret, the
 * signature header. HTTPS verifies the receiver's certificate against the system roots plus the
 * marketplace's CA file when it has one; plain http only when the settings allow it. Only HTTP
 * 200 counts as delivered; redirects are not followed.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { scrubText } from '../../../shared/src/redact.js';
import { traceparentOf } from '../../../shared/src/tracing.js';
import type { Clock } from '../clock.js';
import type { NotificationReceiver } from '../repositories/accounts.js';
import type { ClaimedNotification } from '../repositories/notifications.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

export type AttemptOutcome = { ok: true; status: 200 } | { ok: false; status: number | null; error: string };

export interface ReceiverClientOptions {
  timeoutMs: number;
  allowPlainHttp: boolean;
  clock: Clock;
}

export const NOTIFICATION_ID_HEADER = 'x-notification-id';
/** The X-Request-Id of the API call that caused the notification (absent when none did). */
export const REQUEST_ID_HEADER = 'x-request-id';

function failure(error: string, status: number | null = null): AttemptOutcome {
  return { ok: false, status, error: scrubText(error) };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = 'code' in err && typeof err.code === 'string' ? err.code : err.name;
  const cause = err.cause instanceof Error ? `: ${describe(err.cause)}` : '';
  return `${code}: ${err.message}${cause}`;
}

export class ReceiverClient {
  readonly #opts: ReceiverClientOptions;
  #plain: Agent | undefined;
  /** Agents trusting a marketplace CA file, by the file's content hash. */
  readonly #withCa = new Map<string, Agent>();

  constructor(opts: ReceiverClientOptions) {
    this.#opts = opts;
  }

  async #dispatcher(caFile: string | null): Promise<Agent> {
    if (!caFile) return (this.#plain ??= new Agent());
    const pem = await readFile(caFile, 'utf8');
    const key = createHash('sha256').update(pem).digest('hex');
    let agent = this.#withCa.get(key);
    if (!agent) {
      agent = new Agent({ connect: { ca: [...rootCertificates, pem] } });
      this.#withCa.set(key, agent);
    }
    return agent;
  }

  async send(notification: ClaimedNotification, receiver: NotificationReceiver): Promise<AttemptOutcome> {
    if (!receiver.url) return failure('no receiver configured for the marketplace');
    let url: URL;
    try {
      url = new URL(`${receiver.url.replace(/\/+$/, '')}/${notification.kind}`);
    } catch {
      return failure('receiver URL is not a valid URL');
    }
    if (url.protocol === 'http:' && !this.#opts.allowPlainHttp) return failure('plain http receiver refused (HTTPS required; NOTIFY_ALLOW_HTTP for local demos)');
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return failure(`unsupported receiver protocol ${url.protocol}`);

    const body = receiver.bodyForm === 'array' ? `[${notification.bodyJson}]` : notification.bodyJson;
    const headers: Record<string, string> = { 'content-type': 'application/json', [NOTIFICATION_ID_HEADER]: notification.uid };
    if (notification.requestId !== null) headers[REQUEST_ID_HEADER] = notification.requestId;
    if (receiver.login !== null) {
      headers.authorization = `Basic ${Buffer.from(`${receiver.login}:${receiver.password ?? ''}`, 'utf8').toString('base64')}`;
    }
    // The delivery span's context (tracing on), so a traced receiver continues the trace.
    const traceparent = traceparentOf();
    if (traceparent !== undefined) headers.traceparent = traceparent;
    if (receiver.hmacSecret) headers[SIGNATURE_HEADER] = signatureHeader(receiver.hmacSecret, body, Math.floor(this.#opts.clock.now() / 1000));

    let dispatcher: Agent;
    try {
      dispatcher = await this.#dispatcher(url.protocol === 'https:' ? receiver.caFile : null);
    } catch (err) {
      return failure(`receiver CA file unreadable: ${describe(err)}`);
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.#opts.timeoutMs} ms`)), this.#opts.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher,
        signal: abort.signal,
        // undici's own limits stay behind ours; ours decides (and follows the injected timers).
        headersTimeout: this.#opts.timeoutMs + 5_000,
        bodyTimeout: this.#opts.timeoutMs + 5_000,
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return res.statusCode === 200 ? { ok: true, status: 200 } : failure(`HTTP ${res.statusCode}`, res.statusCode);
    } catch (err) {
      return failure(abort.signal.aborted ? `timeout: no answer within ${this.#opts.timeoutMs} ms` : describe(err));
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const agents = [...this.#withCa.values(), ...(this.#plain ? [this.#plain] : [])];
    this.#withCa.clear();
    this.#plain = undefined;
    await Promise.all(agents.map((a) => a.destroy()));
  }
}
