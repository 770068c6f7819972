/** The cloud's MQTT settings (environment variables in MQTT_ENV). */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { envFlag, settingsFromEnv } from '../settings-from-env.js';
import type { MqttSettings } from './mqtt-part.js';


export const mqttSettingsSchema = z.object({
  /** Off: the cloud serves the API without any locker link (no broker is started or reached). */
  enabled: envFlag.default(true),
  /** An external MQTT 3.1.1 broker (mqtt://, mqtts://); unset = start the embedded broker. */
  url: z.string().regex(/^mqtts?:\/\/|^wss?:\/\//, 'expected mqtt://, mqtts://, ws:// or wss://').optional(),
  /** Embedded broker: address to listen on (0.0.0.0 to accept lockers from other machines). */
  brokerHost: z.string().min(1).default('127.0.0.1'),
  /** Embedded broker: port; 0 picks a free one. */
  brokerPort: z.coerce.number().int().min(0).max(65_535).default(1883),
  /** The cloud's own broker identity (each cloud process its own user on Mosquitto). */
  username: z.string().min(1).default('cloud'),
  /** Required for an external broker that checks passwords; random per process for the embedded one. */
  password: z.string().min(1).optional(),
  clientId: z.string().min(1).optional(),
  /** `$share/<group>/...` subscriptions, for brokers that have them (Mosquitto 2, EMQX). */
  sharedGroup: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
});
export type MqttSettingsInput = z.input<typeof mqttSettingsSchema>;
export type CloudMqttSettings = z.infer<typeof mqttSettingsSchema>;

export const MQTT_ENV = {
  enabled: 'MQTT_ENABLED',
  url: 'MQTT_URL',
  brokerHost: 'MQTT_BROKER_HOST',
  brokerPort: 'MQTT_BROKER_PORT',
  username: 'MQTT_USERNAME',
  password: 'MQTT_PASSWORD',
  clientId: 'MQTT_CLIENT_ID',
  sharedGroup: 'MQTT_SHARED_GROUP',
} as const;

export function loadMqttSettings(env: Record<string, string | undefined> = process.env, overrides: MqttSettingsInput = {}): CloudMqttSettings {
  return settingsFromEnv(mqttSettingsSchema, MQTT_ENV, env, overrides, 'invalid MQTT settings');
}

/** What MqttPart needs; the embedded broker gets a random cloud password when none is set. */
export function mqttPartSettings(s: CloudMqttSettings): MqttSettings {
  return {
    url: s.url,
    brokerHost: s.brokerHost,
    brokerPort: s.brokerPort,
    brokerPortSetting: MQTT_ENV.brokerPort,
    username: s.username,
    password: s.password ?? randomBytes(24).toString('base64url'),
    clientId: s.clientId,
    sharedGroup: s.sharedGroup,
  };
}
