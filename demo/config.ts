/**
 * The demo's settings: one zod schema, each setting with its environment variable. Ports are
 * fixed by default so the printed URLs stay the same between runs; 0 picks free ones (tests).
 * The lockers' screens and simulators take consecutive ports from their first one.
 */
import { z } from 'zod';
import { envFlag, settingsFromEnv } from '../cloud/src/settings-from-env.js';
import { LOG_LEVELS } from '../shared/src/redact.js';

const port = z.coerce.number().int().min(0).max(65_535);

export const demoSettingsSchema = z.object({
  /** Everything the demo keeps: the cloud's and the agents' SQLite files, the receiver's record. */
  dataDir: z.string().min(1).default('data/demo'),
  /** The fleet to run; its receivers and MQTT passwords are replaced by the demo's. */
  fleetFile: z.string().min(1).default('deploy/fleet.example.json'),
  /** The cloud's HTTP API (as `npm run cloud`). */
  httpPort: port.default(8080),
  /** The cloud's embedded MQTT broker (1883 is left to a Mosquitto the machine may run). */
  brokerPort: port.default(1884),
  /** The demo marketplace receiver (HTTPS). */
  receiverPort: port.default(8443),
  /** The first locker's screen; the next lockers take the ports after it. */
  screenPort: port.default(8101),
  /** The first locker simulator's control API (`npm run sim`'s default); the next ones follow. */
  simPort: port.default(8790),
  /** Continuous traffic: orders, couriers loading, customers picking up, returns. */
  traffic: envFlag.default(false),
  /** Pause between two visits of the traffic at one locker. */
  trafficIntervalMs: z.coerce.number().int().min(100).max(600_000).default(4_000),
  /** Log level of the cloud and the agents (the receiver and the traffic log at info). */
  logLevel: z.enum(LOG_LEVELS).default('warn'),
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
  traffic: 'DEMO_TRAFFIC',
  trafficIntervalMs: 'DEMO_TRAFFIC_INTERVAL_MS',
  logLevel: 'LOG_LEVEL',
} as const satisfies Record<keyof DemoSettings, string>;

/** Settings from the environment, then `overrides`; throws ConfigError naming bad values. */
export function loadDemoSettings(env: Record<string, string | undefined> = process.env, overrides: DemoSettingsInput = {}): DemoSettings {
  return settingsFromEnv(demoSettingsSchema, DEMO_ENV, env, overrides, 'invalid demo settings');
}
