/**
 * The AsyncAPI 3.0 description of the locker link, generated from the zod schemas in
 * shared/src/protocol.ts (z.toJSONSchema), from the cloud's point of view: it sends on `down`
 * and receives on `up` and `presence`. docs/asyncapi.json is this document; a test fails when
 * the committed file differs from what the schemas generate (regenerate with
 * `npx tsx cloud/src/sync/cli-asyncapi.ts`).
 */
import { z } from 'zod';
import {
  PROTOCOL_VERSION,
  cellConfigSchema,
  commandSchema,
  courierGrantSchema,
  downMessageSchema,
  eventSchema,
  healthReportSchema,
  lockerConfigSchema,
  orderIntentSchema,
  parcelIntentSchema,
  presenceSchema,
  snapshotSchema,
  upMessageSchema,
} from '../../../shared/src/protocol.js';
import { TOPIC_ROOT } from '../../../shared/src/topics.js';

type Json = Record<string, unknown>;

const MESSAGE_TEXT: Record<string, { title: string; summary: string }> = {
  'down.commands': { title: 'Commands', summary: 'A batch of commands in cseq order: the next part of the down stream after the agent\'s appliedCseq.' },
  'down.snapshot': { title: 'Snapshot', summary: 'The locker\'s whole intent up to and including snapshot.cseq; replaces everything the agent holds from the cloud.' },
  'down.ack': { title: 'Event ack', summary: 'Cumulative: every event with dseq <= ackedDseq is applied by the cloud.' },
  'up.hello': { title: 'Hello', summary: 'First message of every connection: the agent\'s position in both streams and its connection counter.' },
  'up.events': { title: 'Events', summary: 'A batch of events in dseq order, from the agent\'s outbox after the cloud\'s last ack.' },
  'down.update': { title: 'Update offer', summary: 'A release to install (docs/updates.md): its rollout, version, SHA-256, size and health window; sent only to agents whose hello says agent.updates. The signed artifact, not this offer, is what the agent trusts.' },
  'down.update.cancel': { title: 'Update cancelled', summary: 'The rollout stopped: an agent that has not switched to the release drops it; one that has keeps its health check.' },
  'up.update': { title: 'Update report', summary: 'Progress and outcome of an offered release at each step (offered, downloading, verifying, staged, waiting, switching, then confirmed, refused, failed, rolled_back or cancelled), with the version the agent runs.' },
  'up.ack': { title: 'Command ack', summary: 'Cumulative: every command with cseq <= appliedCseq is applied by the agent.' },
  'up.health': { title: 'Health report', summary: 'The agent\'s vital signs: board answer times and errors, door faults, scans, outbox depth, reconnects, uptime, version, memory. Never answered; older clouds ignore it.' },
  presence: { title: 'Presence', summary: 'Retained birth (online) and last will (offline) with the connection counter; a higher conn always wins.' },
};

function typeOf(option: z.ZodObject): string {
  return String((option.shape.type as z.ZodLiteral).value);
}

function pascal(text: string): string {
  return text.replace(/(^|[.\-_])(\w)/g, (_, __: string, c: string) => c.toUpperCase());
}

function componentSchemas(): { schemas: Json; messageIds: Record<'down' | 'up' | 'presence', string[]> } {
  const registry = z.registry<{ id: string }>();
  const shapes: [z.ZodType, string][] = [
    [cellConfigSchema, 'CellConfig'],
    [lockerConfigSchema, 'LockerConfig'],
    [parcelIntentSchema, 'ParcelIntent'],
    [orderIntentSchema, 'OrderIntent'],
    [courierGrantSchema, 'CourierGrant'],
    [commandSchema, 'Command'],
    [eventSchema, 'Event'],
    [snapshotSchema, 'Snapshot'],
    [presenceSchema, 'PresencePayload'],
    [healthReportSchema, 'HealthReport'],
  ];
  for (const [schema, id] of shapes) registry.add(schema, { id });
  const messageIds: Record<'down' | 'up' | 'presence', string[]> = { down: [], up: [], presence: ['presence'] };
  for (const [stream, union] of [['down', downMessageSchema], ['up', upMessageSchema]] as const) {
    for (const option of union.options) {
      const key = `${stream}.${typeOf(option)}`;
      registry.add(option, { id: `${pascal(key)}Payload` });
      messageIds[stream].push(key);
    }
  }
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-07', io: 'input', uri: (id) => `#/components/schemas/${id}` });
  const cleaned: Json = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Json;
    cleaned[id] = rest;
  }
  return { schemas: cleaned, messageIds };
}

export function buildAsyncApi(): Json {
  const { schemas, messageIds } = componentSchemas();
  const messages: Json = {};
  for (const key of [...messageIds.down, ...messageIds.up, ...messageIds.presence]) {
    const text = MESSAGE_TEXT[key];
    if (!text) throw new Error(`no description for message ${key}`);
    messages[pascal(key)] = {
      name: key,
      title: text.title,
      summary: text.summary,
      contentType: 'application/json',
      payload: { $ref: `#/components/schemas/${key === 'presence' ? 'PresencePayload' : `${pascal(key)}Payload`}` },
    };
  }
  const channelMessages = (keys: string[]): Json =>
    Object.fromEntries(keys.map((k) => [pascal(k), { $ref: `#/components/messages/${pascal(k)}` }]));
  const messageRefs = (channel: string, keys: string[]) => keys.map((k) => ({ $ref: `#/channels/${channel}/messages/${pascal(k)}` }));
  const lockerId = { description: 'The locker id (postamatId); also the MQTT client id and username of the locker.' };
  const mqtt = (retain: boolean) => ({ mqtt: { qos: 1, retain, bindingVersion: '0.2.0' } });

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Parcel-locker link',
      version: String(PROTOCOL_VERSION),
      description:
        'Sync between the cloud and the agent of every locker over MQTT 3.1.1 (docs/mqtt-interface.md). ' +
        'Two numbered streams per locker with cumulative application-level acks: commands (cseq) down, events (dseq) up. ' +
        'Every payload carries `v` (the protocol version); unknown fields are ignored, so adding a field does not change the version.',
    },
    defaultContentType: 'application/json',
    servers: {
      embedded: {
        host: 'localhost:1883',
        protocol: 'mqtt',
        protocolVersion: '3.1.1',
        description: 'The broker the cloud embeds when MQTT_URL is not set (port: MQTT_BROKER_PORT).',
      },
      production: {
        host: 'mqtt.example.net:8883',
        protocol: 'mqtts',
        protocolVersion: '3.1.1',
        description: 'Mosquitto or EMQX configured as in deploy/mosquitto.',
      },
    },
    channels: {
      down: {
        address: `${TOPIC_ROOT}/{lockerId}/down`,
        title: 'Cloud to locker',
        description: 'Commands, snapshots and acks of events. QoS 1, never retained; only the cloud may publish, only the locker may read.',
        parameters: { lockerId },
        messages: channelMessages(messageIds.down),
      },
      up: {
        address: `${TOPIC_ROOT}/{lockerId}/up`,
        title: 'Locker to cloud',
        description: 'Hello, events and acks of commands. QoS 1, never retained; only the locker may publish, only the cloud may read.',
        parameters: { lockerId },
        messages: channelMessages(messageIds.up),
      },
      presence: {
        address: `${TOPIC_ROOT}/{lockerId}/presence`,
        title: 'Locker presence',
        description: 'Retained birth and last will of the locker. QoS 1, retained.',
        parameters: { lockerId },
        messages: channelMessages(messageIds.presence),
      },
    },
    operations: {
      sendDown: {
        action: 'send',
        title: 'Replay, push or snapshot commands; ack events',
        channel: { $ref: '#/channels/down' },
        messages: messageRefs('down', messageIds.down),
        bindings: mqtt(false),
      },
      receiveUp: {
        action: 'receive',
        title: 'Hello, events and command acks from lockers',
        description: 'Several cloud processes may share the subscription ($share/<group>/lockers/+/up) where the broker supports it.',
        channel: { $ref: '#/channels/up' },
        messages: messageRefs('up', messageIds.up),
        bindings: mqtt(false),
      },
      receivePresence: {
        action: 'receive',
        title: 'Presence of lockers',
        channel: { $ref: '#/channels/presence' },
        messages: messageRefs('presence', messageIds.presence),
        bindings: mqtt(true),
      },
    },
    components: { messages, schemas },
  };
}

/** The text of docs/asyncapi.json. */
export function asyncApiText(): string {
  return `${JSON.stringify(buildAsyncApi(), null, 2)}\n`;
}
