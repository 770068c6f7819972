/**
 * `npm run cloud`: settings from the environment (config.ts, background.ts), then startCloud()
 * with the standard background parts. SIGHUP reloads the fleet file; SIGINT/SIGTERM stop gracefully.
 */
import { CloudBackground, loadBackgroundSettings } from './background.js';
import { startCloud } from './cloud.js';
import { ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const background = new CloudBackground(loadBackgroundSettings(process.env));
  const cloud = await startCloud(config, { parts: background.parts() });
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
