/**
 * The demo's settings: one zod schema, each setting with its environment variable and
 * description (docs/operations.md's table is generated from it). Ports are fixed by default so the
 * printed URLs stay the same between runs; 0 picks free ones (tests). The lockers' screens and
 * simulators take consecutive ports from their first one. The demo's cloud takes its settings from
 * these (demoCloudSettings), never from the cloud's own variables: always SQLite and the embedded broker.
 */
import { z } from 'zod';
import { loadCloudSettings, type CloudSettings } from '../cloud/src/settings.js';
import { envFlag, settingsFromEnv, type Env } from '../cloud/src/settings-from-env.js';
import { LOG_LEVELS } from '../shared/src/redact.js';

const port = z.coerce.number().int().min(0).max(65_535);

export const demoSettingsSchema = z.object({
  dataDir: z.string().min(1).default('data/demo').describe("everything the demo keeps: the cloud's and the agents' SQLite files, the receiver's record"),
  fleetFile: z.string().min(1).default('deploy/fleet.example.json').describe('the fleet to run (its receivers and locker passwords are replaced by the demo\'s)'),
  httpPort: port.default(8080).describe("the cloud's HTTP API (`/api/v4`, `/api/v1`, `/operator`, `/docs`, `/health`)"),
  brokerPort: port.default(1884).describe('the embedded MQTT broker (1883 is left free for a Mosquitto the machine may run)'),
  receiverPort: port.default(8443).describe('the demo marketplace receiver (HTTPS)'),
  screenPort: port.default(8101).describe("the first locker's screen; the next lockers take the ports after it"),
  simPort: port.default(8790).describe("the first locker simulator's control API (`npm run sim`'s default URL); the next ones follow"),
  hardwarePort: port
    .default(8900)
    .describe("the first port of the simulated boards' and scanners' TCP links (the agents' serial lines); each locker takes one per bus and one for a scanner, consecutively"),
  sandboxPort: port
    .default(8600)
    .describe("the first port of the sandbox lockers' block (the cloud runs them): 8 per sandbox locker, by locker id (`SANDBOX_FIRST_PORT` of `npm run cloud`; the block spans 64 ports)"),
  traffic: envFlag.default(false).describe('`1`/`true`: continuous traffic (also `npm start -- --traffic`)'),
  trafficIntervalMs: z.coerce.number().int().min(100).max(600_000).default(4_000).describe('mean pause between two traffic visits at one locker, ms'),
  logLevel: z.enum(LOG_LEVELS).default('warn').describe("the cloud's and the agents' log level (the receiver and the traffic log at info)"),
});
export type DemoSettings = z.infer<typeof demoSettingsSchema>;
export type DemoSettingsInput = z.input<typeof demoSettingsSchema>;

export const DEMO_ENV = {
  dataDir: 'DEMO_DATA_DIR',
  fleetFile: 'DEMO_FLEET_FILE',
  httpPort: 'PORT',
  brokerPort: 'MQTT_BROKER_PORT',
  receiverPort: 'DEMO_RECEIVER_PORT',
  screenPort: 'DEMO_SCREEN_PORT',
  simPort: 'DEMO_SIM_PORT',
  hardwarePort: 'DEMO_HARDWARE_PORT',
  sandboxPort: 'SANDBOX_FIRST_PORT',
  traffic: 'DEMO_TRAFFIC',
  trafficIntervalMs: 'DEMO_TRAFFIC_INTERVAL_MS',
  logLevel: 'LOG_LEVEL',
} as const satisfies Record<keyof DemoSettings, string>;

/** Settings from the environment, then `overrides`; throws ConfigError naming bad values. */
export function loadDemoSettings(env: Env, overrides: DemoSettingsInput = {}): DemoSettings {
  return settingsFromEnv(demoSettingsSchema, DEMO_ENV, env, overrides, 'invalid demo settings');
}

/**
 * The demo's cloud: the cloud's defaults, SQLite, the fleet and the sandbox lockers' files under
 * the data folder, the demo's ports, on 127.0.0.1.
 */
export function demoCloudSettings(settings: DemoSettings, files: { sqlitePath: string; fleetFile: string; sandboxDir: string }): CloudSettings {
  return loadCloudSettings(
    {},
    {
      config: { host: '127.0.0.1', port: settings.httpPort, sqlitePath: files.sqlitePath, fleetFile: files.fleetFile, logLevel: settings.logLevel },
      mqtt: { brokerHost: '127.0.0.1', brokerPort: settings.brokerPort },
      sandbox: { dataDir: files.sandboxDir, firstPort: settings.sandboxPort },
    },
  );
}
