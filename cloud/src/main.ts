/**
 * `npm run cloud`: the settings read once from the environment (settings.ts), then startCloud()
 * with the standard background parts. SIGHUP reloads the fleet file; SIGINT/SIGTERM stop gracefully.
 */
import { startCloud } from './cloud.js';
import { ConfigError } from './config.js';
import { loadCloudSettings } from './settings.js';

async function main(): Promise<void> {
  const cloud = await startCloud(loadCloudSettings(process.env));
  const log = cloud.deps.logger;
  process.on('SIGHUP', () => {
    cloud.reloadFleet().catch((err: unknown) => log.error({ err }, 'fleet reload failed'));
  });
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'stopping');
    cloud
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log.error({ err }, 'stop failed');
        process.exit(1);
      });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  const text = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`cloud failed to start: ${text}\n`);
  process.exit(1);
});
