/**
 * The largest legal message of each kind on the locker link, built from the bounds that make it
 * legal: the protocol's schemas, the HTTP API's order limits (every order and barcode a locker
 * holds came through it), the fleet file's largest locker, the agent's and the link's batch sizes.
 * Every string is at its longest in its widest UTF-8 form (3 bytes a character, the most a
 * character counted once by a length check can take).
 */
import { LIMITS } from '../../cloud/src/contract/common.js';
import { commandBatches } from '../../cloud/src/sync/command-batches.js';
import { MAX_CELLS_PER_LOCKER } from '../../cloud/src/fleet/fleet-schema.js';
import { CELL_FLAGS } from '../../shared/src/enums.js';
import {
  type Command,
  type CourierGrant,
  type LockerConfig,
  type LockerEvent,
  type OrderIntent,
  PROTOCOL_VERSION,
  UPDATE_REASONS,
  UPDATE_STATES,
  downMessageSchema,
  presenceSchema,
  upMessageSchema,
} from '../../shared/src/protocol.js';

/** The agent's largest `batchSize` (events per message) and the link's commands per message. */
export const MAX_EVENTS_PER_MESSAGE = 500;
export const COMMANDS_PER_MESSAGE = 50;

const wide = (n: number): string => '€'.repeat(n);
const id = (): string => wide(LIMITS.idLength);
const uuid = '123e4567-e89b-42d3-a456-426614174000';
const hash = 'a'.repeat(64);
const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
const at = 1_900_000_000_000;
const v = PROTOCOL_VERSION;
/** A route sheet's grant on a locker: `<routeSheetId>:<lockerId>`. */
const grantId = `${id()}:2147483647`;

export function largestConfig(): LockerConfig {
  return {
    lockerId: '2147483647',
    timezone: 'America/Argentina/ComodRivadavia',
    depth: 10_000,
    boardFamily: 'kerong-cu48',
    cells: Array.from({ length: MAX_CELLS_PER_LOCKER }, (_, i) => ({
      id: 2_147_483_647 - i,
      width: 10_000,
      height: 10_000,
      bus: wide(LIMITS.idLength),
      board: 255,
      lock: 255,
      flags: [...CELL_FLAGS],
    })),
  };
}

export function largestOrder(parcels: number): OrderIntent {
  return {
    orderId: uuid,
    externalId: id(),
    number: id(),
    marketplaceId: wide(64),
    state: 7,
    dateDelivery: '2030-12-31',
    holdUntil: at,
    pickupCodeHash: hash,
    loadableUntil: at,
    parcels: Array.from({ length: parcels }, () => ({
      barcode: id(),
      additionalBarcodes: Array.from({ length: LIMITS.barcodesPerParcel }, id),
      dimension: { length: 10_000, width: 10_000, height: 10_000 },
      state: 'awaiting_return',
      cellId: 2_147_483_647,
    })),
  };
}

function largestGrant(): CourierGrant {
  return { grantId, codeHash: hash, validUntil: at, marketplaceIds: Array.from({ length: 16 }, () => wide(64)), courierRef: id() };
}

function largestEvent(dseq: number): LockerEvent {
  return { dseq, at, traceparent, type: 'parcel.returned', orderId: uuid, barcode: id(), cellId: 2_147_483_647, grantId };
}

export interface Measured {
  name: string;
  direction: 'up' | 'down';
  bytes: number;
}

const size = (message: unknown): number => Buffer.byteLength(JSON.stringify(message));
const up = (m: unknown): unknown => upMessageSchema.parse(m);
const down = (m: unknown): unknown => downMessageSchema.parse(m);

/** Each kind at its largest, parsed by its schema first (so each is legal). */
export function largestMessages(): Measured[] {
  // As the link sends them: a full batch by count, split by commandBatches where it is too large.
  const commands = (make: (cseq: number) => Command): { bytes: number; messages: number } => {
    const batches = commandBatches(Array.from({ length: COMMANDS_PER_MESSAGE }, (_, i) => make(i + 1)), COMMANDS_PER_MESSAGE);
    const sizes = batches.map((items) => size(down({ v, type: 'commands', items })));
    return { bytes: Math.max(...sizes), messages: batches.length };
  };
  const upserts = commands((cseq) => ({ cseq, at, traceparent, type: 'order.upsert', order: largestOrder(LIMITS.parcelsPerOrder) }));
  const configs = commands((cseq) => ({ cseq, at, traceparent, type: 'locker.config', config: largestConfig() }));
  return [
    {
      name: `events: ${MAX_EVENTS_PER_MESSAGE} events (the agent's largest batchSize), each parcel.returned with the longest barcode and grant`,
      direction: 'up',
      bytes: size(up({ v, type: 'events', items: Array.from({ length: MAX_EVENTS_PER_MESSAGE }, (_, i) => largestEvent(i + 1)) })),
    },
    {
      name: 'hello: 100 command types of 64 characters, agent software with an update report',
      direction: 'up',
      bytes: size(
        up({
          v,
          type: 'hello',
          lockerId: '2147483647',
          appliedCseq: Number.MAX_SAFE_INTEGER,
          ackedDseq: Number.MAX_SAFE_INTEGER,
          conn: Number.MAX_SAFE_INTEGER,
          commandTypes: Array.from({ length: 100 }, () => wide(64)),
          agent: {
            version: wide(64),
            updates: true,
            update: { rolloutId: INT, releaseId: INT, version: wide(64), state: UPDATE_STATES[0], reason: UPDATE_REASONS[0], bytes: Number.MAX_SAFE_INTEGER, running: wide(64), at },
          },
        }),
      ),
    },
    {
      name: 'health report',
      direction: 'up',
      bytes: size(
        up({
          v,
          type: 'health',
          report: {
            at,
            intervalSeconds: 366 * 86_400,
            uptimeSeconds: 100 * 366 * 86_400,
            version: wide(64),
            memory: { rssBytes: Number.MAX_SAFE_INTEGER, heapUsedBytes: Number.MAX_SAFE_INTEGER },
            boards: { answers: Number.MAX_SAFE_INTEGER, p50Ms: 3_599_999.123456, p99Ms: 3_599_999.123456, errors: Number.MAX_SAFE_INTEGER },
            doorFaults: Number.MAX_SAFE_INTEGER,
            scans: Number.MAX_SAFE_INTEGER,
            outboxDepth: Number.MAX_SAFE_INTEGER,
            link: { reconnects: Number.MAX_SAFE_INTEGER },
          },
        }),
      ),
    },
    { name: 'presence', direction: 'up', bytes: size(presenceSchema.parse({ v, online: true, conn: Number.MAX_SAFE_INTEGER, at, version: wide(64) })) },
    {
      name: `commands: ${COMMANDS_PER_MESSAGE} order.upsert with ${LIMITS.parcelsPerOrder} parcels of ${LIMITS.barcodesPerParcel + 1} barcodes each, sent as ${upserts.messages} messages`,
      direction: 'down',
      bytes: upserts.bytes,
    },
    {
      name: `commands: ${COMMANDS_PER_MESSAGE} locker.config of a locker of ${MAX_CELLS_PER_LOCKER} cells, sent as ${configs.messages} messages`,
      direction: 'down',
      bytes: configs.bytes,
    },
    {
      name: `snapshot: a locker of ${MAX_CELLS_PER_LOCKER} cells, a one-parcel order in every cell, 100 courier grants`,
      direction: 'down',
      bytes: size(
        down({
          v,
          type: 'snapshot',
          snapshot: { cseq: Number.MAX_SAFE_INTEGER, config: largestConfig(), orders: Array.from({ length: MAX_CELLS_PER_LOCKER }, () => largestOrder(1)), grants: Array.from({ length: 100 }, largestGrant) },
        }),
      ),
    },
  ];
}

const INT = 2_147_483_647;
