/**
 * The marketplace API calls that name an order are kept for the order's timeline (operator
 * console): operation, time, result code (0 on success) and the request id of the log line. Hooks
 * of the marketplace route group: the answer's code is read as it is sent, the row written once
 * the answer is out, so a call is recorded whatever its outcome (a refused create of an unknown
 * order names no order and is not). A failure to record is logged, never answered. The rows are
 * written off the request's path, coalesced (db/coalesced-writes.ts): under load one batch of two
 * statements records many calls; on SQLite a batch shares the commit of the transactions waiting
 * at the time (sharingCommit).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../services.js';
import { sharingCommit } from '../db/transaction.js';
import { CoalescedWrites } from '../db/coalesced-writes.js';
import { insertOrderApiCall, insertOrderApiCalls, type OrderApiCallByExternalId } from '../repositories/operator-views.js';
import type { RequestScope } from '../request-scope.js';
import { marketplaceOf } from './plugins/authentication.js';

/** Route (without the group's prefix) -> the operation's name and the body field naming the order. */
const ORDER_OPERATIONS: Record<string, { operation: string; field: 'externalId' | 'extId' }> = {
  '/auth/delivery/smartorder/create': { operation: 'smartorder/create', field: 'externalId' },
  '/auth/delivery/order/create': { operation: 'order/create', field: 'externalId' },
  '/auth/delivery/order/update': { operation: 'order/update', field: 'externalId' },
  '/auth/delivery/order/place/cancel': { operation: 'order/place/cancel', field: 'extId' },
  '/auth/delivery/order/extension': { operation: 'order/extension', field: 'extId' },
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The envelope's resultCode of a refused answer (0: success). */
    answeredCode: number;
    /** The call was recorded in the transaction of its operation (a new order): not again. */
    apiCallRecorded: boolean;
  }
}

function operationOf(req: FastifyRequest, prefix: string): { operation: string; externalId: string } | undefined {
  const url = req.routeOptions.url;
  const op = url?.startsWith(prefix) ? ORDER_OPERATIONS[url.slice(prefix.length)] : undefined;
  const body = req.body as Record<string, unknown> | null | undefined;
  const externalId = op && body && typeof body === 'object' ? body[op.field] : undefined;
  return op && typeof externalId === 'string' ? { operation: op.operation, externalId } : undefined;
}

/**
 * For an operation that creates the order it names: the call's record, written in the
 * operation's transaction (no statement of its own after the answer), with result code 0.
 */
export function callRecorder(deps: Pick<ServiceDeps, 'clock'>, req: FastifyRequest, prefix: string): RequestScope['call'] {
  const call = req.caller?.kind === 'marketplace' ? operationOf(req, prefix) : undefined;
  if (!call) return undefined;
  const marketplaceId = marketplaceOf(req).id;
  return {
    record: (tx, orderId) =>
      insertOrderApiCall(tx, { orderId, marketplaceId, operation: call.operation, at: deps.clock.now(), resultCode: 0, requestId: String(req.id) }),
    recorded: () => {
      req.apiCallRecorded = true;
    },
  };
}

export function recordOrderApiCalls(app: FastifyInstance, deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'logger'>, prefix: string): void {
  app.decorateRequest('answeredCode', 0);
  app.decorateRequest('apiCallRecorded', false);
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      try {
        const code = (JSON.parse(payload) as { resultCode?: unknown }).resultCode;
        if (typeof code === 'number') req.answeredCode = code;
      } catch {
        // not an envelope
      }
    }
    done(null, payload);
  });
  const writes = new CoalescedWrites<OrderApiCallByExternalId>(
    (batch) => sharingCommit(deps.cdb, (db) => insertOrderApiCalls(db, batch)),
    (err, batch) => deps.logger.error({ err, calls: batch.length }, 'recording order API calls failed'),
  );
  app.addHook('onResponse', async (req) => {
    const call = req.caller?.kind === 'marketplace' && !req.apiCallRecorded ? operationOf(req, prefix) : undefined;
    if (!call) return;
    await writes.add({
      marketplaceId: marketplaceOf(req).id,
      externalId: call.externalId,
      operation: call.operation,
      at: deps.clock.now(),
      resultCode: req.answeredCode,
      requestId: String(req.id),
    });
  });
  app.addHook('onClose', () => writes.flush());
}
