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
import { CodeKind, OrderState, ParcelState, ResultCode } from '../../../shared/src/enums.js';
import { courierWithRoute } from '../couriers/route-sheet.js';
import { DomainError, invalidRequest } from '../errors.js';
import { expireOrderNow } from '../expiry/expire.js';
import { localDate } from '../lockers/locker-time.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { holdReceiver, type Marketplace } from '../repositories/accounts.js';
import { downCursor } from '../repositories/locker-stream.js';
import { activeLockers, lockerById } from '../repositories/lockers.js';
import { listNotifications } from '../repositories/notifications.js';
import { findOrder, findOrderById, loadParcels } from '../repositories/orders.js';
import type { ServiceDeps } from '../services.js';
import { LockerHands, type ScreenState } from './locker-hands.js';
import { SANDBOX_PARTNER_ID } from './sandbox-partner.js';
import type { SandboxRig } from './rig-order.js';
import type { SandboxLockers } from './sandbox-lockers.js';

const POLL_MS = 100;

export interface SandboxDeps extends ServiceDeps {
  /** This process's sandbox lockers; undefined when it runs none (SANDBOX_LOCKERS=false, an external broker). */
  lockers: SandboxLockers | undefined;
  timeoutMs: number;
}

export interface ParcelPlace {
  barcode: string;
  state: string;
  cellId: number | null;
}

export interface OrderEffect {
  externalId: string;
  /** The order's state once the effect happened. */
  state: number;
  parcels: ParcelPlace[];
}

function sandboxError(status: 503 | 504, message: string): DomainError {
  return new DomainError(ResultCode.InternalError, message, { status });
}

/** A production key on a sandbox path: answered as if the path did not exist. */
export function requireSandbox(marketplace: Marketplace): void {
  if (!marketplace.sandbox) {
    throw new DomainError(ResultCode.InvalidRequest, invalidRequest('no such operation: the sandbox operations take only sandbox marketplace keys').message, { status: 404 });
  }
}

async function until<T>(deps: SandboxDeps, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deps.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw sandboxError(504, `the sandbox waited ${deps.timeoutMs / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function orderOf(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<OrderRow> {
  const order = await findOrder(deps.cdb.db, marketplace.id, externalId);
  if (!order) throw new DomainError(ResultCode.OrderNotFound, `Order not found: ${externalId}`);
  return order;
}

function requireState(order: OrderRow, states: readonly OrderState[], doing: string): void {
  if (!states.includes(order.state as OrderState)) {
    throw new DomainError(ResultCode.PostOperationWrongState, `order ${order.external_id} is in state ${order.state}; ${doing} needs state ${states.join(' or ')}`);
  }
}

async function rigFor(deps: SandboxDeps, lockerId: number): Promise<SandboxRig> {
  const rig = await deps.lockers?.rigOf(lockerId);
  if (!rig) throw sandboxError(503, `sandbox locker ${lockerId} is not running in this cloud process (docs/sandbox.md)`);
  return rig;
}

async function effect(deps: SandboxDeps, orderId: string): Promise<OrderEffect> {
  const order = (await findOrderById(deps.cdb.db, orderId))!;
  const parcels = await loadParcels(deps.cdb.db, orderId);
  return { externalId: order.external_id, state: order.state, parcels: parcels.map((p) => ({ barcode: p.barcode, state: p.state, cellId: p.cell_id })) };
}

/** Waits until the locker applied every command the cloud logged for it so far (grants, codes, orders). */
async function lockerCaughtUp(deps: SandboxDeps, lockerId: number): Promise<void> {
  const target = (await downCursor(deps.cdb.db, lockerId))!.nextCseq - 1;
  await until(deps, `locker ${lockerId} to apply the cloud's commands`, async () => {
    const cursor = await downCursor(deps.cdb.db, lockerId);
    return cursor && cursor.appliedCseq >= target ? true : undefined;
  });
}

/** Polls the screen until `done` says so; the screen's error, if it shows one first, ends the operation. */
async function screenUntil(deps: SandboxDeps, hands: LockerHands, what: string, done: (s: ScreenState) => boolean): Promise<ScreenState> {
  return until(deps, what, async () => {
    const s = await hands.screen();
    if (done(s)) return s;
    if (s.error && !s.busy) throw invalidRequest(`the locker's screen answered ${JSON.stringify(s.error)} while waiting for ${what}`);
    return undefined;
  });
}

function lockOf(rig: SandboxRig, cellId: number): { bus: string; board: number; lock: number } {
  const lock = rig.lockOf(cellId);
  if (!lock) throw sandboxError(503, `sandbox locker ${rig.lockerId} has no cell ${cellId} wired; it restarts with the new layout`);
  return lock;
}

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
  const locker = await lockerById(deps.cdb.db, order.locker_id);
  const today = localDate(deps.clock.now(), locker.timezone);
  const { postamatAccessCode: code } = await courierWithRoute(deps, { id: SANDBOX_PARTNER_ID }, {
    courier: { externalId: 'sandbox-courier', email: 'courier@sandbox.invalid', phone: '+70000000000' },
    route: { carNumber: 'SANDBOX', date: today, externalId: `sandbox-${deps.random.uuid()}`, postamatIds: [locker.id] },
  });
  await lockerCaughtUp(deps, locker.id);

  const hands = new LockerHands(rig);
  await hands.tap('home');
  await hands.choose(CodeKind.Courier);
  const signedIn = await hands.typeCode(CodeKind.Courier, code);
  if (signedIn.view.screen !== 'courier') throw invalidRequest(`the courier could not sign in: ${JSON.stringify(signedIn.error)}`);
  try {
    const pending = (await loadParcels(deps.cdb.db, order.id)).filter((p) => p.state === ParcelState.Pending);
    for (const parcel of pending) await loadOne(deps, hands, rig, parcel);
  } finally {
    await hands.tap('home');
  }
  await until(deps, `the cloud to record order ${externalId} loaded`, async () => {
    const now = await findOrderById(deps.cdb.db, order.id);
    return now && now.state !== OrderState.New ? true : undefined;
  });
  return effect(deps, order.id);
}

async function loadOne(deps: SandboxDeps, hands: LockerHands, rig: SandboxRig, parcel: ParcelRow): Promise<void> {
  await hands.scan(parcel.barcode);
  const open = await screenUntil(deps, hands, `a cell to open for ${parcel.barcode}`, (s) => s.view.screen === 'load_open' && s.view.barcode === parcel.barcode);
  const lock = lockOf(rig, open.view.cellId!);
  await hands.putParcel(lock);
  await hands.closeDoor(lock);
  await screenUntil(deps, hands, `the locker to record ${parcel.barcode} loaded`, (s) => s.view.screen === 'courier' && !s.busy);
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
  if (typeof body?.access_code !== 'string') throw invalidRequest(`order ${order.external_id} has no pick-up code yet`);
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
  if (opened.length === 0 && failed.length === 0) throw invalidRequest(`the customer's code was not accepted: ${JSON.stringify(typed.error)}`);
  for (const cellId of opened) {
    const lock = lockOf(rig, cellId);
    await hands.takeParcel(lock);
    await hands.closeDoor(lock);
  }
  if (opened.length > 0) {
    await screenUntil(deps, hands, 'the doors to be recorded closed', (s) => s.view.screen === 'start');
    await until(deps, `the cloud to record the pick-up of ${externalId}`, async () => {
      const parcels = await loadParcels(deps.cdb.db, order.id);
      return parcels.some((p) => p.state === ParcelState.Received) ? true : undefined;
    });
  }
  await hands.tap('home');
  return { ...(await effect(deps, order.id)), openedCells: opened, failedCells: failed };
}

/** Storage runs out now: 3 -> 6 at once; answers once the locker confirmed the revoked code and the order is Awaiting return (7). */
export async function storageRunsOut(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<OrderEffect> {
  const order = await orderOf(deps, marketplace, externalId);
  requireState(order, [OrderState.CourierLoaded], 'storage expiry');
  await rigFor(deps, order.locker_id);
  if (!(await expireOrderNow(deps, order.id, order.locker_id))) requireState((await findOrderById(deps.cdb.db, order.id))!, [OrderState.CourierLoaded], 'storage expiry');
  await until(deps, `the locker to confirm the end of storage of ${externalId}`, async () => {
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
  if (cellId === undefined || cellId === null) throw invalidRequest(`order ${externalId} holds no cell and has none reserved`);
  const rig = await rigFor(deps, order.locker_id);
  const lock = lockOf(rig, cellId);
  await new LockerHands(rig).jam(lock);
  deps.lockers!.jammed(order.locker_id, cellId, lock);
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

/** The outage ends now: the next attempt of each notification (by the retry policy) reaches the receiver. */
export async function receiverBack(deps: SandboxDeps, marketplace: Marketplace): Promise<OutageEffect> {
  await holdReceiver(deps.cdb.db, marketplace.id, null);
  return { heldUntil: null };
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
