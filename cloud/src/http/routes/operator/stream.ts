/**
 * GET /operator/stream: server-sent events of the live feed (operator/live-feed.ts) for the
 * console: `locker` (presence or a cell fact), `alert` (raised, repeated, acknowledged, resolved)
 * and `order` (a transition), each `data:` one JSON object. A comment every 15 s keeps proxies
 * from closing an idle stream (a per-stream timer, like a request's timeout). At most
 * MAX_STREAMS per process and MAX_STREAMS_PER_OPERATOR of them per operator (by key or session,
 * both name the operator), so that one caller, a leaked viewer key say, never takes every slot
 * (429, code 4, beyond); every stream ends when the server closes.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RetryLaterError } from '../../../errors.js';
import type { LiveMessage } from '../../../operator/live-feed.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { operatorErrors, security } from './shared.js';

export const MAX_STREAMS = 50;
/** A console tab holds one stream; a few tabs or screens per operator, well under MAX_STREAMS. */
export const MAX_STREAMS_PER_OPERATOR = 5;
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

/** Frames of one stream are written together at most this often: one write, not one per change. */
export const FLUSH_MS = 50;
/** A stream whose reader leaves this much unread is closed (the console reconnects and re-reads). */
export const MAX_UNREAD_BYTES = 1_048_576;

/**
 * The writer of one stream: a busy cloud makes thousands of changes a second, each a frame for
 * every open stream, so frames are gathered and written every FLUSH_MS; and a reader that does not
 * read (a stalled tab, a caller holding slots) cannot make the server buffer without bound.
 */
function coalesced(res: ServerResponse): (m: LiveMessage) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (res.destroyed) return;
    if (res.writableLength > MAX_UNREAD_BYTES) {
      res.destroy();
      return;
    }
    res.write(pending);
    pending = '';
  };
  res.once('close', () => clearTimeout(timer));
  return (m) => {
    pending += frame(m);
    timer ??= setTimeout(flush, FLUSH_MS);
  };
}

export const streamRoutes: FastifyPluginAsyncZod<StreamRoutesOptions> = (app, { deps, heartbeatMs = HEARTBEAT_MS }) => {
  const open = new Set<ServerResponse>();
  const perOperator = new Map<string, number>();
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
      const operator = operatorOf(req).id;
      const mine = perOperator.get(operator) ?? 0;
      if (mine >= MAX_STREAMS_PER_OPERATOR) {
        return Promise.reject(new RetryLaterError(
            `Слишком много открытых потоков у оператора: не более ${MAX_STREAMS_PER_OPERATOR}, закройте лишние`,
            30,
            `Too many open streams of this operator: at most ${MAX_STREAMS_PER_OPERATOR}, close some`,
          ));
      }
      if (open.size >= MAX_STREAMS) return Promise.reject(new RetryLaterError(`Слишком много открытых потоков: не более ${MAX_STREAMS}, повторите позже`, 30, `Too many open streams: at most ${MAX_STREAMS}, retry later`));
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      res.write(': connected\n\n');
      open.add(res);
      perOperator.set(operator, mine + 1);
      const unsubscribe = deps.signals.live.subscribe(coalesced(res));
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), heartbeatMs);
      heartbeat.unref();
      res.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
        const left = (perOperator.get(operator) ?? 1) - 1;
        if (left > 0) perOperator.set(operator, left);
        else perOperator.delete(operator);
      });
      req.log.info({ streams: open.size, operatorStreams: mine + 1 }, 'operator stream opened');
      return Promise.resolve();
    },
  );
  return Promise.resolve();
};
