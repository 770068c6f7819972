/** /operator fleet: the fleet file loaded again (orders are kept), and every locker for the map. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalidRequest } from '../../../errors.js';
import { FleetError, type ProvisionReport } from '../../../fleet/provision.js';
import { fleetMap } from '../../../operator/fleet-views.js';
import type { ServiceDeps } from '../../../services.js';
import { fillView } from './lockers.js';
import { operatorErrors, security } from './shared.js';

export interface FleetRoutesOptions {
  deps: ServiceDeps;
  reloadFleet: () => Promise<ProvisionReport>;
}

/** The most lockers one map answer carries. */
export const FLEET_MAP_MAX = 10_000;

const mapLocker = z.object({
  lockerId: z.int(),
  name: z.string(),
  address: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  sandbox: z.boolean().describe('a sandbox locker: kept off the network map'),
  online: z.boolean(),
  openAlerts: z.int(),
  fill: fillView,
});

const fleetMapView = z
  .object({
    items: z.array(mapLocker).describe('active lockers by id, at most `limit`'),
    total: z.int().describe('active lockers in all; more than the items when the limit cut them'),
  })
  .meta({
    id: 'FleetMap',
    example: {
      items: [
        { lockerId: 101, name: 'Постамат Тверская 7', address: 'Москва, Тверская улица, 7', latitude: 55.7579, longitude: 37.6122, sandbox: false, online: true, openAlerts: 0, fill: { occupied: 5, usable: 8, percent: 63 } },
      ],
      total: 1,
    },
  });

const provisionReport = z.object({
  lockers: z.object({ added: z.array(z.int()), updated: z.array(z.int()), deactivated: z.array(z.int()) }),
  marketplaces: z.int(),
  partners: z.int(),
  configChanged: z.array(z.int()),
}).meta({ id: 'ProvisionReport' });

export const fleetRoutes: FastifyPluginAsyncZod<FleetRoutesOptions> = (app, { deps, reloadFleet }) => {
  app.get(
    '/fleet/map',
    {
      schema: {
        operationId: 'getFleetMap',
        tags: ['operator'],
        summary: 'Every active locker with its coordinates, presence, open alerts and fill rate, for the map',
        security,
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(FLEET_MAP_MAX).default(FLEET_MAP_MAX) }),
        response: { 200: fleetMapView, ...operatorErrors },
      },
    },
    async (req) => fleetMap(deps, req.query.limit),
  );

  app.post(
    '/fleet/reload',
    {
      schema: {
        operationId: 'reloadFleet',
        tags: ['operator'],
        summary: 'Load the fleet file again (orders are kept)',
        security,
        response: { 200: provisionReport, ...operatorErrors },
      },
    },
    async () => {
      try {
        return await reloadFleet();
      } catch (err) {
        if (err instanceof FleetError) throw invalidRequest({ ru: `файл парка не принят: «${err.message}»`, en: err.message });
        throw err;
      }
    },
  );
  return Promise.resolve();
};
