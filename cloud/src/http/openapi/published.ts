/**
 * docs/openapi.json: the document as a file, so that a client can be generated without running
 * the cloud. A test fails when it differs from what the cloud serves (regenerate:
 * `npx tsx cloud/src/http/openapi/cli-openapi.ts`).
 */
import { createCloudMetrics } from '../../metrics/cloud-metrics.js';
import { pino } from 'pino';
import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config.js';
import { openDatabase } from '../../db/database.js';
import { OutboxSignals } from '../../outbox/signals.js';
import { cryptoRandom } from '../../random.js';
import { buildServer } from '../../server.js';

/** The text of docs/openapi.json for a document. */
export function openApiText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The document the cloud serves at /docs/json, from a server on a throwaway database that never listens. */
export async function servedDocument(): Promise<unknown> {
  const cdb = await openDatabase({ sqlitePath: ':memory:' });
  try {
    await cdb.migrate();
    const logger = pino({ level: 'silent' });
    const config = loadConfig({});
    const deps = { cdb, clock: systemClock, startedAt: 0, random: cryptoRandom, signals: new OutboxSignals(), config, logger, metrics: createCloudMetrics() };
    const dependencies = { cdb, brokerConnected: () => undefined, fleet: () => ({ source: 'file' as const, loaded: true }) };
    const server = await buildServer({ deps, dependencies, sandbox: { lockers: undefined, timeoutMs: 1_000 }, logger, bodyLimit: config.bodyLimitBytes, reloadFleet: () => Promise.reject(new Error('no fleet')) });
    try {
      return (await server.inject({ method: 'GET', url: '/docs/json' })).json();
    } finally {
      await server.close();
    }
  } finally {
    await cdb.close();
  }
}
