/**
 * `npm run cloud`: the settings read once from the environment (settings.ts), then startCloud()
 * with the standard background parts. SIGHUP reloads the fleet file; SIGINT/SIGTERM stop gracefully.
 */
import { onStopSignals } from '../../shared/src/stop-signals.js';
import { CLOUD_TRACER } from '../../shared/src/tracing.js';
import { startTracing } from '../../shared/src/tracing-sdk.js';
import { startCloud } from './cloud.js';
import { ConfigError } from './config.js';
import { loadCloudSettings } from './settings.js';

async function main(): Promise<void> {
  const tracing = startTracing(CLOUD_TRACER, process.env);
  const cloud = await startCloud(loadCloudSettings(process.env));
  const log = cloud.deps.logger;
  process.on('SIGHUP', () => {
    cloud.reloadFleet().catch((err: unknown) => log.error({ err }, 'fleet reload failed'));
  });
  onStopSignals(async (signal) => {
    log.info({ signal }, 'stopping');
    await cloud.stop().catch((err: unknown) => {
      log.error({ err }, 'stop failed');
      throw err;
    });
    await tracing?.shutdown();
  });
}

main().catch((err: unknown) => {
  const text = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`cloud failed to start: ${text}\n`);
  process.exit(1);
});
