/** The MQTT section of the cloud's settings (environment variables in MQTT_ENV). */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../../../shared/src/protocol.js';
import { DEFAULT_BROKER_LIMITS } from '../broker/embedded-broker.js';
import { envFlag, settingsFromEnv } from '../settings-from-env.js';
import type { MqttSettings } from './mqtt-part.js';

export const mqttSettingsSchema = z.object({
  enabled: envFlag.default(true).describe('`false`/`0`: the API without any locker link (no broker is started or reached)'),
  url: z
    .string()
    .regex(/^mqtts?:\/\/|^wss?:\/\//, 'expected mqtt://, mqtts://, ws:// or wss://')
    .optional()
    .describe('an external MQTT 3.1.1 broker (Mosquitto, EMQX); unset, the embedded broker starts'),
  brokerHost: z.string().min(1).default('127.0.0.1').describe('embedded broker: the address it listens on (0.0.0.0 accepts lockers from other machines)'),
  brokerPort: z.coerce.number().int().min(0).max(65_535).default(1883).describe('embedded broker: its port; 0 picks a free one'),
  username: z.string().min(1).default('cloud').describe("the cloud's own broker user (each cloud process its own on Mosquitto)"),
  password: z.string().min(1).optional().describe('its password, required by an external broker that checks them; unset, random per process for the embedded one'),
  clientId: z.string().min(1).optional().describe("the cloud's MQTT client id; unset, `<username>-<random>`"),
  sharedGroup: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe('`$share/<group>/...` subscriptions, for several cloud processes on brokers that have them (Mosquitto 2, EMQX)'),
  maxPacketBytes: z.coerce
    .number()
    .int()
    .min(65_536)
    .max(268_435_455)
    .default(MAX_MESSAGE_BYTES)
    .describe("largest locker message, bytes: the embedded broker closes a connection at a bigger packet's header, and the cloud refuses a bigger message before parsing it (set Mosquitto's `max_packet_size` alike)"),
  maxInflightMessages: z.coerce
    .number()
    .int()
    .min(1)
    .max(65_535)
    .default(DEFAULT_BROKER_LIMITS.maxInflightMessages)
    .describe("embedded broker: QoS 2 publishes a client may have awaiting PUBREL; more close its connection (Mosquitto: `max_inflight_messages`)"),
  maxSubscriptions: z.coerce
    .number()
    .int()
    .min(2)
    .max(10_000)
    .default(DEFAULT_BROKER_LIMITS.maxSubscriptions)
    .describe('embedded broker: subscription filters one connection may ask for, each counted, repeated or not (a locker and the cloud ask for 2); beyond, each is refused in the SUBACK (0x80)'),
  maxPendingConnectionsPerAddress: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(DEFAULT_BROKER_LIMITS.maxPendingConnectionsPerAddress)
    .describe('embedded broker: connections from one address not yet logged in; beyond, a new one is closed at once (lockers retry)'),
  maxConnectionsPerAddress: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(DEFAULT_BROKER_LIMITS.maxConnectionsPerAddress)
    .describe('embedded broker: connections from one address in all (lockers behind a NAT share one; the demo and sandbox lockers use 127.0.0.1); beyond, CONNACK "server unavailable"'),
  maxClientBytesPerSecond: z.coerce
    .number()
    .int()
    .min(65_536)
    .max(1_073_741_824)
    .default(DEFAULT_BROKER_LIMITS.maxClientBytesPerSecond)
    .describe("embedded broker: bytes per second one client (not the cloud) may send, after a burst of two packets at `MQTT_MAX_PACKET_BYTES`; beyond, the broker stops reading its socket for a while, so its publishes wait (nothing is dropped)"),
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
  maxPacketBytes: 'MQTT_MAX_PACKET_BYTES',
  maxInflightMessages: 'MQTT_MAX_INFLIGHT_MESSAGES',
  maxSubscriptions: 'MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT',
  maxPendingConnectionsPerAddress: 'MQTT_MAX_PENDING_CONNECTIONS_PER_ADDRESS',
  maxConnectionsPerAddress: 'MQTT_MAX_CONNECTIONS_PER_ADDRESS',
  maxClientBytesPerSecond: 'MQTT_MAX_CLIENT_BYTES_PER_SECOND',
} as const;

/** This section alone, from `env` then `overrides` (tests). */
export function loadMqttSettings(env: Record<string, string | undefined>, overrides: MqttSettingsInput = {}): CloudMqttSettings {
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
    maxPacketBytes: s.maxPacketBytes,
    brokerLimits: {
      maxInflightMessages: s.maxInflightMessages,
      maxSubscriptions: s.maxSubscriptions,
      maxPendingConnectionsPerAddress: s.maxPendingConnectionsPerAddress,
      maxConnectionsPerAddress: s.maxConnectionsPerAddress,
      maxClientBytesPerSecond: s.maxClientBytesPerSecond,
    },
  };
}
