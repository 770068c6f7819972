/** JSON over HTTP for the demo's traffic and start-up checks (undici, so a custom CA can be trusted). */
import { Agent, request } from 'undici';

export interface JsonAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several services, read loosely
  body: any;
}

export class JsonClient {
  readonly #dispatcher: Agent;

  /** `ca`: extra CA (PEM) to trust, for the demo receiver's HTTPS. */
  constructor(ca?: string) {
    this.#dispatcher = new Agent({ connect: ca ? { ca } : {} });
  }

  async call(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const res = await request(url, {
      method,
      dispatcher: this.#dispatcher,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: res.statusCode, body: parsed };
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}
