/**
 * `npm start` (`npm start -- --traffic` for continuous traffic): the whole locker network on this
 * machine until Ctrl-C. Settings from the environment (demo/config.ts); docs/operations.md.
 */
import { pino } from 'pino';
import { ConfigError } from '../cloud/src/settings-from-env.js';
import { FleetError } from '../cloud/src/fleet/provision.js';
import { loggerOptions } from '../shared/src/redact.js';
import { onStopSignals } from '../shared/src/stop-signals.js';
import { banner } from './banner.js';
import { loadDemoSettings } from './config.js';
import { startDemo } from './demo.js';
import { PortError } from '../cloud/src/port-check.js';

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

  onStopSignals(
    async () => {
      await demo.stop().catch((err: unknown) => {
        logger.error({ err }, 'demo: stop failed');
        throw err;
      });
      console.log('stopped; the state is kept for the next npm start');
    },
    { say: (line) => console.log(`\n${line}...`) },
  );
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof PortError || err instanceof FleetError;
  const text = err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err);
  process.stderr.write(`the demo failed to start: ${text}\n`);
  process.exit(1);
});
