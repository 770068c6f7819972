/**
 * What every sandbox play shares: its dependencies, the answers' shapes, the waits for an effect
 * (each play answers once its effect happened, or 504 after SANDBOX_TIMEOUT_SECONDS saying what
 * it waited for), the locker it plays at, and the sandbox courier signing in at a locker's screen.
 */
import { CellFlag, CodeKind, type OrderState, ResultCode } from '../../../shared/src/enums.js';
import { courierWithRoute } from '../couriers/route-sheet.js';
import type { OrderRow } from '../db/schema.js';
import { DomainError, codeError, invalidRequest, type Bilingual } from '../errors.js';
import { localDate } from '../lockers/locker-time.js';
import type { Marketplace } from '../repositories/accounts.js';
import { downCursor } from '../repositories/locker-stream.js';
import { findCell, type Locker } from '../repositories/lockers.js';
import { findOrder, findOrderById, loadParcels } from '../repositories/orders.js';
import type { ServiceDeps } from '../services.js';
import { LockerHands, type ScreenState } from './locker-hands.js';
import type { SandboxRig } from './rig-order.js';
import { sandboxPartnerId } from './sandbox-partner.js';
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

export function sandboxError(status: 503 | 504, detail: Bilingual): DomainError {
  return codeError(ResultCode.InternalError, detail, { status });
}

/** A production key on a sandbox path: answered as if the path did not exist. */
export function requireSandbox(marketplace: Marketplace): void {
  if (!marketplace.sandbox) {
    throw invalidRequest(
      { ru: 'нет такой операции: операции песочницы принимают только ключи маркетплейса песочницы', en: 'no such operation: the sandbox operations take only sandbox marketplace keys' },
      { status: 404 },
    );
  }
}

export async function until<T>(deps: SandboxDeps, what: Bilingual, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deps.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw sandboxError(504, { ru: `песочница ждала ${deps.timeoutMs / 1000} с: ${what.ru}`, en: `the sandbox waited ${deps.timeoutMs / 1000} s for ${what.en}` });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export async function orderOf(deps: SandboxDeps, marketplace: Marketplace, externalId: string): Promise<OrderRow> {
  const order = await findOrder(deps.cdb.db, marketplace.id, externalId);
  if (!order) throw new DomainError(ResultCode.OrderNotFound, `Order not found: ${externalId}`);
  return order;
}

export function requireState(order: OrderRow, states: readonly OrderState[], doing: string): void {
  if (!states.includes(order.state as OrderState)) {
    throw new DomainError(ResultCode.PostOperationWrongState, `order ${order.external_id} is in state ${order.state}; ${doing} needs state ${states.join(' or ')}`);
  }
}

export async function rigFor(deps: SandboxDeps, lockerId: number): Promise<SandboxRig> {
  const rig = await deps.lockers?.rigOf(lockerId);
  if (!rig) throw sandboxError(503, { ru: `постамат песочницы ${lockerId} не работает в этом процессе облака (docs/sandbox.md)`, en: `sandbox locker ${lockerId} is not running in this cloud process (docs/sandbox.md)` });
  return rig;
}

export async function effect(deps: SandboxDeps, orderId: string): Promise<OrderEffect> {
  const order = (await findOrderById(deps.cdb.db, orderId))!;
  const parcels = await loadParcels(deps.cdb.db, orderId);
  return { externalId: order.external_id, state: order.state, parcels: parcels.map((p) => ({ barcode: p.barcode, state: p.state, cellId: p.cell_id })) };
}

/** Waits until the locker applied every command the cloud logged for it so far (grants, codes, orders). */
export async function lockerCaughtUp(deps: SandboxDeps, lockerId: number): Promise<void> {
  const target = (await downCursor(deps.cdb.db, lockerId))!.nextCseq - 1;
  await until(deps, { ru: `постамат ${lockerId} применит команды облака`, en: `locker ${lockerId} to apply the cloud's commands` }, async () => {
    const cursor = await downCursor(deps.cdb.db, lockerId);
    return cursor && cursor.appliedCseq >= target ? true : undefined;
  });
}

/** Polls the screen until `done` says so; the screen's error, if it shows one first, ends the operation. */
export async function screenUntil(deps: SandboxDeps, hands: LockerHands, what: Bilingual, done: (s: ScreenState) => boolean): Promise<ScreenState> {
  return until(deps, what, async () => {
    const s = await hands.screen();
    if (done(s)) return s;
    if (s.error && !s.busy) throw invalidRequest({
        ru: `экран постамата ответил ${JSON.stringify(s.error)}, ожидание: ${what.ru}`,
        en: `the locker's screen answered ${JSON.stringify(s.error)} while waiting for ${what.en}`,
      });
    return undefined;
  });
}

export function lockOf(rig: SandboxRig, cellId: number): { bus: string; board: number; lock: number } {
  const lock = rig.lockOf(cellId);
  if (!lock) throw sandboxError(503, { ru: `у постамата песочницы ${rig.lockerId} не подключена ячейка ${cellId}; он перезапускается с новой раскладкой`, en: `sandbox locker ${rig.lockerId} has no cell ${cellId} wired; it restarts with the new layout` });
  return lock;
}

/**
 * The marketplace's sandbox courier signs in at the locker's screen: a route sheet of its sandbox
 * courier company (sandbox-partner.ts) gives a code for today, which the locker has applied before
 * the courier types it. Answers the hands on the courier menu; the caller goes `home` when done.
 */
export async function courierSignsIn(deps: SandboxDeps, marketplace: Marketplace, rig: SandboxRig, locker: Locker): Promise<LockerHands> {
  const today = localDate(deps.clock.now(), locker.timezone);
  const { postamatAccessCode: code } = await courierWithRoute(deps, { id: sandboxPartnerId(marketplace.id) }, {
    courier: { externalId: 'sandbox-courier', email: 'courier@sandbox.invalid', phone: '+70000000000' },
    route: { carNumber: 'SANDBOX', date: today, externalId: `sandbox-${deps.random.uuid()}`, postamatIds: [locker.id] },
  });
  await lockerCaughtUp(deps, locker.id);
  const hands = new LockerHands(rig);
  await hands.tap('home');
  await hands.choose(CodeKind.Courier);
  const signedIn = await hands.typeCode(CodeKind.Courier, code);
  if (signedIn.view.screen !== 'courier') throw invalidRequest({ ru: `курьер не смог войти: ${JSON.stringify(signedIn.error)}`, en: `the courier could not sign in: ${JSON.stringify(signedIn.error)}` });
  return hands;
}

/**
 * Of these cells, those whose lock the sandbox jammed and the locker has since tried to open (the
 * simulator counted pulses) have run the door-fault path: the lock is repaired and the `faulty`
 * flag the locker raised is cleared (sandbox-lockers.ts), before the play answers, so no later
 * open can meet the old jam. A jam the locker has not tried stays armed.
 */
export async function repairExercisedJams(deps: SandboxDeps, rig: SandboxRig, cellIds: readonly number[]): Promise<void> {
  const hands = new LockerHands(rig);
  for (const cellId of new Set(cellIds)) {
    const jam = deps.lockers?.armedJam(rig.lockerId, cellId);
    if (!jam || (await hands.pulses(jam.lock)) === jam.pulses) continue;
    // The flag travels with the locker's facts; the periodic check may repair it first (then it is no longer armed).
    await until(deps, { ru: `постамат ${rig.lockerId} пометит ячейку ${cellId} faulty`, en: `locker ${rig.lockerId} to flag cell ${cellId} faulty` }, async () =>
      !deps.lockers!.armedJam(rig.lockerId, cellId) || (await findCell(deps.cdb.db, rig.lockerId, cellId))?.flags.includes(CellFlag.Faulty) ? true : undefined,
    );
    await deps.lockers!.repair(rig.lockerId, cellId);
  }
}
