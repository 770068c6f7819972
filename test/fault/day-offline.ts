/**
 * A working day offline (docs/testing.md, "A day offline"): one locker of the fault world with
 * orders of two marketplaces reserved and partly loaded while online, then its link cut while the
 * shared clock runs through the day in jumps: couriers load and take returns out, customers
 * collect, storage runs out at the cloud (which expects those parcels back, though the locker has
 * not heard), and a customer collects with a code the cloud has revoked meanwhile. Then the link
 * comes back; the day ends with what reconnecting made possible (a code for what was loaded
 * offline, returns the locker now knows of), every process stops, and the fault suite's checker
 * judges the whole history.
 *
 * The clock never waits: each step moves every process's clock (FaultWorld.advanceClock) and then
 * waits for the state it leads to (the storage clock's moves, the link's catch-up).
 */
import { OrderState } from '../../shared/src/enums.js';
import { seededRandom } from '../../sim/src/random.js';
import { type CheckResult, check } from './checker.js';
import { type BrokerKind, type FaultWorld, KEYS, MARKETPLACES, type LockerRig, type MarketplaceId, openFaultWorld } from './fault-world.js';
import { settle } from './fault-run.js';
import { History, type OrderModel } from './history.js';
import { until } from './nemesis.js';
import { gather } from './run-record.js';

const HOUR_MS = 3_600_000;
/** shop-a's storage: short enough that storage begun at 10:00 runs out in the afternoon. */
const SHOP_A_STORAGE_HOURS = 4;
/** Bound of each wait: it only turns a hang into a failure naming what did not happen. */
const WAIT_MS = 60_000;

/** What each step of the day said at the screen or the API, for the test to judge. */
export interface DayRecord {
  /** Every offline action at the screen, with what the screen said. */
  offline: { what: string; outcome: string }[];
  /** After reconnecting: the returns' collection and the pick-up of what was loaded offline. */
  afterwards: { what: string; outcome: string }[];
  /** The API's order detail (`state`) per external id, read once both sides agreed. */
  apiStates: Map<string, number>;
  /** The agent's order state per external id, from its store once it stopped. */
  agentStates: Map<string, number>;
  /** Distinct order-status notifications per external id, in arrival order. */
  statuses: Map<string, ToldStatus[]>;
  /** PUBLISH packets of the link the relay delivered twice, and held back to be overtaken, after the reconnect. */
  chaos: { duplicated: number; reordered: number };
  /** The notification calls the receiver got, and how many distinct deliveries (X-Notification-Id). */
  calls: number;
  deliveries: number;
  /** Per locker: the agent's last dseq, and the dseqs the cloud's inbox holds. */
  outboxLength: number;
  inboxDseqs: number[];
  result: CheckResult;
  /** Deaths of a process no crash point explains (none are armed in this run). */
  unexpected: string[];
  orders: DayOrders;
}

/** One order-status as the marketplace got it: the parcel, the state, and the locker-time hour of `dt`. */
export interface ToldStatus {
  barcode: string;
  event: number;
  hour: string;
}

/** The day's orders by their role (shop-a stores for 4 hours, shop-b for 72). */
export interface DayOrders {
  /** shop-b, loaded online, collected offline. */
  collected: OrderModel;
  /** shop-b, two parcels loaded online, collected offline. */
  collectedPair: OrderModel;
  /** shop-b, loaded online and its position cancelled online: taken back by a courier offline. */
  cancelled: OrderModel;
  /** shop-a, loaded online, never collected: storage runs out offline, a courier takes it back after. */
  expired: OrderModel;
  /** shop-a, loaded online, collected offline before its storage ran out (the cloud hears it later). */
  collectedEarly: OrderModel;
  /** shop-a, loaded online, collected offline after its storage ran out at the cloud. */
  collectedLate: OrderModel;
  /** shop-a, reserved online, loaded offline, collected after the reconnect with the code it gets then. */
  loadedOffline: OrderModel;
}

async function cloudRow(world: FaultWorld, rig: LockerRig) {
  return world.tdb.db.selectFrom('lockers').select(['online', 'next_cseq', 'applied_cseq', 'acked_dseq']).where('id', '=', rig.id).executeTakeFirstOrThrow();
}

async function cloudState(world: FaultWorld, o: OrderModel): Promise<number> {
  const row = await world.tdb.db.selectFrom('orders').select('state').where('marketplace_id', '=', o.marketplace).where('external_id', '=', o.externalId).executeTakeFirstOrThrow();
  return row.state;
}

/** Until the locker has applied every command and the cloud acked every event written so far. */
async function caughtUp(world: FaultWorld, rig: LockerRig): Promise<void> {
  const target = (await cloudRow(world, rig)).next_cseq - 1;
  await until(async () => (await cloudRow(world, rig)).applied_cseq >= target, `locker ${rig.id} to apply command ${target}`, WAIT_MS);
}

/** The order's state through the marketplace API (order/detail, asked with the courier's code). */
async function apiState(world: FaultWorld, o: OrderModel, courierCode: string): Promise<number> {
  const res = await fetch(`${world.cloud.url}/api/v4/auth/delivery/order/detail`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Service-Api-Key': KEYS[MARKETPLACES[o.marketplace]] },
    body: JSON.stringify({ barcode: o.barcodes[0], postamatAccessCode: courierCode }),
  });
  const body = (await res.json()) as { state?: number; resultCode?: number };
  if (res.status !== 200 || body.state === undefined) throw new Error(`order/detail of ${o.externalId}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.state;
}

function statusesOf(world: FaultWorld): Map<string, ToldStatus[]> {
  const seen = new Set<string>();
  const out = new Map<string, ToldStatus[]>();
  for (const c of world.receiver.calls) {
    const uid = c.headers['x-notification-id'] as string | undefined;
    if (c.path !== '/order-status' || !uid || seen.has(uid)) continue;
    seen.add(uid);
    const b = c.body as { id: string; barcode: string; event_id: string; dt: string };
    // dt is ISO 8601 with the locker's offset: characters 11-12 are its local hour.
    out.set(b.id, [...(out.get(b.id) ?? []), { barcode: b.barcode, event: Number(b.event_id), hour: b.dt.slice(11, 13) }]);
  }
  return out;
}

export async function runDayOffline(broker: BrokerKind): Promise<DayRecord> {
  const receiverRandom = seededRandom(3);
  const world = await openFaultWorld({
    broker,
    lockers: 1,
    random: seededRandom(1),
    // Switched on for the reconnect: the day's backlog both ways, some of it twice or overtaken.
    chaos: { duplicate: 0.2, reorder: 0.2, maxHoldMs: 300 },
    // Some answers lost and some refusals, as in the fault suite: the cloud delivers again.
    receiverBehaviour: () => {
      const r = receiverRandom();
      return r < 0.03 ? 'hang' : r < 0.1 ? 500 : 200;
    },
    storagePeriodHours: { 'shop-a': SHOP_A_STORAGE_HOURS },
  });
  let failed = true;
  try {
    const record = await day(world);
    failed = false;
    return record;
  } finally {
    if (failed) {
      for (const c of world.children()) console.log(`--- ${c.name} (${c.lives} lives), last log lines:\n${c.logTail(15)}`);
      console.log(`run files kept in ${world.dir}`);
    }
    await world.close({ keepDir: failed });
  }
}

async function day(world: FaultWorld): Promise<DayRecord> {
  const rig = world.lockers[0]!;
  const h = new History(world, seededRandom(2));
  const id = rig.id;
  const offline: DayRecord['offline'] = [];
  const afterwards: DayRecord['afterwards'] = [];
  const note = (list: DayRecord['offline'], what: string, outcome: string) => list.push({ what, outcome });

  // --- 10:00, online: a route sheet, orders of both marketplaces reserved, most of them loaded.
  await h.createRoute();
  const courier = h.courierCodes[0];
  if (!courier) throw new Error('no route sheet');
  const make = async (parcels: number, marketplace: MarketplaceId) => {
    const o = await h.createOrder(id, parcels, true, marketplace);
    if (!o) throw new Error(`the cloud refused an order of ${marketplace}`);
    return o;
  };
  const orders: DayOrders = {
    collected: await make(1, 'shop-b'),
    collectedPair: await make(2, 'shop-b'),
    cancelled: await make(1, 'shop-b'),
    expired: await make(1, 'shop-a'),
    collectedEarly: await make(1, 'shop-a'),
    collectedLate: await make(1, 'shop-a'),
    loadedOffline: await make(1, 'shop-a'),
  };
  const { collected, collectedPair, cancelled, expired, collectedEarly, collectedLate, loadedOffline } = orders;
  const loadedOnline = [collected, collectedPair, cancelled, expired, collectedEarly, collectedLate];
  await caughtUp(world, rig);
  const load = await h.courierVisit(id, loadedOnline.flatMap((o) => o.barcodes), false, courier);
  if (load.loads.some((l) => l !== 'ok')) throw new Error(`online loads: ${load.loads.join(', ')}`);
  for (const o of loadedOnline) await until(() => h.codeOf(o), `the pick-up code of ${o.externalId}`, WAIT_MS);
  if ((await h.cancel(cancelled, cancelled.barcodes[0]!)) !== 'ok') throw new Error(`cancelling ${cancelled.externalId}`);
  // The locker confirms the revocation: the cloud expects the parcel back (7), and the locker knows it.
  await until(async () => (await cloudState(world, cancelled)) === OrderState.AwaitingReturn, `${cancelled.externalId} in 7`, WAIT_MS);
  await caughtUp(world, rig);

  // --- The link goes; the cloud sees the locker offline.
  rig.proxy.block();
  rig.proxy.cut();
  await until(async () => (await cloudRow(world, rig)).online === 0, `the cloud to see locker ${id} offline`, WAIT_MS);

  // 11:00: a courier loads what was reserved and takes out the return the locker knows of.
  await world.advanceClock(HOUR_MS);
  const morning = await h.courierVisit(id, loadedOffline.barcodes, true, courier);
  note(offline, `11:00 load ${loadedOffline.barcodes[0]}`, morning.loads[0] ?? 'not signed in');
  note(offline, '11:00 collect returns', morning.returns);

  // 12:00: customers collect with the codes they got while the locker was online.
  await world.advanceClock(HOUR_MS);
  for (const o of [collected, collectedPair, collectedEarly]) note(offline, `12:00 pick up ${o.externalId}`, await h.customerVisit(o));

  // 14:30: shop-a's storage begun at 10:00 ran out at 14:00; the cloud revokes those codes (6) and,
  // with no locker to confirm, expects the parcels back after its confirmation timeout (7). It
  // cannot know that one of them was collected at 12:00.
  await world.advanceClock(2.5 * HOUR_MS);
  const runOut = [expired, collectedEarly, collectedLate];
  for (const o of runOut) await until(async () => (await cloudState(world, o)) === OrderState.ReturnInitiated, `${o.externalId} in 6`, WAIT_MS);
  await world.advanceClock(20 * 60_000);
  for (const o of runOut) await until(async () => (await cloudState(world, o)) === OrderState.AwaitingReturn, `${o.externalId} in 7`, WAIT_MS);

  // 16:00: a power cut; the locker starts again, still offline, from its store and on the day's
  // clock. A customer comes late; the locker has not heard of the revocation and serves the code.
  await world.advanceClock(70 * 60_000);
  await rig.agent.stop();
  await rig.agent.start();
  note(offline, '16:00 restart', (await h.kiosk(id).state()).view.screen === 'start' ? 'ok' : 'screen not at start');
  note(offline, `16:00 pick up ${collectedLate.externalId}`, await h.customerVisit(collectedLate));

  // 18:00: the link is back, duplicating and reordering PUBLISH packets both ways.
  await world.advanceClock(2 * HOUR_MS);
  rig.chaos.enabled = true;
  rig.proxy.unblock();
  await settle(world);

  // What the reconnect made possible: a code for what was loaded offline, and the expired parcel
  // known at the locker as a return.
  await until(() => h.codeOf(loadedOffline), `the pick-up code of ${loadedOffline.externalId}`, WAIT_MS);
  note(afterwards, `pick up ${loadedOffline.externalId}`, await h.customerVisit(loadedOffline));
  const evening = await h.courierVisit(id, [], true, courier);
  note(afterwards, 'collect returns', evening.returns);
  await settle(world);
  rig.chaos.enabled = false;
  const { duplicated, reordered } = rig.chaos.counts;
  const chaos = { duplicated: duplicated.up + duplicated.down, reordered: reordered.up + reordered.down };

  const apiStates = new Map<string, number>();
  for (const o of Object.values(orders)) apiStates.set(o.externalId, await apiState(world, o, courier));
  for (const c of world.children().reverse()) await c.stop();
  const run = await gather(world, h);
  const agent = run.lockers[0]!.agent;
  const uids = new Set(world.receiver.calls.map((c) => c.headers['x-notification-id']));
  return {
    chaos,
    unexpected: world.children().flatMap((c) => c.unexpected),
    offline,
    afterwards,
    apiStates,
    agentStates: new Map(agent.orders.map((o) => [o.intent.externalId, o.intent.state])),
    statuses: statusesOf(world),
    calls: world.receiver.calls.length,
    deliveries: uids.size,
    outboxLength: agent.outbox.length,
    inboxDseqs: run.lockers[0]!.cloud.inbox.map((r) => r.dseq),
    result: check(run),
    orders,
  };
}
