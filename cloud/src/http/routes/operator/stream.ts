/**
 * GET /operator/stream: server-sent events of the live feed (operator/live-feed.ts) for the
 * console: `locker` (presence or a cell fact), `alert` (raised, repeated, acknowledged, resolved)
 * and `order` (a transition), each `data:` one JSON object. A comment every 15 s keeps proxies
 * from closing an idle stream (a per-stream timer, like a request's timeout). At most
 * MAX_STREAMS per process (429, code 4, beyond); every stream ends when the server closes.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RetryLaterError } from '../../../errors.js';
import type { LiveMessage } from '../../../operator/live-feed.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorErrors, security } from './shared.js';

export const MAX_STREAMS = 50;
export const HEARTBEAT_MS = 15_000;

export interface StreamRoutesOptions {
  deps: Pick<ServiceDeps, 'signals'>;
  /** Tests shorten it. */
  heartbeatMs?: number;
}

function frame(message: LiveMessage): string {
  const { type, ...data } = message;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const streamRoutes: FastifyPluginAsyncZod<StreamRoutesOptions> = (app, { deps, heartbeatMs = HEARTBEAT_MS }) => {
  const open = new Set<ServerResponse>();
  app.addHook('preClose', (done) => {
    for (const res of open) res.end();
    done();
  });

  app.get(
    '/stream',
    {
      schema: {
        operationId: 'streamEvents',
        tags: ['operator'],
        summary: 'Live changes as server-sent events (locker, alert, order); works with the session cookie',
        description:
          'text/event-stream. `event: locker` data `{lockerId, cellId?, online?, fact?}`; `event: alert` data `{alertId, lockerId, cellId, kind, severity, status, count}`; ' +
          '`event: order` data `{orderId, lockerId, state, rule}`. A `: heartbeat` comment every 15 s. Changes applied by this cloud process only: re-read the views after a reconnect.',
        security,
        response: { 200: z.string().describe('text/event-stream'), ...operatorErrors },
      },
    },
    (req, reply) => {
      if (open.size >= MAX_STREAMS) return Promise.reject(new RetryLaterError(`too many open streams (${MAX_STREAMS})`, 30));
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      res.write(': connected\n\n');
      open.add(res);
      const unsubscribe = deps.signals.live.subscribe((m) => res.write(frame(m)));
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
      heartbeat.unref();
      res.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      });
      req.log.info({ streams: open.size }, 'operator stream opened');
      return Promise.resolve();
    },
  );
  return Promise.resolve();
};
