/**
 * The marketplace's notification receiver as a real HTTPS server: checks Basic auth (401 when
 * wrong), records every request with its raw body, and answers what the test's behaviour says:
 * a status code, or 'hang' (never answers). It can go down and come back on the same port.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TestPki } from './test-ca.js';

export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
  /** What the receiver answered (undefined while hanging). */
  status: number | undefined;
  /** With 'flood': the client closed the endless answer. */
  cut?: boolean;
}

/** A status code, 'hang' (never answers) or 'flood' (200 with a body that never ends). */
export type Behaviour = (call: { path: string; body: unknown }) => number | 'hang' | 'flood';

export class TestReceiver {
  readonly calls: ReceivedCall[] = [];
  behaviour: Behaviour = () => 200;
  #server: Server | undefined;
  #port = 0;
  readonly #sockets = new Set<Socket>();
  readonly #hanging = new Set<ServerResponse>();
  readonly #waiters: { done: () => boolean; resolve: () => void }[] = [];

  constructor(
    private readonly pki: TestPki,
    readonly login: string,
    readonly password: string,
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.#port}`;
  }

  /** Requests answered 200, i.e. delivered notifications. */
  get delivered(): ReceivedCall[] {
    return this.calls.filter((c) => c.status === 200);
  }

  async up(): Promise<void> {
    const server = createServer({ cert: this.pki.cert, key: this.pki.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = JSON.parse(raw);
        } catch {
          // kept as text
        }
        const call: ReceivedCall = { path: req.url ?? '', headers: req.headers, raw, body, status: undefined };
        this.calls.push(call);
        const expected = `Basic ${Buffer.from(`${this.login}:${this.password}`).toString('base64')}`;
        const answer = req.headers.authorization === expected ? this.behaviour({ path: call.path, body }) : 401;
        if (answer === 'hang') {
          this.#hanging.add(res);
        } else if (answer === 'flood') {
          call.status = 200;
          res.writeHead(200, { 'content-type': 'text/plain' });
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          const pump = (): void => {
            while (!res.destroyed && res.write(chunk));
          };
          res.on('drain', pump);
          res.once('close', () => {
            call.cut = true;
            this.#notify();
          });
          pump();
        } else {
          call.status = answer;
          res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : 'no');
        }
        this.#notify();
      });
    });
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    server.listen(this.#port, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (typeof address === 'object' && address) this.#port = address.port;
    this.#server = server;
  }

  /** Stops listening and cuts every connection: the cloud now gets "connection refused". */
  async down(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    const closed = once(server, 'close');
    server.close();
    for (const s of this.#sockets) s.destroy();
    await closed;
  }

  /** Resolves once `n` requests have arrived in total (I/O driven: works under fake timers). */
  waitForCalls(n: number): Promise<void> {
    return this.waitFor(() => this.calls.length >= n);
  }

  /** Resolves once `done()` holds, checked at every request. */
  waitFor(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ done, resolve }));
  }

  #notify(): void {
    for (const w of [...this.#waiters]) {
      if (w.done()) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}

export async function startReceiver(pki: TestPki, login = 'shop-a-login', password = 'shop-a-secret'): Promise<TestReceiver> {
  const r = new TestReceiver(pki, login, password);
  await r.up();
  return r;
}
