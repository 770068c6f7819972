/**
 * The sandbox operations: a sandbox marketplace plays the other side of its own orders, and each
 * play drives the real path. The courier and the customer use the locker's screen and the
 * simulator's hardware (locker-hands.ts); what they do reaches the cloud as the agent's facts over
 * MQTT and goes through the lifecycle and the notifications like any locker's. The storage clock
 * expires one order now through the clock's own lifecycle row; a jammed lock is the simulator's
 * fault; a receiver outage holds the marketplace's deliveries in the dispatcher.
 *
 * Each operation answers once its effect happened (the cloud recorded the load, the pick-up, the
 * return state; the fault is armed; the hold is stored), or 504 after SANDBOX_TIMEOUT_SECONDS
 * with where it got to. docs/sandbox.md.
 */
import { CodeKind, OrderState, ParcelState } from '../../../shared/src/enums.js';
import { invalidRequest } from '../errors.js';
import { expireOrderNow } from '../expiry/expire.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { holdReceiver, type Marketplace } from '../repositories/accounts.js';
import { activeLockers, lockerById } from '../repositories/lockers.js';
import { headsUnattemptedSince, listNotifications, makeMarketplaceDue, undeliveredCount } from '../repositories/notifications.js';
import { transaction } from '../db/transaction.js';
import { findOrderById, loadParcels } from '../repositories/orders.js';
import { LockerHands } from './locker-hands.js';
import {
  courierSignsIn,
  effect,
  lockerCaughtUp,
  lockOf,
  type OrderEffect,
  orderOf,
  requireState,
  repairExercisedJams,
  rigFor,
  type SandboxDeps,
  screenUntil,
  until,
} from './play.js';
import type { SandboxRig } from './rig-order.js';

export type { OrderEffect, SandboxDeps } from './play.js';
export { requireSandbox } from './play.js';

/**
 * A courier loads the order: a route sheet of the sandbox's courier company gives a code for
 * today; at the locker's screen the courier signs in with it, scans each parcel not yet loaded
 * (the simulated scanner, or typed where the locker has none), puts it into the cell that opens and
 * pushes the door shut. Answers once the cloud has the order Courier loaded.
 */
export async function courierLoads(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<OrderEffect> {
  const order = await orderOf(deps, marketplace, externalId);
  requireState(order, [OrderState.New], 'a courier load');
  const rig = await rigFor(deps, order.locker_id);
  const hands = await courierSignsIn(deps, marketplace, rig, await lockerById(deps.cdb.db, order.locker_id));
  const pending = (await loadParcels(deps.cdb.db, order.id)).filter((p) => p.state === ParcelState.Pending);
  try {
    for (const parcel of pending) await loadOne(deps, hands, rig, parcel);
  } finally {
    await hands.tap('home');
  }
  await until(deps, { ru: `облако запишет заказ ${externalId} заложенным`, en: `the cloud to record order ${externalId} loaded` }, async () => {
    const now = await findOrderById(deps.cdb.db, order.id);
    return now && now.state !== OrderState.New ? true : undefined;
  });
  // A reserved cell the sandbox jammed was tried first and failed.
  await repairExercisedJams(deps, rig, pending.flatMap((p) => (p.cell_id === null ? [] : [p.cell_id])));
  return effect(deps, order.id);
}

async function loadOne(deps: SandboxDeps, hands: LockerHands, rig: SandboxRig, parcel: ParcelRow): Promise<void> {
  await hands.scan(parcel.barcode);
  const open = await screenUntil(deps, hands, { ru: `откроется ячейка для ${parcel.barcode}`, en: `a cell to open for ${parcel.barcode}` }, (s) => s.view.screen === 'load_open' && s.view.barcode === parcel.barcode);
  const lock = lockOf(rig, open.view.cellId!);
  await hands.putParcel(lock);
  await hands.closeDoor(lock);
  await screenUntil(deps, hands, { ru: `постамат запишет ${parcel.barcode} заложенным`, en: `the locker to record ${parcel.barcode} loaded` }, (s) => s.view.screen === 'courier' && !s.busy);
}

export interface PickupEffect extends OrderEffect {
  /** Cells that opened for the customer, and those whose doors did not (a jammed lock). */
  openedCells: number[];
  failedCells: number[];
}

/** The customer's pick-up code: the one given, else the one the cloud sent the marketplace (`user-access-code`). */
async function pickupCode(deps: SandboxDeps, marketplace: Marketplace, order: OrderRow, given: string | undefined): Promise<string> {
  if (given) return given;
  const sent = await listNotifications(deps.cdb.db, { marketplaceId: marketplace.id, orderRef: order.id, limit: 100 });
  const body = sent.find((n) => n.kind === 'user-access-code')?.body as { access_code?: unknown } | undefined;
  if (typeof body?.access_code !== 'string') throw invalidRequest({ ru: `у заказа ${order.external_id} ещё нет кода получения`, en: `order ${order.external_id} has no pick-up code yet` });
  return body.access_code;
}

/**
 * The customer takes the order: types the pick-up code on the screen, takes the parcels out of
 * every cell that opens and pushes the doors shut. Answers once the cloud has the order Client
 * received; when a door did not open (a jammed lock) it answers once the screen said so, with the
 * order where it is.
 */
export async function customerTakes(deps: SandboxDeps, marketplace: Marketplace, externalId: string, accessCode?: string): Promise<PickupEffect> {
  const order = await orderOf(deps, marketplace, externalId);
  requireState(order, [OrderState.CourierLoaded], 'a pick-up');
  const rig = await rigFor(deps, order.locker_id);
  const code = await pickupCode(deps, marketplace, order, accessCode);
  await lockerCaughtUp(deps, order.locker_id);

  const hands = new LockerHands(rig);
  await hands.tap('home');
  await hands.choose(CodeKind.Customer);
  const typed = await hands.typeCode(CodeKind.Customer, code);
  const opened = typed.view.screen === 'take_open' ? (typed.view.cells ?? []) : [];
  const failed = typed.view.screen === 'take_open' ? (typed.view.failedCells ?? []) : typed.error?.code === 'door_fault' ? ((typed.error.cells as number[] | undefined) ?? []) : [];
  if (opened.length === 0 && failed.length === 0) throw invalidRequest({ ru: `код клиента не принят: ${JSON.stringify(typed.error)}`, en: `the customer's code was not accepted: ${JSON.stringify(typed.error)}` });
  for (const cellId of opened) {
    const lock = lockOf(rig, cellId);
    await hands.takeParcel(lock);
    await hands.closeDoor(lock);
  }
  if (opened.length > 0) {
    await screenUntil(deps, hands, { ru: 'двери будут записаны закрытыми', en: 'the doors to be recorded closed' }, (s) => s.view.screen === 'start');
    await until(deps, { ru: `облако запишет получение ${externalId}`, en: `the cloud to record the pick-up of ${externalId}` }, async () => {
      const parcels = await loadParcels(deps.cdb.db, order.id);
      return parcels.some((p) => p.state === ParcelState.Received) ? true : undefined;
    });
  }
  await hands.tap('home');
  await repairExercisedJams(deps, rig, failed);
  return { ...(await effect(deps, order.id)), openedCells: opened, failedCells: failed };
}

/** Storage runs out now: 3 -> 6 at once; answers once the locker confirmed the revoked code and the order is Awaiting return (7). */
export async function storageRunsOut(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<OrderEffect> {
  const order = await orderOf(deps, marketplace, externalId);
  requireState(order, [OrderState.CourierLoaded], 'storage expiry');
  await rigFor(deps, order.locker_id);
  if (!(await expireOrderNow(deps, order.id, order.locker_id))) requireState((await findOrderById(deps.cdb.db, order.id))!, [OrderState.CourierLoaded], 'storage expiry');
  await until(deps, { ru: `постамат подтвердит конец хранения ${externalId}`, en: `the locker to confirm the end of storage of ${externalId}` }, async () => {
    const now = await findOrderById(deps.cdb.db, order.id);
    return now && now.state !== OrderState.ReturnInitiated ? true : undefined;
  });
  return effect(deps, order.id);
}

export interface JamEffect {
  externalId: string;
  /** The cell whose lock is now jammed: the one holding the order's parcel, else the one reserved for it. */
  cellId: number;
}

/** The next open of the order's cell fails: the simulator's lock of that cell is jammed (until the locker flags the cell faulty). */
export async function doorJams(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<JamEffect> {
  const order = await orderOf(deps, marketplace, externalId);
  const parcels = await loadParcels(deps.cdb.db, order.id);
  const held = parcels.find((p) => (p.state === ParcelState.Loaded || p.state === ParcelState.AwaitingReturn) && p.cell_id !== null);
  const reserved = parcels.find((p) => p.state === ParcelState.Pending && p.cell_id !== null);
  const cellId = (held ?? reserved)?.cell_id;
  if (cellId === undefined || cellId === null) throw invalidRequest({ ru: `у заказа ${externalId} нет ни занятой, ни зарезервированной ячейки`, en: `order ${externalId} holds no cell and has none reserved` });
  const rig = await rigFor(deps, order.locker_id);
  const lock = lockOf(rig, cellId);
  const hands = new LockerHands(rig);
  const pulses = await hands.pulses(lock);
  await hands.jam(lock);
  deps.lockers!.jammed(order.locker_id, cellId, { lock, marketplaceId: marketplace.id, pulses });
  return { externalId, cellId };
}

export interface OutageEffect {
  /** Until when deliveries to the marketplace's receiver fail as if it were down (ISO 8601, UTC); null: not held. */
  heldUntil: string | null;
}

/** The marketplace's receiver is down for `seconds`: every attempt until then fails unsent, and the retry policy goes on. */
export async function receiverDown(deps: SandboxDeps, marketplace: Marketplace, seconds: number): Promise<OutageEffect> {
  const until = deps.clock.now() + seconds * 1000;
  await holdReceiver(deps.cdb.db, marketplace.id, until);
  return { heldUntil: new Date(until).toISOString() };
}

/**
 * The outage ends now, and what it held back is due now (not at its next retry by the policy):
 * the dispatcher is woken and sends each order's notifications in order.
 */
export async function receiverBack(deps: SandboxDeps, marketplace: Marketplace): Promise<OutageEffect> {
  await transaction(deps.cdb, async (tx) => {
    await holdReceiver(tx, marketplace.id, null);
    await makeMarketplaceDue(tx, deps.clock.now(), marketplace.id);
  });
  deps.signals.notificationsRecorded();
  return { heldUntil: null };
}

export interface DeliveryEffect {
  /** Notifications of the marketplace still undelivered after this round (the receiver refused, or is held down). */
  undelivered: number;
}

/**
 * Deliver now: every undelivered notification of the marketplace is due at once; answers once
 * each order's next notification has had its attempt (delivered ones make the next due, so a
 * receiver that answers gets everything), with how many are still undelivered.
 */
export async function deliverNow(deps: SandboxDeps, marketplace: Marketplace): Promise<DeliveryEffect> {
  const since = deps.clock.now();
  await makeMarketplaceDue(deps.cdb.db, since, marketplace.id);
  deps.signals.notificationsRecorded();
  await until(deps, { ru: 'будет сделана попытка отправить следующее уведомление каждого заказа', en: "every order's next notification to be attempted" }, async () =>
    (await headsUnattemptedSince(deps.cdb.db, marketplace.id, since)) === 0 ? true : undefined,
  );
  return { undelivered: await undeliveredCount(deps.cdb.db, marketplace.id) };
}

export interface SandboxLockerInfo {
  postamatId: number;
  name: string;
  running: boolean;
  screenUrl: string | null;
  simUrl: string | null;
}

/** The sandbox lockers and whether this process runs them (their screen and simulator, to watch); waits for lockers still starting. */
export async function sandboxLockerList(deps: SandboxDeps): Promise<SandboxLockerInfo[]> {
  const out: SandboxLockerInfo[] = [];
  for (const l of await activeLockers(deps.cdb.db, { sandbox: true })) {
    const rig = await deps.lockers?.rigOf(l.id);
    out.push({ postamatId: l.id, name: l.name, running: !!rig, screenUrl: rig?.screenUrl ?? null, simUrl: rig?.simUrl ?? null });
  }
  return out;
}
