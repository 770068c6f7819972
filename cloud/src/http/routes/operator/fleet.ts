/** /operator fleet reload: the fleet file loaded again (orders are kept). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalidRequest } from '../../../errors.js';
import { FleetError, type ProvisionReport } from '../../../fleet/provision.js';
import { operatorErrors, security } from './shared.js';

export interface FleetRoutesOptions {
  reloadFleet: () => Promise<ProvisionReport>;
}

const provisionReport = z.object({
  lockers: z.object({ added: z.array(z.int()), updated: z.array(z.int()), deactivated: z.array(z.int()) }),
  marketplaces: z.int(),
  partners: z.int(),
  configChanged: z.array(z.int()),
}).meta({ id: 'ProvisionReport' });

export const fleetRoutes: FastifyPluginAsyncZod<FleetRoutesOptions> = (app, { reloadFleet }) => {
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
