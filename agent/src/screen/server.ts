/**
 * The locker's screen: a static page (public/) for the kiosk browser and the JSON API behind it.
 * Every answer is the whole screen state, so the page only renders what it is given. GET /metrics
 * serves the agent's metrics (vitals/vitals.ts) to Prometheus on the same port.
 */
import { FAVICON_CONTENT_TYPE, FAVICON_ICO } from '../../../shared/src/favicon.js';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AgentConfig, Language } from '../config.js';
import type { Kiosk, KioskState } from '../locker/kiosk.js';

/**
 * `offline`: the locker has a cloud link and it is down right now. The page shows staff a discreet
 * mark; couriers and customers carry on, as everything at the screen works offline.
 */
export type ScreenState = KioskState & { lang: Language; languages: Language[]; offline: boolean };

const kindSchema = z.enum(['courier', 'customer', 'service']);

export class ScreenServer {
  private app: { close(): Promise<unknown> } | undefined;
  private lang: Language;
  private url: string | undefined;

  constructor(
    private readonly kiosk: Kiosk,
    private readonly settings: AgentConfig['screen'],
    private readonly logger: Logger,
    /** The agent's metrics, served at GET /metrics (vitals/vitals.ts). */
    private readonly metrics?: { contentType: string; metrics(): Promise<string> },
    /** Whether the cloud link is up; undefined when the locker runs without one. */
    private readonly linkUp: () => boolean | undefined = () => undefined,
  ) {
    this.lang = settings.defaultLanguage;
  }

  /** Listens; returns the page's URL. */
  async start(): Promise<string> {
    if (this.url) return this.url;
    // Kiosk polling would flood the log with per-request lines; only errors are logged.
    const app = Fastify({
      loggerInstance: this.logger.child({ part: 'screen' }),
      logController: new LogController({ disableRequestLogging: true }),
      // One program at the locker (or a misbehaving page) must not hold the screen's memory or sockets.
      bodyLimit: this.settings.maxBodyBytes,
    });
    app.server.maxConnections = this.settings.maxConnections;
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
      const status = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
      if (status === 500) this.logger.error({ err }, 'screen API error');
      return reply.status(status).send({ error: status === 500 ? 'internal' : 'bad_request', message: status === 500 ? 'internal error' : err.message });
    });
    await app.register(fastifyStatic, { root: fileURLToPath(new URL('./public', import.meta.url)), index: 'index.html' });
    app.get('/favicon.ico', (_req, reply) => reply.type(FAVICON_CONTENT_TYPE).header('Cache-Control', 'public, max-age=86400').send(FAVICON_ICO));
    const api = app.withTypeProvider<ZodTypeProvider>();
    const metrics = this.metrics;
    if (metrics) app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.metrics()));
    api.get('/api/state', () => this.withLang(this.kiosk.state()));
    api.post('/api/lang', { schema: { body: z.object({ lang: z.enum(this.settings.languages as [Language, ...Language[]]) }) } }, (req) => {
      this.lang = req.body.lang;
      return this.withLang(this.kiosk.state());
    });
    api.post('/api/choose', { schema: { body: z.object({ kind: kindSchema }) } }, async (req) => this.withLang(await this.kiosk.choose(req.body.kind)));
    api.post('/api/code', { schema: { body: z.object({ kind: kindSchema, code: z.string().regex(/^\d{1,16}$/) }) } }, async (req) =>
      this.withLang(await this.kiosk.submitCode(req.body.kind, req.body.code)),
    );
    api.post('/api/scan', { schema: { body: z.object({ barcode: z.string().trim().min(1).max(128) }) } }, async (req) =>
      this.withLang(await this.kiosk.scan(req.body.barcode)),
    );
    api.post('/api/choose-order', { schema: { body: z.object({ orderId: z.string().min(1).max(128) }) } }, async (req) =>
      this.withLang(await this.kiosk.chooseOrder(req.body.orderId)),
    );
    api.post('/api/inventory/open', { schema: { body: z.object({ cellId: z.int().min(1).max(100_000) }) } }, async (req) =>
      this.withLang(await this.kiosk.openForInventory(req.body.cellId)),
    );
    api.post('/api/inventory/record', { schema: { body: z.object({ outcome: z.enum(['empty', 'found']) }) } }, async (req) =>
      this.withLang(await this.kiosk.recordInventory(req.body.outcome)),
    );
    api.post('/api/returns', async () => this.withLang(await this.kiosk.collectReturns()));
    api.post('/api/does-not-fit', async () => this.withLang(await this.kiosk.doesNotFit()));
    api.post('/api/cancel-load', async () => this.withLang(await this.kiosk.cancelLoad()));
    api.post('/api/back', async () => this.withLang(await this.kiosk.back()));
    api.post('/api/home', async () => {
      const state = await this.kiosk.home();
      this.lang = this.settings.defaultLanguage;
      return this.withLang(state);
    });
    const address = await app.listen({ host: this.settings.host, port: this.settings.port });
    this.app = app;
    this.url = address.replace('[::1]', 'localhost');
    return this.url;
  }

  async stop(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    this.url = undefined;
    await app?.close();
  }

  private withLang(s: KioskState): ScreenState {
    return { ...s, lang: this.lang, languages: this.settings.languages, offline: this.linkUp() === false };
  }
}
