/**
 * `npm start` (`npm start -- --traffic` for continuous traffic): the whole locker network on this
 * machine until Ctrl-C. Settings from the environment (demo/config.ts); docs/operations.md.
 */
import { pino } from 'pino';
import { ConfigError } from '../cloud/src/settings-from-env.js';
import { FleetError } from '../cloud/src/fleet/provision.js';
import { loggerOptions } from '../shared/src/redact.js';
import { banner } from './banner.js';
import { loadDemoSettings } from './config.js';
import { startDemo } from './demo.js';
import { PortError } from './ports.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const settings = loadDemoSettings(process.env, argv.includes('--traffic') ? { traffic: true } : {});
  const logger = pino(loggerOptions('demo', 'info'));
  console.log('starting the parcel-locker network...');
  const demo = await startDemo(settings, { logger });
  const traffic = demo.traffic
    ? `on: orders, couriers, customers and returns every ~${settings.trafficIntervalMs / 1000} s per locker (logged below; the screens are busy)`
    : 'off (npm start -- --traffic, or DEMO_TRAFFIC=1 npm start)';
  console.log(`\n${banner(demo, Date.now(), traffic)}\n`);

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      console.log('stopping now');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (Ctrl-C again to stop at once)...`);
    demo.stop().then(
      () => {
        console.log('stopped; the state is kept for the next npm start');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'demo: stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof PortError || err instanceof FleetError;
  const text = err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err);
  process.stderr.write(`the demo failed to start: ${text}\n`);
  process.exit(1);
});
