/**
 * Schema migrations, in code so that both engines run exactly the same steps. A migration is
 * never edited once released: add a new one.
 */
import { type ColumnDefinitionBuilder, type Kysely, type Migration, type MigrationProvider, sql } from 'kysely';
import type { Engine } from './engine.js';

type Db = Kysely<unknown>;

function migration0001(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Db) {
      await db.schema
        .createTable('marketplaces')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('organization_active', 'integer', (c) => c.notNull())
        .addColumn('receiver_url', 'text')
        .addColumn('receiver_login', 'text')
        .addColumn('receiver_password', 'text')
        .addColumn('receiver_ca_file', 'text')
        .addColumn('body_form', 'text', (c) => c.notNull())
        .addColumn('hmac_secret', 'text')
        .addColumn('storage_period_hours', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('key_hash', 'text', (c) => c.primaryKey())
        .addColumn('owner_kind', 'text', (c) => c.notNull())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('partners')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('partner_marketplaces')
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('marketplace_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('partner_marketplaces_pk', ['partner_id', 'marketplace_id'])
        .execute();

      await db.schema
        .createTable('partner_lockers')
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('partner_lockers_pk', ['partner_id', 'locker_id'])
        .execute();

      await db.schema
        .createTable('lockers')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull())
        .addColumn('depth', 'integer', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('broken', 'integer', (c) => c.notNull())
        .addColumn('scanner', 'integer', (c) => c.notNull())
        .addColumn('profile', 'text', (c) => c.notNull())
        .addColumn('mqtt_password_hash', 'text')
        .addColumn('next_cseq', 'bigint', (c) => c.notNull().defaultTo(1))
        .addColumn('applied_cseq', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('acked_dseq', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('presence_conn', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_seen_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('cells')
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('id', 'integer', (c) => c.notNull())
        .addColumn('width', 'integer', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        .addColumn('bus', 'text', (c) => c.notNull())
        .addColumn('board', 'integer', (c) => c.notNull())
        .addColumn('lock', 'integer', (c) => c.notNull())
        .addColumn('segment', 'text')
        .addColumn('faulty', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('dirty', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('needs_inventory', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('cells_pk', ['locker_id', 'id'])
        .execute();

      await db.schema
        .createTable('orders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('marketplace_id', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('number', 'text')
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('date_delivery', 'text', (c) => c.notNull())
        .addColumn('state', 'integer', (c) => c.notNull())
        .addColumn('with_reservation', 'integer', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('create_response', 'text', (c) => c.notNull())
        .addColumn('client_invoice', 'text', (c) => c.notNull())
        .addColumn('notification', 'text', (c) => c.notNull())
        .addColumn('pickup_code_hash', 'text')
        .addColumn('loaded_at', 'bigint')
        .addColumn('hold_until', 'bigint')
        .addColumn('state_changed_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('orders_marketplace_external_uq', ['marketplace_id', 'external_id'])
        .execute();
      await db.schema.createIndex('orders_locker_state_ix').on('orders').columns(['locker_id', 'state']).execute();
      await db.schema.createIndex('orders_hold_until_ix').on('orders').columns(['state', 'hold_until']).execute();
      await db.schema
        .createIndex('orders_pickup_code_uq')
        .on('orders')
        .columns(['locker_id', 'pickup_code_hash'])
        .unique()
        .where(sql.ref('pickup_code_hash'), 'is not', null)
        .execute();

      await db.schema
        .createTable('parcels')
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('barcode', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('additional_barcodes', 'text', (c) => c.notNull())
        .addColumn('length', 'integer')
        .addColumn('width', 'integer')
        .addColumn('height', 'integer')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('cell_id', 'integer')
        .addColumn('loaded_at', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('parcels_pk', ['order_id', 'barcode'])
        .execute();
      await db.schema.createIndex('parcels_barcode_ix').on('parcels').column('barcode').execute();

      await db.schema
        .createTable('couriers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('phone', 'text', (c) => c.notNull())
        .addColumn('inn', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('couriers_partner_external_uq', ['partner_id', 'external_id'])
        .execute();

      await db.schema
        .createTable('route_sheets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('courier_id', 'text', (c) => c.notNull())
        .addColumn('partner_id', 'text', (c) => c.notNull())
        .addColumn('route_date', 'text', (c) => c.notNull())
        .addColumn('car_number', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('route_sheets_courier_ix').on('route_sheets').columns(['courier_id', 'route_date']).execute();

      await db.schema
        .createTable('route_sheet_lockers')
        .addColumn('route_sheet_id', 'text', (c) => c.notNull())
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('valid_until', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('route_sheet_lockers_pk', ['route_sheet_id', 'locker_id'])
        .execute();
      await db.schema.createIndex('route_sheet_lockers_code_ix').on('route_sheet_lockers').columns(['locker_id', 'code_hash']).execute();

      await db.schema
        .createTable('locker_commands')
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('cseq', 'bigint', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('locker_commands_pk', ['locker_id', 'cseq'])
        .execute();

      await db.schema
        .createTable('inbox_events')
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('dseq', 'bigint', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('inbox_events_pk', ['locker_id', 'dseq'])
        .execute();

      await db.schema
        .createTable('notifications')
        .addColumn('id', sql.raw(autoId), (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('uid', 'text', (c) => c.notNull().unique())
        .addColumn('marketplace_id', 'text', (c) => c.notNull())
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('last_attempt_at', 'bigint')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'bigint')
        .addColumn('failing_since', 'bigint')
        .execute();
      await db.schema
        .createIndex('notifications_pending_ix')
        .on('notifications')
        .columns(['delivered_at', 'next_attempt_at'])
        .execute();
      await db.schema.createIndex('notifications_order_ix').on('notifications').columns(['order_id', 'id']).execute();
    },
  };
}

/**
 * Route sheets keep the marketplace's own route reference; a partner's couriers are unique by
 * e-mail and by phone (result code 602), enforced by the database so concurrent requests agree.
 */
const migration0002: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('route_sheets').addColumn('external_id', 'text').execute();
    await db.schema.createIndex('couriers_partner_email_uq').on('couriers').columns(['partner_id', 'email']).unique().execute();
    await db.schema.createIndex('couriers_partner_phone_uq').on('couriers').columns(['partner_id', 'phone']).unique().execute();
    await db.schema.createIndex('parcels_cell_ix').on('parcels').columns(['cell_id']).execute();
  },
};

/**
 * The locker link's send cursor: what was published to the locker's current connection, when
 * the agent last made progress, and which connection has said hello, so several cloud
 * processes push each range once, only to a connection whose position is known, and resend
 * only after a timeout.
 */
const migration0003: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('lockers').addColumn('sent_cseq', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('lockers').addColumn('sent_at', 'bigint').execute();
    await db.schema.alterTable('lockers').addColumn('hello_conn', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/**
 * The storage clock and the locker's facts: per order in Return initiated, the cseq of the
 * order.upsert that revoked its pick-up code (6 -> 7 once the locker has applied it), in a table
 * of its own so the order rows keep their shape; and the locker's non-order facts kept for
 * operators (door and board alarms, keypad, cell flags, conflicts between a fact and the intent).
 */
function migration0004(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Db) {
      await db.schema
        .createTable('order_revocations')
        .addColumn('order_id', 'text', (c) => c.primaryKey())
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('revoke_cseq', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('locker_alerts')
        .addColumn('id', sql.raw(autoId), (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('dseq', 'bigint')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('cell_id', 'integer')
        .addColumn('order_id', 'text')
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('locker_alerts_locker_ix').on('locker_alerts').columns(['locker_id', 'id']).execute();
    },
  };
}

/**
 * Rate limits and the guess lockout: fixed-window counters shared by every cloud process (one
 * atomic upsert per hit), the locks of guessed credentials, and each marketplace's and partner's
 * limits from the fleet file (JSON; null = the defaults).
 */
const migration0005: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('rate_counters')
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('hits', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_counters_pk', ['key', 'window_start'])
      .execute();
    await db.schema.createIndex('rate_counters_expires_ix').on('rate_counters').columns(['expires_at']).execute();
    await db.schema
      .createTable('guard_locks')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('marketplaces').addColumn('rate_limits', 'text').execute();
    await db.schema.alterTable('partners').addColumn('rate_limits', 'text').execute();
  },
};

/**
 * The command types each locker's agent announced in its last hello (JSON array; null: an agent
 * that announces none takes the protocol's first set only). New command types go only to agents
 * that announced them.
 */
const migration0006: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('lockers').addColumn('command_types', 'text').execute();
  },
};

/**
 * The order lifecycle's record: one row per applied transition (lifecycle/apply.ts) with the id of
 * its table row, the states before and after, and the parcels whose state changed (JSON
 * `[{barcode, from, to}]`, `from` null for a new parcel), so why an order is where it is can be read
 * back.
 */
const migration0007: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('order_transitions')
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('rule', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('from_state', 'integer')
      .addColumn('to_state', 'integer', (c) => c.notNull())
      .addColumn('parcels', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('order_transitions_pk', ['order_id', 'seq'])
      .execute();
  },
};

/**
 * The operator console: operators and their role (from the fleet file), sign-in sessions (only
 * the SHA-256 of the cookie's token is stored, so every cloud process accepts it), the audit log
 * of operator actions, the marketplace API calls that touched an order, every notification
 * attempt with its HTTP answer, when a locker's presence last changed, and alerts with a status,
 * a dedup key, a count and who acknowledged or resolved them. Rows kept from before are history
 * (info) or open alerts (warning).
 */
function migration0008(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  const idColumn = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  return {
    async up(db: Db) {
      await db.schema
        .createTable('operators')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('role', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('operator_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('operator_sessions_expires_ix').on('operator_sessions').columns(['expires_at']).execute();
      await db.schema
        .createTable('operator_audit')
        .addColumn('id', sql.raw(autoId), idColumn)
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('detail', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('order_api_calls')
        .addColumn('id', sql.raw(autoId), idColumn)
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('marketplace_id', 'text', (c) => c.notNull())
        .addColumn('operation', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('result_code', 'integer', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('order_api_calls_order_ix').on('order_api_calls').columns(['order_id', 'id']).execute();
      await db.schema
        .createTable('notification_attempts')
        .addColumn('id', sql.raw(autoId), idColumn)
        .addColumn('notification_id', 'bigint', (c) => c.notNull())
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('notification_attempts_order_ix').on('notification_attempts').columns(['order_id', 'id']).execute();
      await db.schema.alterTable('lockers').addColumn('presence_changed_at', 'bigint').execute();
      await db.schema.alterTable('locker_alerts').addColumn('status', 'text', (c) => c.notNull().defaultTo('open')).execute();
      await db.schema.alterTable('locker_alerts').addColumn('dedup_key', 'text').execute();
      await db.schema.alterTable('locker_alerts').addColumn('count', 'integer', (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable('locker_alerts').addColumn('last_seen_at', 'bigint').execute();
      await db.schema.alterTable('locker_alerts').addColumn('acknowledged_at', 'bigint').execute();
      await db.schema.alterTable('locker_alerts').addColumn('acknowledged_by', 'text').execute();
      await db.schema.alterTable('locker_alerts').addColumn('resolved_at', 'bigint').execute();
      await db.schema.alterTable('locker_alerts').addColumn('resolved_by', 'text').execute();
      await db.schema.alterTable('locker_alerts').addColumn('resolve_reason', 'text').execute();
      await sql`update locker_alerts set status = 'history' where severity = 'info'`.execute(db);
      await db.schema.createIndex('locker_alerts_dedup_ix').on('locker_alerts').columns(['dedup_key', 'status']).execute();
      await db.schema.createIndex('locker_alerts_status_ix').on('locker_alerts').columns(['status', 'locker_id']).execute();
    },
  };
}

/**
 * Safe retries, traceable calls, accessible cells:
 * - `idempotency_keys`: one row per (caller, Idempotency-Key): the request's fingerprint, the claim
 *   of the request in flight (token, lease), then the first answer (status, body) replayed to
 *   retries until `expires_at`;
 * - `notifications.request_id`: the X-Request-Id of the API call that caused the notification;
 * - `cells.accessible`: the cell is reachable from a wheelchair (from the fleet file);
 * - `parcels.accessible`: the parcel must go into such a cell.
 */
const migration0010: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('caller', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('response', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['caller', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expires_ix').on('idempotency_keys').columns(['expires_at']).execute();
    await db.schema.alterTable('notifications').addColumn('request_id', 'text').execute();
    await db.schema.alterTable('cells').addColumn('accessible', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('parcels').addColumn('accessible', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/**
 * The latest health report of each locker's agent (protocol `health`), as JSON, with the door
 * faults and board errors of its interval as columns so the metrics' aggregates need no JSON.
 */
const migration0011: Migration = {
  async up(db: Db) {
    await db.schema
      .createTable('locker_health')
      .addColumn('locker_id', 'integer', (c) => c.primaryKey())
      .addColumn('report', 'text', (c) => c.notNull())
      .addColumn('door_faults', 'integer', (c) => c.notNull())
      .addColumn('board_errors', 'integer', (c) => c.notNull())
      .addColumn('reported_at', 'bigint', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/**
 * Tracing: the W3C traceparent of the span that recorded a command or a notification (null while
 * tracing is off), so that sending it later continues the same trace.
 */
const migration0009: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('locker_commands').addColumn('trace', 'text').execute();
    await db.schema.alterTable('notifications').addColumn('trace', 'text').execute();
  },
};

/**
 * The sandbox (docs/sandbox.md): which lockers and marketplaces are sandbox ones (0/1), and until
 * when a sandbox marketplace's receiver is held as if it were down (epoch ms; null: not held). The
 * hold is kept here, not in the fleet file, so every cloud process honours it and a reload keeps it.
 */
const migration0012: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('lockers').addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('marketplaces').addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('marketplaces').addColumn('receiver_held_until', 'bigint').execute();
  },
};

/**
 * The version of a locker's occupancy: moved by every transaction that changes the locker's cells,
 * its row or the parcels held in it (docs/decisions.md, "Occupancy held in memory"), so a cloud
 * process keeps a locker's cells and holders in memory and knows, from one read under the locker's
 * lock, whether that copy is still the database's.
 */
const migration0013: Migration = {
  async up(db: Db) {
    await db.schema.alterTable('lockers').addColumn('occupancy_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/**
 * Software updates of the lockers' agents (docs/updates.md): signed releases (the artifact kept
 * whole, as the operator signed it), rollouts in waves, each locker's place in a rollout, and what
 * each agent last said of its software.
 */
function migration0018(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  const blob = engine === 'postgres' ? 'bytea' : 'blob';
  return {
    async up(db: Db) {
      await db.schema
        .createTable('releases')
        .addColumn('id', autoId, (c) => c.primaryKey())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('min_protocol', 'integer', (c) => c.notNull())
        .addColumn('rollback_from', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('manifest', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull().unique())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('artifact', sql.raw(blob), (c) => c.notNull())
        .addColumn('notes', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('rollouts')
        .addColumn('id', autoId, (c) => c.primaryKey())
        .addColumn('release_id', 'bigint', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('waves', 'text', (c) => c.notNull())
        .addColumn('soak_seconds', 'integer', (c) => c.notNull())
        .addColumn('health_window_seconds', 'integer', (c) => c.notNull())
        .addColumn('max_failure_percent', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('wave', 'integer', (c) => c.notNull())
        .addColumn('wave_started_at', 'bigint', (c) => c.notNull())
        .addColumn('wave_settled_at', 'bigint')
        .addColumn('halt_reason', 'text')
        .addColumn('failures_since', 'bigint', (c) => c.notNull())
        .addColumn('rollback_of', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rollouts_state_ix').on('rollouts').columns(['state']).execute();
      await db.schema
        .createTable('rollout_lockers')
        .addColumn('rollout_id', 'bigint', (c) => c.notNull())
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('wave', 'integer', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('bytes', 'bigint')
        .addColumn('offered_at', 'bigint')
        .addColumn('reported_at', 'bigint')
        .addColumn('heard_at', 'bigint')
        .addColumn('switched_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addPrimaryKeyConstraint('rollout_lockers_pk', ['rollout_id', 'locker_id'])
        .execute();
      await db.schema.createIndex('rollout_lockers_locker_ix').on('rollout_lockers').columns(['locker_id']).execute();
      await db.schema.createIndex('rollout_lockers_wave_ix').on('rollout_lockers').columns(['rollout_id', 'wave', 'state']).execute();
      await db.schema
        .createTable('locker_agents')
        .addColumn('locker_id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('updates', 'integer', (c) => c.notNull())
        .addColumn('reported_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}

/**
 * The console's audit made whole: the operator's free-text note beside the action's reason, the
 * locker and order an entry concerns (filters without parsing targets; entries written before
 * are filled from their targets), and who set each cell flag, why and when. Alerts get an
 * assignee and operators' notes.
 */
function migration0020(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Db) {
      await db.schema.alterTable('operator_audit').addColumn('note', 'text').execute();
      await db.schema.alterTable('operator_audit').addColumn('locker_id', 'integer').execute();
      await db.schema.alterTable('operator_audit').addColumn('order_id', 'text').execute();
      const rows = await sql<{ id: number; target: string }>`select id, target from operator_audit where target like 'locker:%' or target like 'order:%'`.execute(db);
      for (const r of rows.rows) {
        const locker = /^locker:(\d+)/.exec(r.target);
        if (locker) await sql`update operator_audit set locker_id = ${Number(locker[1])} where id = ${r.id}`.execute(db);
        else await sql`update operator_audit set order_id = ${r.target.slice('order:'.length)} where id = ${r.id}`.execute(db);
      }
      await db.schema.createIndex('operator_audit_operator_ix').on('operator_audit').columns(['operator', 'id']).execute();
      await db.schema.createIndex('operator_audit_locker_ix').on('operator_audit').columns(['locker_id', 'id']).execute();
      await db.schema.createIndex('operator_audit_order_ix').on('operator_audit').columns(['order_id', 'id']).execute();
      await db.schema.createIndex('operator_audit_at_ix').on('operator_audit').columns(['at']).execute();
      await db.schema
        .createTable('cell_flag_marks')
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('cell_id', 'integer', (c) => c.notNull())
        .addColumn('flag', 'text', (c) => c.notNull())
        .addColumn('set_at', 'bigint', (c) => c.notNull())
        .addColumn('set_by', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('note', 'text')
        .addPrimaryKeyConstraint('cell_flag_marks_pk', ['locker_id', 'cell_id', 'flag'])
        .execute();
      await db.schema.alterTable('locker_alerts').addColumn('assignee', 'text').execute();
      await db.schema
        .createTable('alert_notes')
        .addColumn('id', sql.raw(autoId), (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('alert_id', 'bigint', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('alert_notes_alert_ix').on('alert_notes').columns(['alert_id', 'id']).execute();
    },
  };
}

/**
 * Reports: every change of a locker's link (online/offline) is kept, so uptime over any period can
 * be worked out; a locker's presence as it stands is its first row. Order transitions get an index
 * on their time, which the period figures and trends read by.
 */
function migration0021(engine: Engine): Migration {
  const autoId = engine === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Db) {
      await db.schema
        .createTable('locker_link_history')
        .addColumn('id', sql.raw(autoId), (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('locker_id', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('online', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('locker_link_history_locker_ix').on('locker_link_history').columns(['locker_id', 'at']).execute();
      await db.schema.createIndex('locker_link_history_at_ix').on('locker_link_history').columns(['at']).execute();
      await sql`insert into locker_link_history (locker_id, at, online) select id, presence_changed_at, online from lockers where presence_changed_at is not null`.execute(db);
      await db.schema.createIndex('order_transitions_at_ix').on('order_transitions').columns(['at']).execute();
    },
  };
}

export function migrationProvider(engine: Engine): MigrationProvider {
  return {
    getMigrations() {
      return Promise.resolve({
        '0001_initial': migration0001(engine),
        '0002_cloud_api': migration0002,
        '0003_sync_send_cursor': migration0003,
        '0004_storage_clock_alerts': migration0004(engine),
        '0005_rate_limits': migration0005,
        '0006_locker_command_types': migration0006,
        '0007_order_transitions': migration0007,
        '0008_operator_console': migration0008(engine),
        '0009_trace_context': migration0009,
        '0010_idempotency_request_ids_accessible_cells': migration0010,
        '0011_locker_health': migration0011,
        '0012_sandbox': migration0012,
        '0013_occupancy_version': migration0013,
        '0018_agent_updates': migration0018(engine),
        '0020_console_audit': migration0020(engine),
        '0021_locker_link_history': migration0021(engine),
      });
    },
  };
}
