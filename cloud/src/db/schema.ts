/**
 * Table types of the cloud database (Kysely). The same schema runs on SQLite and PostgreSQL, so
 * it uses only what both share: text, integer/bigint, JSON kept as text, booleans as 0/1, and
 * timestamps as epoch milliseconds from the injected clock (never a database `now()`).
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** 0 or 1. */
export type Flag = number;
/** Epoch milliseconds. */
export type Millis = number;
/** JSON document stored as text; parse at the edge with its zod schema. */
export type JsonText = string;

export interface MarketplacesTable {
  id: string;
  name: string;
  active: Flag;
  organization_active: Flag;
  receiver_url: string | null;
  receiver_login: string | null;
  receiver_password: string | null;
  /** Path of a PEM file with extra CAs trusted for this receiver. */
  receiver_ca_file: string | null;
  /** 'object' or 'array': the form of notification bodies. */
  body_form: string;
  /** Secret for the optional HMAC signature header of notifications. */
  hmac_secret: string | null;
  storage_period_hours: number;
  updated_at: Millis;
  /** Its `rateLimits` from the fleet file (JSON); null = the defaults. */
  rate_limits: JsonText | null;
  /** 1: a sandbox marketplace (its keys see only sandbox lockers). */
  sandbox: ColumnType<Flag, Flag | undefined, Flag>;
  /** Sandbox only: its receiver is held as if down until then; null = not held. */
  receiver_held_until: ColumnType<Millis | null, Millis | null | undefined, Millis | null>;
}

export interface ApiKeysTable {
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string;
  /** 'marketplace' | 'partner' | 'operator' */
  owner_kind: string;
  owner_id: string;
}

export interface PartnersTable {
  id: string;
  name: string;
  active: Flag;
  updated_at: Millis;
  /** Its `rateLimits` from the fleet file (JSON); null = the defaults. */
  rate_limits: JsonText | null;
}

export interface PartnerMarketplacesTable {
  partner_id: string;
  marketplace_id: string;
}

export interface PartnerLockersTable {
  partner_id: string;
  locker_id: number;
}

export interface LockersTable {
  /** postamatId of the spec. */
  id: number;
  name: string;
  timezone: string;
  depth: number;
  active: Flag;
  broken: Flag;
  /** Has a barcode scanner (machineEquipment.barcodeScannerEquip), for the `scanner` filter. */
  scanner: Flag;
  /** Descriptive data of the fleet file (location, schedule, special days, photos, ...), JSON. */
  profile: JsonText;
  /** SHA-256 hex of the locker's MQTT password (embedded broker); a sandbox locker's is set by the cloud that runs it. */
  mqtt_password_hash: string | null;
  /** 1: a sandbox locker (the cloud runs it on the simulator; only sandbox marketplaces see it). */
  sandbox: ColumnType<Flag, Flag | undefined, Flag>;
  /** Next command number of the locker's down stream. */
  next_cseq: ColumnType<number, number | undefined, number>;
  /** Highest cseq the agent acknowledged as applied. */
  applied_cseq: ColumnType<number, number | undefined, number>;
  /** Highest dseq of the locker's events the cloud applied. */
  acked_dseq: ColumnType<number, number | undefined, number>;
  /** Presence: highest connection counter seen, and whether that connection is online. */
  presence_conn: ColumnType<number, number | undefined, number>;
  online: ColumnType<Flag, Flag | undefined, Flag>;
  last_seen_at: Millis | null;
  /** Sync send cursor: highest cseq published since the agent's last hello. */
  sent_cseq: ColumnType<number, number | undefined, number>;
  /** Sync send cursor: when the agent last made progress (fresh send or advancing ack). */
  sent_at: ColumnType<Millis | null, Millis | null | undefined, Millis | null>;
  /** Sync: connection counter of the last hello answered; commands are pushed only to that connection. */
  hello_conn: ColumnType<number, number | undefined, number>;
  /** JSON array of the command types the agent announced in its last hello; null: none announced. */
  command_types: ColumnType<string | null, string | null | undefined, string | null>;
  /** When `online` last changed (online since / offline since); null: never seen. */
  presence_changed_at: ColumnType<Millis | null, Millis | null | undefined, Millis | null>;
  /** Moved by every change of the locker's row, cells or held parcels (lockers/occupancy-cache.ts). */
  occupancy_version: ColumnType<number, number | undefined, number>;
  updated_at: Millis;
}

export interface CellsTable {
  locker_id: number;
  /** cellId of the spec, unique within its locker. */
  id: number;
  width: number;
  height: number;
  bus: string;
  board: number;
  lock: number;
  /** JSON array of marketplace ids the cell is reserved for; null = available to all marketplaces. */
  segment: JsonText | null;
  faulty: Flag;
  dirty: Flag;
  needs_inventory: Flag;
  blocked: Flag;
  updated_at: Millis;
  /** Reachable from a wheelchair (fleet file: the cell's `accessible`, or its `bottomMm` within the locker's limit). */
  accessible: ColumnType<Flag, Flag | undefined, Flag>;
}

export interface OrdersTable {
  /** Platform order id (UUID); `externalId` is unique per marketplace only. */
  id: string;
  marketplace_id: string;
  external_id: string;
  number: string | null;
  locker_id: number;
  /** YYYY-MM-DD */
  date_delivery: string;
  state: number;
  /** 1 when created by smartorder/create (cells reserved at creation). */
  with_reservation: Flag;
  /** SHA-256 of the canonical create request, to tell a replay from a conflicting duplicate. */
  request_hash: string;
  /** The create answer, returned again to an identical replay. */
  create_response: JsonText;
  client_invoice: JsonText;
  /** Customer contacts (personal data): kept for support, never logged. */
  notification: JsonText;
  /** codeHash('customer', lockerId, code) of the active pick-up code. */
  pickup_code_hash: string | null;
  loaded_at: Millis | null;
  hold_until: Millis | null;
  state_changed_at: Millis;
  created_at: Millis;
  updated_at: Millis;
}

export interface ParcelsTable {
  order_id: string;
  barcode: string;
  /** Position of the parcel in the order's request. */
  position: number;
  additional_barcodes: JsonText;
  length: number | null;
  width: number | null;
  height: number | null;
  /** ParcelState */
  state: string;
  /** Reserved cell while pending; the cell holding it once loaded. */
  cell_id: number | null;
  loaded_at: Millis | null;
  updated_at: Millis;
  /** The parcel goes only into an accessible cell (the request's `accessible`). */
  accessible: Flag;
}

export interface CouriersTable {
  id: string;
  partner_id: string;
  external_id: string;
  email: string;
  phone: string;
  inn: string | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface RouteSheetsTable {
  id: string;
  courier_id: string;
  partner_id: string;
  /** YYYY-MM-DD */
  route_date: string;
  car_number: string;
  /** route.externalId of the request (the marketplace's own reference). */
  external_id: string | null;
  created_at: Millis;
}

export interface RouteSheetLockersTable {
  route_sheet_id: string;
  locker_id: number;
  /** codeHash('courier', lockerId, code) */
  code_hash: string;
  /** End of the route date in the locker's time zone. */
  valid_until: Millis;
}

export interface LockerCommandsTable {
  locker_id: number;
  cseq: number;
  type: string;
  /** The command body (shared/protocol commandBodySchema), JSON. */
  body: JsonText;
  created_at: Millis;
  /** traceparent of the span that recorded the command; null while tracing is off. */
  trace: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface InboxEventsTable {
  locker_id: number;
  dseq: number;
  type: string;
  body: JsonText;
  /** When the locker saw it (locker clock). */
  occurred_at: Millis;
  received_at: Millis;
}

export interface NotificationsTable {
  /** Monotonic: per order, notifications are delivered in this order. */
  id: Generated<number>;
  /** Stable id sent in a header so receivers can deduplicate. */
  uid: string;
  marketplace_id: string;
  order_id: string;
  /** 'order-status' | 'user-access-code' | 'expiration-date-changes' */
  kind: string;
  /** The notification object (without the object/array wrapping), JSON. */
  body: JsonText;
  created_at: Millis;
  /** traceparent of the span that recorded the notification; null while tracing is off. */
  trace: ColumnType<string | null, string | null | undefined, string | null>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Millis;
  last_attempt_at: Millis | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Millis | null;
  failing_since: Millis | null;
  /** X-Request-Id of the API call that caused it (null: caused by a locker or the storage clock); sent with it. */
  request_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * An order in Return initiated (6): the cseq of the order.upsert that revoked its pick-up code.
 * The order moves on to 7 once the locker's applied_cseq reaches it (or after at most 15 minutes).
 */
export interface OrderRevocationsTable {
  order_id: string;
  locker_id: number;
  revoke_cseq: number;
  created_at: Millis;
}

/** One applied row of the order lifecycle (lifecycle/apply.ts). */
export interface OrderTransitionsTable {
  order_id: string;
  /** 1, 2, ... per order. */
  seq: number;
  at: Millis;
  /** Id of the lifecycle table's row. */
  rule: string;
  event: string;
  /** Null when the order was created. */
  from_state: number | null;
  to_state: number;
  /** JSON [{barcode, from, to}] of the parcels whose state changed; `from` null for a new parcel. */
  parcels: JsonText;
}

/** One change of a locker's link: it went online or offline at `at` (reports: uptime). */
export interface LockerLinkHistoryTable {
  id: Generated<number>;
  locker_id: number;
  at: Millis;
  online: Flag;
}

/** Facts of a locker kept for operators: alarms, keypad, cell flags, facts that met a changed intent. */
export interface LockerAlertsTable {
  id: Generated<number>;
  locker_id: number;
  /** The event that raised it (null when the cloud raised it itself). */
  dseq: number | null;
  /** Event type ('door.alarm', ...) or a conflict kind ('fact.unknown_order', ...). */
  kind: string;
  /** 'critical' | 'warning' | 'info' */
  severity: string;
  cell_id: number | null;
  order_id: string | null;
  /** The fact's own fields, JSON; never personal data or codes. */
  detail: JsonText;
  /** When the locker saw it (locker clock). */
  occurred_at: Millis;
  received_at: Millis;
  /** 'open' | 'acknowledged' | 'resolved' | 'history' (a routine fact, never an alert). */
  status: ColumnType<string, string | undefined, string>;
  /** kind + locker + cell (+ what else tells two alerts apart): repeats add to the open alert's count. */
  dedup_key: string | null;
  count: ColumnType<number, number | undefined, number>;
  /** Cloud time of the latest repeat. */
  last_seen_at: Millis | null;
  acknowledged_at: Millis | null;
  acknowledged_by: string | null;
  resolved_at: Millis | null;
  /** An operator's name, or `locker` when a later fact cleared it. */
  resolved_by: string | null;
  resolve_reason: string | null;
  /** The operator the alert is assigned to (who is on it); null: nobody yet. */
  assignee: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An operator's note on an alert, oldest first. */
export interface AlertNotesTable {
  id: Generated<number>;
  alert_id: number;
  at: Millis;
  operator: string;
  text: string;
}

/** The fleet file's operators and their role ('viewer' | 'operator'). */
export interface OperatorsTable {
  name: string;
  role: string;
}

/** A signed-in operator console: the SHA-256 of the cookie's token, never the token. */
export interface OperatorSessionsTable {
  token_hash: string;
  operator: string;
  csrf_token: string;
  created_at: Millis;
  /** Moves forward with use (idle expiry). */
  expires_at: Millis;
}

/** What an operator did: who, when, what, to what, why. */
export interface OperatorAuditTable {
  id: Generated<number>;
  at: Millis;
  operator: string;
  action: string;
  /** `locker:1/cell:3`, `alert:17`, `order:<id>`, `notifications` */
  target: string;
  /** The action's reason: a fixed purpose where the action has one (cell open), else the operator's words. */
  reason: string | null;
  /** The operator's free-text note beside the reason. */
  note: string | null;
  /** The locker and the order the entry concerns, where it concerns one (filters). */
  locker_id: number | null;
  order_id: string | null;
  /** JSON of what changed; never personal data or codes. */
  detail: JsonText;
}

/** Who set a cell's flag, why and when; the row goes when the flag is cleared. */
export interface CellFlagMarksTable {
  locker_id: number;
  cell_id: number;
  flag: string;
  set_at: Millis;
  /** The operator's name, `locker` (the locker raised it) or `fleet` (the fleet file). */
  set_by: string;
  reason: string | null;
  note: string | null;
}

/** A marketplace API call that named an order, whatever its answer. */
export interface OrderApiCallsTable {
  id: Generated<number>;
  order_id: string;
  marketplace_id: string;
  /** 'order/update', ... */
  operation: string;
  at: Millis;
  /** 0 on success, else the envelope's resultCode. */
  result_code: number;
  request_id: string;
}

/** One delivery attempt of a notification and the receiver's answer. */
export interface NotificationAttemptsTable {
  id: Generated<number>;
  notification_id: number;
  order_id: string;
  at: Millis;
  /** HTTP status; null when no answer came. */
  status: number | null;
  /** Null when delivered. */
  error: string | null;
}

/** The latest health report of a locker's agent (repositories/locker-health.ts). */
export interface LockerHealthTable {
  locker_id: number;
  /** The report as the agent sent it (protocol HealthReport), JSON. */
  report: JsonText;
  door_faults: number;
  board_errors: number;
  /** The report's `at` (locker clock). */
  reported_at: Millis;
  received_at: Millis;
}

/**
 * An Idempotency-Key of one caller: claimed by the first request (token, lease), then holding that
 * request's answer until it expires (http/idempotency.ts).
 */
export interface IdempotencyKeysTable {
  /** `marketplace:<id>` or `partner:<id>`: keys are per caller. */
  caller: string;
  key: string;
  /** SHA-256 of the operation and the canonical body. */
  fingerprint: string;
  /** The claim of the request that owns the key; its answer is stored only under this token. */
  token: string;
  /** While no answer is stored: until when the claim holds (then a retry may take it over). */
  locked_until: Millis;
  /** HTTP status of the first answer; null while in flight. */
  status: number | null;
  /** Body of the first answer (JSON text); null while in flight. */
  response: JsonText | null;
  created_at: Millis;
  expires_at: Millis;
}

export interface Database {
  marketplaces: MarketplacesTable;
  api_keys: ApiKeysTable;
  partners: PartnersTable;
  partner_marketplaces: PartnerMarketplacesTable;
  partner_lockers: PartnerLockersTable;
  lockers: LockersTable;
  cells: CellsTable;
  orders: OrdersTable;
  parcels: ParcelsTable;
  couriers: CouriersTable;
  route_sheets: RouteSheetsTable;
  route_sheet_lockers: RouteSheetLockersTable;
  locker_commands: LockerCommandsTable;
  inbox_events: InboxEventsTable;
  notifications: NotificationsTable;
  order_revocations: OrderRevocationsTable;
  order_transitions: OrderTransitionsTable;
  locker_alerts: LockerAlertsTable;
  locker_health: LockerHealthTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
  operator_audit: OperatorAuditTable;
  cell_flag_marks: CellFlagMarksTable;
  alert_notes: AlertNotesTable;
  order_api_calls: OrderApiCallsTable;
  notification_attempts: NotificationAttemptsTable;
  rate_counters: RateCountersTable;
  guard_locks: GuardLocksTable;
  idempotency_keys: IdempotencyKeysTable;
  releases: ReleasesTable;
  rollouts: RolloutsTable;
  rollout_lockers: RolloutLockersTable;
  locker_agents: LockerAgentsTable;
  locker_link_history: LockerLinkHistoryTable;
}

/** A signed agent release (docs/updates.md), the artifact kept exactly as the operator signed it. */
export interface ReleasesTable {
  id: Generated<number>;
  version: string;
  min_protocol: number;
  /** JSON array of the versions this release may replace although newer (signed rollback). */
  rollback_from: JsonText;
  key_id: string;
  /** The signed manifest, JSON. */
  manifest: JsonText;
  /** SHA-256 hex of the whole artifact: its name at the download URL. */
  sha256: string;
  size: number;
  artifact: Buffer;
  notes: string | null;
  created_at: Millis;
  created_by: string;
}

/** A release rolled out to a target in waves (updates/conductor.ts moves it on). */
export interface RolloutsTable {
  id: Generated<number>;
  release_id: number;
  /** JSON {kind: all|lockers|city, lockerIds?, city?} as the operator gave it. */
  target: JsonText;
  /** JSON array of the cumulative percentages of the waves as given, e.g. [1, 10, 50, 100]. */
  waves: JsonText;
  soak_seconds: number;
  health_window_seconds: number;
  max_failure_percent: number;
  /** running | paused | halted | aborted | completed */
  state: string;
  /** Index of the wave under way (0-based, of the waves that have lockers). */
  wave: number;
  wave_started_at: Millis;
  /** When every locker of the wave that could act had finished; the soak counts from here. */
  wave_settled_at: Millis | null;
  halt_reason: string | null;
  /** Failures before this instant do not count toward a halt (set when an operator resumes). */
  failures_since: Millis;
  /** The rollout this one rolls back (a signed rollback release to its lockers). */
  rollback_of: number | null;
  created_at: Millis;
  created_by: string;
  updated_at: Millis;
}

/** One locker of a rollout: its wave and where its update is. */
export interface RolloutLockersTable {
  rollout_id: number;
  locker_id: number;
  wave: number;
  /** Order within the rollout (wave membership follows it). */
  position: number;
  /** pending | skipped | an UpdateState of the protocol */
  state: string;
  reason: string | null;
  bytes: number | null;
  offered_at: Millis | null;
  /** The agent's clock at its latest report (reports apply in this order). */
  reported_at: Millis | null;
  /** The cloud's clock when it last heard of this locker's update. */
  heard_at: Millis | null;
  /** The cloud's clock when the locker reported its switch. */
  switched_at: Millis | null;
  finished_at: Millis | null;
}

/** What each locker's agent last said of its software (hello, presence, update reports). */
export interface LockerAgentsTable {
  locker_id: number;
  version: string;
  /** 1: it installs releases (updates configured, started by the launcher). */
  updates: Flag;
  reported_at: Millis;
}

/** One fixed window of a rate or failure count (guard/window-counters.ts). */
export interface RateCountersTable {
  key: string;
  window_start: Millis;
  hits: number;
  /** window_start + the window's length: rows past it are pruned. */
  expires_at: Millis;
}

/** A guessed credential's path refused until `locked_until` (guard/code-guessing.ts). */
export interface GuardLocksTable {
  key: string;
  locked_until: Millis;
}

export type OrderRow = Selectable<OrdersTable>;
export type NewOrderRow = Insertable<OrdersTable>;
export type OrderUpdate = Updateable<OrdersTable>;
export type ParcelRow = Selectable<ParcelsTable>;
export type CellRow = Selectable<CellsTable>;
export type LockerRow = Selectable<LockersTable>;
export type MarketplaceRow = Selectable<MarketplacesTable>;
export type PartnerRow = Selectable<PartnersTable>;
export type CourierRow = Selectable<CouriersTable>;
export type NotificationRow = Selectable<NotificationsTable>;
export type LockerAlertRow = Selectable<LockerAlertsTable>;
