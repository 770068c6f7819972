/**
 * /operator: the platform operator's own API (X-Operator-Api-Key or the console's session cookie;
 * viewers read, operators also act: http/plugins/authentication.ts), every route group in this
 * folder; the services they call stay in their domain folders.
 *   session.ts        POST/GET/DELETE /session
 *   cells.ts          GET  /cells?flag=, PUT /postamats/:postamatId/cells/:cellId/flags, POST /lockers/:lockerId/cells/:cellId/open
 *   service-codes.ts  POST /lockers/:lockerId/service-codes
 *   fleet.ts          GET  /fleet/map, POST /fleet/reload
 *   notifications.ts  GET  /notifications, POST /notifications/redeliver
 *   alerts.ts         GET  /alerts, POST /alerts/:alertId/acknowledge, POST /alerts/:alertId/resolve
 *   lockers.ts        GET  /overview, /lockers, /lockers/:lockerId, /lockers/:lockerId/orders|commands|alerts
 *   orders.ts         GET  /orders, /orders/:orderId/timeline; POST /orders/:orderId/extend
 *   audit.ts          GET  /audit
 *   reports.ts        GET  /reports/lockers (JSON or CSV), /trends
 *   stream.ts         GET  /stream (server-sent events)
 *   updates.ts        GET/POST /releases, /rollouts (and pause|resume|abort|rollback), GET /agents
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ProvisionReport } from '../../../fleet/provision.js';
import type { ServiceDeps } from '../../../services.js';
import { requireJsonBody } from '../../error-handler.js';
import { alertRoutes } from './alerts.js';
import { cellRoutes } from './cells.js';
import { serviceCodeRoutes } from './service-codes.js';
import { fleetRoutes } from './fleet.js';
import { notificationRoutes } from './notifications.js';
import { sessionRoutes } from './session.js';
import { auditRoutes } from './audit.js';
import { lockerRoutes } from './lockers.js';
import { orderRoutes } from './orders.js';
import { reportRoutes } from './reports.js';
import { streamRoutes } from './stream.js';
import { updateRoutes } from './updates.js';

export const OPERATOR_PREFIX = '/operator';

export interface OperatorRoutesOptions {
  deps: ServiceDeps;
  reloadFleet: () => Promise<ProvisionReport>;
}

export const operatorRoutes: FastifyPluginAsyncZod<OperatorRoutesOptions> = async (app, { deps, reloadFleet }) => {
  app.requireApiKey('operator');
  app.addHook('preValidation', requireJsonBody);

  await app.register(sessionRoutes, { deps });
  await app.register(cellRoutes, { deps });
  await app.register(fleetRoutes, { deps, reloadFleet });
  await app.register(notificationRoutes, { deps });
  await app.register(alertRoutes, { deps });
  await app.register(lockerRoutes, { deps });
  await app.register(orderRoutes, { deps });
  await app.register(auditRoutes, { deps });
  await app.register(reportRoutes, { deps });
  await app.register(streamRoutes, { deps });
  await app.register(updateRoutes, { deps });
  await app.register((await import('./health.js')).healthRoutes, { deps });
  await app.register(serviceCodeRoutes, { deps });
};
