/**
 * {base_url}/sandbox: a sandbox marketplace plays the other side of its own orders (courier,
 * customer, storage clock, a jammed lock, its receiver down). Marketplace keys as for /api/v4; a
 * production marketplace's key gets 404 with the envelope, as for a path that does not exist.
 * The operations are in sandbox/operations.ts; docs/sandbox.md walks through them.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorEnvelopeSchema, errorResponses } from '../../contract/common.js';
import {
  sandboxJamEffectSchema,
  sandboxDeliveryEffectSchema,
  sandboxLockersSchema,
  sandboxOrderEffectSchema,
  sandboxOrderRequestSchema,
  sandboxOutageEffectSchema,
  sandboxOutageRequestSchema,
  sandboxPickupEffectSchema,
  sandboxPickupRequestSchema,
  sandboxResetEffectSchema,
  sandboxReturnEffectSchema,
} from '../../contract/sandbox.js';
import { courierCollectsReturns } from '../../sandbox/courier-return.js';
import { resetSandbox } from '../../sandbox/reset.js';
import {
  courierLoads,
  customerTakes,
  deliverNow,
  doorJams,
  receiverBack,
  receiverDown,
  requireSandbox,
  type SandboxDeps,
  sandboxLockerList,
  storageRunsOut,
} from '../../sandbox/operations.js';
import { requireJsonBody } from '../error-handler.js';
import { marketplaceOf } from '../plugins/authentication.js';

export const SANDBOX_PREFIX = '/api/v4/sandbox';

const security = [{ serviceApiKey: [] }];
const responses = {
  ...errorResponses,
  404: errorEnvelopeSchema.describe('a production marketplace key (code 3)'),
  503: errorEnvelopeSchema.describe('the sandbox locker does not run in this cloud process (code 2)'),
  504: errorEnvelopeSchema.describe('the effect did not happen within SANDBOX_TIMEOUT_SECONDS (code 2)'),
};

export const sandboxRoutes: FastifyPluginAsyncZod<{ deps: SandboxDeps }> = (app, { deps }) => {
  app.requireApiKey('marketplace');
  // Before the body is looked at: a production key gets 404 whatever it sent.
  app.addHook('preValidation', (req, _reply, done) => {
    try {
      requireSandbox(marketplaceOf(req));
      done();
    } catch (err) {
      done(err as Error);
    }
  });
  app.addHook('preValidation', requireJsonBody);

  app.get(
    '/lockers',
    { schema: { operationId: 'listSandboxLockers', tags: ['sandbox'], summary: 'The sandbox lockers, their screens and simulators', security, response: { 200: sandboxLockersSchema, ...responses } } },
    async () => ({ postamats: await sandboxLockerList(deps) }),
  );
  app.post(
    '/orders/courier-load',
    {
      schema: {
        operationId: 'sandboxCourierLoad',
        tags: ['sandbox'],
        summary: 'A courier loads the order at the locker (screen, scanner, doors); answers once the cloud has it Courier loaded',
        security,
        body: sandboxOrderRequestSchema,
        response: { 200: sandboxOrderEffectSchema, ...responses },
      },
    },
    async (req) => courierLoads(deps, marketplaceOf(req), req.body.externalId),
  );
  app.post(
    '/orders/customer-pickup',
    {
      schema: {
        operationId: 'sandboxCustomerPickup',
        tags: ['sandbox'],
        summary: 'The customer takes the order with its pick-up code; answers once the cloud has it Client received (or the doors failed)',
        security,
        body: sandboxPickupRequestSchema,
        response: { 200: sandboxPickupEffectSchema, ...responses },
      },
    },
    async (req) => customerTakes(deps, marketplaceOf(req), req.body.externalId, req.body.accessCode),
  );
  app.post(
    '/orders/storage-expiry',
    {
      schema: {
        operationId: 'sandboxStorageExpiry',
        tags: ['sandbox'],
        summary: "The order's storage runs out now; answers once it is Awaiting return (7)",
        security,
        body: sandboxOrderRequestSchema,
        response: { 200: sandboxOrderEffectSchema, ...responses },
      },
    },
    async (req) => storageRunsOut(deps, marketplaceOf(req), req.body.externalId),
  );
  app.post(
    '/orders/door-jam',
    {
      schema: {
        operationId: 'sandboxDoorJam',
        tags: ['sandbox'],
        summary: "The next open of the order's cell fails (the lock jams); answers once the fault is armed",
        security,
        body: sandboxOrderRequestSchema,
        response: { 200: sandboxJamEffectSchema, ...responses },
      },
    },
    async (req) => doorJams(deps, marketplaceOf(req), req.body.externalId),
  );
  app.put(
    '/receiver/outage',
    {
      schema: {
        operationId: 'startSandboxReceiverOutage',
        tags: ['sandbox'],
        summary: "The marketplace's receiver is down for a while (default an hour): deliveries fail and are retried by the policy",
        security,
        body: sandboxOutageRequestSchema,
        response: { 200: sandboxOutageEffectSchema, ...responses },
      },
    },
    async (req) => receiverDown(deps, marketplaceOf(req), req.body.seconds),
  );
  app.delete(
    '/receiver/outage',
    { schema: { operationId: 'endSandboxReceiverOutage', tags: ['sandbox'], summary: 'The receiver is back now: what the outage held back is due at once', security, response: { 200: sandboxOutageEffectSchema, ...responses } } },
    async (req) => receiverBack(deps, marketplaceOf(req)),
  );
  app.post(
    '/courier-return',
    {
      schema: {
        operationId: 'sandboxCourierReturn',
        tags: ['sandbox'],
        summary: 'A courier collects every parcel of the marketplace awaiting return; answers once the cloud recorded them returned',
        security,
        response: { 200: sandboxReturnEffectSchema, ...responses },
      },
    },
    async (req) => courierCollectsReturns(deps, marketplaceOf(req)),
  );
  app.post(
    '/notifications/deliver',
    {
      schema: {
        operationId: 'sandboxDeliverNotifications',
        tags: ['sandbox'],
        summary: "The marketplace's undelivered notifications are due now; answers once each order's next one had its attempt",
        security,
        response: { 200: sandboxDeliveryEffectSchema, ...responses },
      },
    },
    async (req) => deliverNow(deps, marketplaceOf(req)),
  );
  app.post(
    '/reset',
    {
      schema: {
        operationId: 'resetSandbox',
        tags: ['sandbox'],
        summary: "The marketplace's sandbox starts again: outage ended, open positions cancelled, returns collected, its jams repaired and their flags cleared",
        security,
        response: { 200: sandboxResetEffectSchema, ...responses },
      },
    },
    async (req) => resetSandbox(deps, marketplaceOf(req)),
  );
  return Promise.resolve();
};
