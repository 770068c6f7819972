/**
 * The locker <-> cloud sync protocol: every message on `lockers/<id>/{down,up,presence}`.
 *
 * Two numbered streams per locker (docs/architecture.md, "Sync"):
 * - down: commands numbered `cseq` by the cloud, applied by the agent strictly in order, once;
 * - up: events numbered `dseq` by the agent, applied by the cloud once (inbox on locker + dseq).
 * Acks are cumulative and application-level. Every inbound payload is parsed with these schemas.
 *
 * Timestamps are epoch milliseconds (UTC); calendar dates are `YYYY-MM-DD` in the locker's time zone.
 */
import { z } from 'zod';
import { BOARD_FAMILIES, CELL_FLAGS, PARCEL_STATES } from './enums.js';
import { RELEASE_REFUSALS, releaseVersionSchema } from './release.js';

/** Bumped on any incompatible change of a message below. */
export const PROTOCOL_VERSION = 1;

/**
 * The default bound of one message a locker sends (`up`, `presence`), bytes: the embedded
 * broker's packet limit for lockers (MQTT_MAX_PACKET_BYTES) and what the cloud accepts before
 * parsing. Far above the largest the protocol sends (docs/mqtt-interface.md, Message size).
 */
export const MAX_MESSAGE_BYTES = 1_048_576;

/**
 * The bound of one message the cloud sends (`down`), which the agent checks before parsing:
 * a batch of 50 `order.upsert` at the order limits of the HTTP API (100 parcels of 11 barcodes)
 * is about 7 MiB, so down messages get more room than up ones.
 */
export const MAX_DOWN_MESSAGE_BYTES = 16 * 1_048_576;

const epochMs = z.number().int().nonnegative();
const seq = z.number().int().nonnegative();
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');
const cellId = z.number().int().positive();
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected a lowercase SHA-256 hex digest');
/**
 * W3C trace context (`traceparent`) of the span that caused a command or an event, so that the
 * other side's span joins the same trace. Optional and additive: sent only while tracing is on;
 * older agents and clouds drop it with the other unknown keys.
 */
const traceparent = z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'expected a W3C traceparent');

// ---------------------------------------------------------------------------------------------
// Shapes carried by commands
// ---------------------------------------------------------------------------------------------

export const cellConfigSchema = z.object({
  id: cellId,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** Name of the agent's bus (from the agent config) the cell's board hangs on. */
  bus: z.string().min(1),
  board: z.number().int().nonnegative(),
  /** Lock number on the board, 1-based as printed on the board. */
  lock: z.number().int().positive(),
  flags: z.array(z.enum(CELL_FLAGS)),
});
export type CellConfig = z.infer<typeof cellConfigSchema>;

export const lockerConfigSchema = z.object({
  lockerId: z.string().min(1),
  /** IANA time zone of the locker, e.g. Europe/Moscow. */
  timezone: z.string().min(1),
  /** Inner depth of the locker's cells, mm. */
  depth: z.number().int().positive(),
  cells: z.array(cellConfigSchema),
  /** Optional hint for the agent; the agent's own config decides the driver. */
  boardFamily: z.enum(BOARD_FAMILIES).optional(),
});
export type LockerConfig = z.infer<typeof lockerConfigSchema>;

export const parcelDimensionSchema = z.object({
  length: z.number().int().positive().optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});

export const parcelIntentSchema = z.object({
  barcode: z.string().min(1),
  additionalBarcodes: z.array(z.string().min(1)),
  dimension: parcelDimensionSchema.nullable(),
  /** The cloud's view of the parcel. The agent keeps its own physical facts beside it. */
  state: z.enum(PARCEL_STATES),
  /** Reserved cell while pending; the cell it is in once loaded; null otherwise. */
  cellId: cellId.nullable(),
});
export type ParcelIntent = z.infer<typeof parcelIntentSchema>;

/** The whole intent of one order at one locker: commands carry it complete, so applying is idempotent. */
export const orderIntentSchema = z.object({
  orderId: z.string().min(1),
  externalId: z.string().min(1),
  number: z.string().nullable(),
  marketplaceId: z.string().min(1),
  /** OrderState number (0, 2, 3, 4, 5, 6, 7). */
  state: z.union([z.literal(0), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6), z.literal(7)]),
  /** Not loadable before this date (locker time). */
  dateDelivery: isoDate,
  /** End of storage; set once the order is Courier loaded. */
  holdUntil: epochMs.nullable(),
  /** SHA-256 of the customer's pick-up code (see codeHash); null when no code is active. */
  pickupCodeHash: sha256Hex.nullable(),
  parcels: z.array(parcelIntentSchema).min(1),
  /**
   * End of the order's cell reservation (released by the cloud after it): from this instant on the
   * locker refuses to load the order under this intent; the cloud's next `order.upsert` (the
   * release, or a new reservation) decides again. Absent or null: no such limit (older clouds send none).
   */
  loadableUntil: epochMs.nullable().optional(),
});
export type OrderIntent = z.infer<typeof orderIntentSchema>;

export const courierGrantSchema = z.object({
  grantId: z.string().min(1),
  /** SHA-256 of the courier's access code (see codeHash). */
  codeHash: sha256Hex,
  /** Access ends at this instant: the end of the route date in the locker's time zone. */
  validUntil: epochMs,
  /** Marketplaces whose returns this courier may collect. */
  marketplaceIds: z.array(z.string().min(1)),
  /** Opaque courier reference for the locker's event log (no personal data). */
  courierRef: z.string().min(1),
});
export type CourierGrant = z.infer<typeof courierGrantSchema>;

/** Why an operator opens a cell (a closed list: free text could carry personal data into logs). */
export const CELL_OPEN_REASONS = ['customer_support', 'courier_support', 'inventory', 'maintenance', 'other'] as const;
export type CellOpenReason = (typeof CELL_OPEN_REASONS)[number];

/** Longest a service code lives: `validUntil` further ahead of the locker's clock is cut to this. */
export const SERVICE_CODE_MAX_TTL_MS = 12 * 60 * 60_000;

/** Longest a `cell.open` may wait for its locker; also the largest `notAfter - now` a locker accepts. */
export const CELL_OPEN_MAX_AGE_MS = 60 * 60_000;

// ---------------------------------------------------------------------------------------------
// Commands (down stream, numbered cseq)
// ---------------------------------------------------------------------------------------------

export const commandBodySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('locker.config'), config: lockerConfigSchema }),
  z.object({ type: z.literal('order.upsert'), order: orderIntentSchema }),
  /** The order no longer concerns this locker (moved to another locker by an update). */
  z.object({ type: z.literal('order.remove'), orderId: z.string().min(1) }),
  z.object({ type: z.literal('courier.grant'), grant: courierGrantSchema }),
  z.object({ type: z.literal('courier.revoke'), grantId: z.string().min(1) }),
  z.object({ type: z.literal('cell.flags'), cellId, flags: z.array(z.enum(CELL_FLAGS)) }),
  /**
   * An operator opens a cell's door. Refused by the locker (event `cell.open`, outcome `stale`)
   * once its own clock passes `notAfter`, or when `notAfter` lies further ahead than
   * CELL_OPEN_MAX_AGE_MS (a clock too far behind to judge age: outcome `clock_skew`).
   */
  z.object({ type: z.literal('cell.open'), cellId, reason: z.enum(CELL_OPEN_REASONS), notAfter: epochMs }),
  /**
   * An operator hands the order's parcels to the customer at the locker: the cells holding them
   * open as for the customer's code (each parcel counts as received once its door is confirmed
   * open). Judged by age like `cell.open`; the outcome comes back as an `order.handover` event.
   */
  z.object({ type: z.literal('order.handover'), orderId: z.string().min(1).max(64), notAfter: epochMs }),
  /**
   * A technician's service code for this locker, issued by an operator: its hash (codeHash with
   * kind `service`) and the instant it stops opening the service menu. The code itself never
   * leaves the operator's answer. `codeId` names it in the locker's events.
   */
  z.object({ type: z.literal('service.code'), codeId: z.string().min(1).max(64), codeHash: sha256Hex, validUntil: epochMs }),
]);
export type CommandBody = z.infer<typeof commandBodySchema>;
export type CommandType = CommandBody['type'];

/** Every command type this protocol defines (what an agent of this version announces in hello). */
export const COMMAND_TYPES: readonly CommandType[] = commandBodySchema.options.map((o) => o.shape.type.value);

/**
 * The command types every agent applies, whether or not its hello announces any. A command type
 * added later goes only to an agent that announced it: an agent fails a whole `commands` message
 * on a type it does not know, and the locker's down stream would stall on it.
 */
export const BASE_COMMAND_TYPES: readonly CommandType[] = ['locker.config', 'order.upsert', 'order.remove', 'courier.grant', 'courier.revoke', 'cell.flags'];

export const commandSchema = z.intersection(
  z.object({ cseq: seq.min(1), at: epochMs, traceparent: traceparent.optional() }),
  commandBodySchema,
);
export type Command = z.infer<typeof commandSchema>;

// ---------------------------------------------------------------------------------------------
// Events (up stream, numbered dseq): physical facts and what the locker saw
// ---------------------------------------------------------------------------------------------

export const eventBodySchema = z.discriminatedUnion('type', [
  /** A courier put the parcel into the cell and closed the door. */
  z.object({
    type: z.literal('parcel.loaded'),
    orderId: z.string().min(1),
    barcode: z.string().min(1),
    cellId,
    grantId: z.string().min(1),
  }),
  /** The customer's code opened the cell holding the parcel. */
  z.object({ type: z.literal('parcel.received'), orderId: z.string().min(1), barcode: z.string().min(1), cellId }),
  /** A courier collected the parcel (return or cancelled position). */
  z.object({
    type: z.literal('parcel.returned'),
    orderId: z.string().min(1),
    barcode: z.string().min(1),
    cellId,
    grantId: z.string().min(1),
  }),
  /** The locker changed a cell's flags itself (door jammed -> faulty; interrupted operation -> needs inventory). */
  z.object({
    type: z.literal('cell.flags'),
    cellId,
    flags: z.array(z.enum(CELL_FLAGS)),
    reason: z.enum(['door_jammed', 'interrupted_operation', 'door_left_open', 'recovered', 'door_unconfirmed']),
  }),
  /**
   * Door supervision: left open past its limit, opened without a command, closed again; or
   * `unconfirmed`: an unlock went out but the board stayed silent, so the door may have opened
   * (the cell is set aside: `cell.flags` needs_inventory, reason door_unconfirmed).
   */
  z.object({ type: z.literal('door.alarm'), cellId, kind: z.enum(['left_open', 'opened_unexpectedly', 'closed', 'unconfirmed']) }),
  /**
   * What became of a `cell.open` command (`cseq`): opened; jammed (still shut after every pulse);
   * unknown (board silent, the door may have opened); stale (reached or waited at the locker past
   * its notAfter: refused, nothing pulsed); clock_skew (notAfter implausibly far ahead of the
   * locker's clock: refused); unknown_cell (no such cell at the locker); busy (an operation of the
   * locker holds the cell: refused); failed (the hardware could not be asked).
   */
  z.object({
    type: z.literal('cell.open'),
    cseq: seq.min(1),
    cellId,
    outcome: z.enum(['opened', 'jammed', 'unknown', 'stale', 'clock_skew', 'unknown_cell', 'busy', 'failed']),
  }),
  /**
   * What became of an `order.handover` command (`cseq`): opened (every cell holding the order's
   * parcels opened); partly_opened (some did, `failed` names the others); door_fault (none did);
   * nothing_to_hand_over (no parcel of the order for the customer is in a cell); stale, clock_skew
   * (refused by age, as `cell.open`); busy (an operation of the locker holds a cell: refused);
   * interrupted (the agent stopped while carrying it out: not carried out again).
   */
  z.object({
    type: z.literal('order.handover'),
    cseq: seq.min(1),
    orderId: z.string().min(1).max(64),
    outcome: z.enum(['opened', 'partly_opened', 'door_fault', 'nothing_to_hand_over', 'stale', 'clock_skew', 'busy', 'interrupted']),
    opened: z.array(cellId).max(64),
    failed: z.array(cellId).max(64),
  }),
  /** A lock board stopped (or started again) answering. */
  z.object({ type: z.literal('board.state'), bus: z.string().min(1), board: z.number().int().nonnegative(), online: z.boolean() }),
  /** One keypad attempt; the code itself is never reported. */
  z.object({ type: z.literal('code.attempt'), kind: z.enum(['courier', 'customer']), ok: z.boolean() }),
  /** Wrong codes passed the locker's daily threshold. */
  z.object({ type: z.literal('keypad.alarm'), kind: z.enum(['courier', 'customer']), failuresToday: z.number().int().positive() }),
  /**
   * A courier's scan named parcels of several orders the courier may load (barcodes are unique only
   * within a marketplace); the screen asked the courier to choose. Order ids only, no barcode.
   */
  z.object({ type: z.literal('barcode.ambiguous'), orderIds: z.array(z.string().min(1)).min(2), grantId: z.string().min(1) }),
  /**
   * One service code typed at the screen: accepted (`codeId` names it), wrong, or expired (a code
   * the locker knows whose time is over: `codeId` names it). The code itself is never reported.
   */
  z.object({ type: z.literal('service.attempt'), outcome: z.enum(['accepted', 'wrong', 'expired']), codeId: z.string().min(1).max(64).nullable() }),
  /** Wrong service codes passed the locker's daily threshold (as `keypad.alarm` for the other kinds). */
  z.object({ type: z.literal('service.alarm'), failuresToday: z.number().int().positive() }),
  /**
   * A technician signed in with service code `codeId` looked into a flagged cell: `empty`, or
   * `found` with the parcel's `barcode` (scanned or typed). `orderId`: the order the locker holds
   * that parcel for (a parcel of it not yet in a cell), which the locker now records in the cell
   * as if loaded; null when the locker knows no such order (or more than one): the cell stays
   * flagged and the cloud raises an alert.
   */
  z.object({
    type: z.literal('cell.inventoried'),
    cellId,
    outcome: z.enum(['empty', 'found']),
    barcode: z.string().min(1).max(128).nullable(),
    orderId: z.string().min(1).max(64).nullable(),
    codeId: z.string().min(1).max(64),
  }),
]);
export type EventBody = z.infer<typeof eventBodySchema>;
export type EventType = EventBody['type'];

export const eventSchema = z.intersection(
  z.object({ dseq: seq.min(1), at: epochMs, traceparent: traceparent.optional() }),
  eventBodySchema,
);
export type LockerEvent = z.infer<typeof eventSchema>;

// ---------------------------------------------------------------------------------------------
// Software updates (docs/updates.md)
// ---------------------------------------------------------------------------------------------

/** Where an agent is with one offered release; the last four are final. */
export const UPDATE_STATES = [
  'offered',
  'downloading',
  'verifying',
  'staged',
  'waiting',
  'switching',
  'confirmed',
  'refused',
  'failed',
  'rolled_back',
  'cancelled',
] as const;
export type UpdateState = (typeof UPDATE_STATES)[number];
export const FINAL_UPDATE_STATES: readonly UpdateState[] = ['confirmed', 'refused', 'failed', 'rolled_back', 'cancelled'];

/** Why an update ended other than installed (and `already_running` when it was already). A closed list: no free text. */
export const UPDATE_REASONS = [
  ...RELEASE_REFUSALS,
  'same_version',
  'older_than_running',
  'not_updatable',
  'node_unsupported',
  'protocol_unsupported',
  'store_incompatible',
  'download_failed',
  'stage_failed',
  'switch_failed',
  'crash_loop',
  'unhealthy_link',
  'unhealthy_boards',
  'unhealthy_screen',
  'hung',
  'cancelled',
  'superseded',
  'already_running',
] as const;
export type UpdateReason = (typeof UPDATE_REASONS)[number];

/** A release offered to one locker by a rollout. The signed artifact, not this offer, is what the agent trusts. */
export const updateOfferSchema = z.object({
  rolloutId: z.number().int().positive(),
  releaseId: z.number().int().positive(),
  version: releaseVersionSchema,
  /** SHA-256 of the whole artifact: its name at the download URL. */
  sha256: sha256Hex,
  size: z.number().int().positive(),
  /** The rollout's health gate: confirm healthy within this long after the switch, or go back. */
  healthWindowSeconds: z.number().int().min(30).max(86_400),
});
export type UpdateOffer = z.infer<typeof updateOfferSchema>;

export const updateReportSchema = z.object({
  rolloutId: z.number().int().positive(),
  releaseId: z.number().int().positive(),
  /** The offered release's version. */
  version: z.string().min(1).max(64),
  state: z.enum(UPDATE_STATES),
  reason: z.enum(UPDATE_REASONS).optional(),
  /** Bytes of the artifact the agent holds (while downloading). */
  bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** The version the agent runs now. */
  running: z.string().min(1).max(64),
  at: epochMs,
});
export type UpdateReport = z.infer<typeof updateReportSchema>;

export const agentSoftwareSchema = z.object({
  version: z.string().min(1).max(64),
  /** The agent installs releases (updates configured, started by the launcher). */
  updates: z.boolean(),
  update: updateReportSchema.optional(),
});
export type AgentSoftware = z.infer<typeof agentSoftwareSchema>;

// ---------------------------------------------------------------------------------------------
// Wire messages
// ---------------------------------------------------------------------------------------------

const version = z.literal(PROTOCOL_VERSION);

/** Full state of a locker's intent, sent when the command log no longer reaches back to the agent. */
export const snapshotSchema = z.object({
  /** The snapshot includes every command up to and including this cseq. */
  cseq: seq,
  config: lockerConfigSchema,
  orders: z.array(orderIntentSchema),
  grants: z.array(courierGrantSchema),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/** Messages on `lockers/<id>/down` (cloud -> agent). */
export const downMessageSchema = z.discriminatedUnion('type', [
  z.object({ v: version, type: z.literal('commands'), items: z.array(commandSchema).min(1) }),
  z.object({ v: version, type: z.literal('snapshot'), snapshot: snapshotSchema }),
  /**
   * Cumulative: every event with dseq <= ackedDseq is applied by the cloud. `conn`: the connection
   * counter of the last hello the cloud answered for this locker, so that an agent can tell the
   * answer to its own hello from an ack of an earlier connection (absent from older clouds).
   */
  z.object({ v: version, type: z.literal('ack'), ackedDseq: seq, conn: z.number().int().min(0).optional() }),
  /** A release to install (docs/updates.md): sent only to agents whose hello says `agent.updates`. */
  z.object({ v: version, type: z.literal('update'), offer: updateOfferSchema }),
  /** The rollout was paused, halted or aborted: give up the offer unless the switch happened. */
  z.object({ v: version, type: z.literal('update.cancel'), rolloutId: z.number().int().positive(), releaseId: z.number().int().positive() }),
]);
export type DownMessage = z.infer<typeof downMessageSchema>;

/**
 * The agent's vital signs, sent on `up` as a `health` message every report interval and soon
 * after a door fault or a board error. Counts cover the interval since the agent's previous
 * report that reached the broker; the rest is the state at `at`. Older clouds ignore the message
 * (it fails their schema and is dropped with a warning); a cloud keeps the latest per locker.
 */
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const millis = z.number().min(0).max(3_600_000);
export const healthReportSchema = z.object({
  at: epochMs,
  /** Length of the interval the counts cover. */
  intervalSeconds: z.number().min(0).max(366 * 86_400),
  uptimeSeconds: z.number().min(0).max(100 * 366 * 86_400),
  /** The agent's software version. */
  version: z.string().min(1).max(64),
  memory: z.object({ rssBytes: count, heapUsedBytes: count }),
  boards: z.object({
    /** Board answers in the interval, their median and 99th percentile time (null: no answer). */
    answers: count,
    p50Ms: millis.nullable(),
    p99Ms: millis.nullable(),
    /** Requests that got no valid answer (timeouts, bad frames, transport errors). */
    errors: count,
  }),
  /** Door faults in the interval: a door opened unexpectedly, left open, a jammed lock. */
  doorFaults: count,
  scans: count,
  /** Events in the agent's outbox not yet acked by the cloud. */
  outboxDepth: count,
  link: z.object({ reconnects: count }),
});
export type HealthReport = z.infer<typeof healthReportSchema>;

/** Messages on `lockers/<id>/up` (agent -> cloud). */
export const upMessageSchema = z.discriminatedUnion('type', [
  /** Sent on every (re)connect; the cloud answers with replay or snapshot, and an ack. */
  z.object({
    v: version,
    type: z.literal('hello'),
    lockerId: z.string().min(1),
    appliedCseq: seq,
    ackedDseq: seq,
    conn: z.number().int().positive(),
    /** Command types the agent applies (absent from older agents: BASE_COMMAND_TYPES). */
    commandTypes: z.array(z.string().min(1).max(64)).max(100).optional(),
    /** The agent's software and its latest update (absent from older agents: never offered one). */
    agent: agentSoftwareSchema.optional(),
  }),
  z.object({ v: version, type: z.literal('events'), items: z.array(eventSchema).min(1) }),
  /** Cumulative: every command with cseq <= appliedCseq is applied by the agent. */
  z.object({ v: version, type: z.literal('ack'), appliedCseq: seq }),
  z.object({ v: version, type: z.literal('health'), report: healthReportSchema }),
  /** Progress and outcome of an update, at each step (also repeated in every hello's `agent.update`). */
  z.object({ v: version, type: z.literal('update'), report: updateReportSchema }),
]);
export type UpMessage = z.infer<typeof upMessageSchema>;

/** Retained on `lockers/<id>/presence`; a higher `conn` always wins over a lower one. */
export const presenceSchema = z.object({
  v: version,
  online: z.boolean(),
  conn: z.number().int().positive(),
  at: epochMs,
  /** The agent's software version (absent from older agents). */
  version: z.string().min(1).max(64).optional(),
});
export type Presence = z.infer<typeof presenceSchema>;
