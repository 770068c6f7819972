/**
 * A real cloud (startCloud on a throwaway database, HTTP on a free port) with the notification
 * dispatcher and the storage clock as its parts, a manual clock, the test fleet whose marketplaces
 * send to a real HTTPS receiver, and `fact()` to apply a locker event the way the locker link
 * does: in a locker transaction through applyLockerEvent, then a poke of the outbox signals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloud, type RunningCloud } from '../../../cloud/src/cloud.js';
import { loadConfig } from '../../../cloud/src/config.js';
import type { Engine } from '../../../cloud/src/db/database.js';
import { lockerTransaction } from '../../../cloud/src/db/transaction.js';
import { EventBatch } from '../../../cloud/src/sync/up-stream.js';
import { createStorageClock, type StorageClock } from '../../../cloud/src/expiry/storage-clock.js';
import { loadStorageClockSettings } from '../../../cloud/src/expiry/settings.js';
import type { FleetInput } from '../../../cloud/src/fleet/fleet-schema.js';
import { createLockerEventApplier } from '../../../cloud/src/locker-events/apply-locker-event.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings, type NotifySettings } from '../../../cloud/src/notify/settings.js';
import { findOrder } from '../../../cloud/src/repositories/orders.js';
import type { EventBody } from '../../../shared/src/protocol.js';
import { type TestDatabase, openTestDatabase } from '../../helpers/cloud-db.js';
import { KEYS, orderBody, testFleet } from '../../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../../cloud/helpers/manual-clock.js';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { makeTestPki, type TestPki } from '../../helpers/test-ca.js';
import { startReceiver, type Behaviour, type TestReceiver } from '../../helpers/test-receiver.js';

export { KEYS, orderBody };

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
}

export interface NotifyCloud {
  cloud: RunningCloud;
  db: TestDatabase;
  clock: ManualClock;
  dispatcher: NotificationDispatcher;
  storageClock: StorageClock;
  call(method: string, path: string, opts?: { key?: string; operatorKey?: string; body?: unknown }): Promise<Answer>;
  /** Applies one locker fact now (locker time = the manual clock). */
  fact(lockerId: number, body: EventBody): Promise<void>;
  /** The platform id of an order of shop-a (or the given marketplace). */
  orderId(externalId: string, marketplaceId?: string): Promise<string>;
  stop(): Promise<void>;
}

/** shop-a sends single objects, shop-b one-element arrays signed with an HMAC secret. */
export const SHOP_B_SECRET = 'shop-b-hmac-secret-0123456789';

export function notifyFleet(receiver: TestReceiver, pki: TestPki, edit?: (f: FleetInput) => void): FleetInput {
  const fleet = testFleet();
  const to = { url: receiver.url, login: receiver.login, password: receiver.password, caFile: pki.caFile };
  for (const m of fleet.marketplaces) {
    if (m.id === 'shop-a') m.receiver = { ...to, bodyForm: 'object' };
    if (m.id === 'shop-b') m.receiver = { ...to, bodyForm: 'array', hmacSecret: SHOP_B_SECRET };
  }
  edit?.(fleet);
  return fleet;
}

/** A cron expression that does not fire during a test run: the tests tick the clock themselves. */
export const NEVER = '0 0 1 1 *';

export async function startNotifyCloud(
  engine: Engine,
  opts: { fleet: FleetInput; now?: string | undefined; notify?: Partial<NotifySettings> | undefined },
): Promise<NotifyCloud> {
  const db = await openTestDatabase(engine);
  const dir = mkdtempSync(join(tmpdir(), 'notify-fleet-'));
  const fleetFile = join(dir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(opts.fleet));
  const clock = new ManualClock(opts.now ?? '2030-03-04T09:00:00Z');
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile, logLevel: 'silent' });
  let dispatcher: NotificationDispatcher | undefined;
  let storageClock: StorageClock | undefined;
  let cloud: RunningCloud;
  try {
    cloud = await startCloud(config, {
      database: db,
      clock,
      parts: [
        (deps) => (dispatcher = createNotificationDispatcher(deps, loadNotifySettings({}, { pollSeconds: 1, ...opts.notify }))),
        (deps) => (storageClock = createStorageClock(deps, loadStorageClockSettings({}, { cron: NEVER }))),
      ],
    });
  } catch (err) {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const applyLockerEvent = createLockerEventApplier(cloud.deps);
  let dseq = 0;

  return {
    cloud,
    db,
    clock,
    dispatcher: dispatcher!,
    storageClock: storageClock!,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = {};
      if (o.key) headers['X-Service-Api-Key'] = o.key;
      if (o.operatorKey) headers['X-Operator-Api-Key'] = o.operatorKey;
      if (o.body !== undefined) headers['Content-Type'] = 'application/json';
      const res = await fetch(`${cloud.url}${path}`, { method, headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body };
    },
    async fact(lockerId, body) {
      const event = { ...body, dseq: ++dseq, at: clock.now() };
      const effect = await lockerTransaction(db, [lockerId], async (tx) => {
        const batch = new EventBatch();
        const applied = await applyLockerEvent(tx, lockerId, event, batch);
        await batch.end(tx);
        return applied;
      });
      cloud.deps.signals.notificationsRecorded();
      cloud.deps.signals.commandsRecorded([lockerId, ...(effect?.commandsFor ?? [])]);
    },
    async orderId(externalId, marketplaceId = 'shop-a') {
      const order = await findOrder(db.db, marketplaceId, externalId);
      if (!order) throw new Error(`no order ${externalId}`);
      return order.id;
    },
    async stop() {
      await cloud.stop();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface NotifyCloudHandle {
  readonly nc: NotifyCloud;
  readonly receiver: TestReceiver;
  readonly pki: TestPki;
}

/**
 * Registers the hooks of a suite that runs against a fresh cloud and receiver per test: a CA made
 * once per suite, a receiver (optionally misbehaving from the start) and a cloud sending to it.
 */
export function useNotifyCloud(
  engine: Engine,
  opts: { now?: string; notify?: Partial<NotifySettings>; editFleet?: (f: FleetInput) => void; behaviour?: Behaviour } = {},
): NotifyCloudHandle {
  let pki: TestPki | undefined;
  let receiver: TestReceiver | undefined;
  let nc: NotifyCloud | undefined;
  beforeAll(async () => {
    pki = await makeTestPki();
  });
  beforeEach(async () => {
    receiver = await startReceiver(pki!);
    if (opts.behaviour) receiver.behaviour = opts.behaviour;
    nc = await startNotifyCloud(engine, { fleet: notifyFleet(receiver, pki!, opts.editFleet), now: opts.now, notify: opts.notify });
  });
  afterEach(async () => {
    await nc?.stop();
    await receiver?.down();
  });
  return {
    get nc() {
      return nc!;
    },
    get receiver() {
      return receiver!;
    },
    get pki() {
      return pki!;
    },
  };
}
