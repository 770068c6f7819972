/**
 * The faults of a run, in Jepsen's word the nemesis. Three lockers, three roles:
 * - A: the long cut (minutes) while couriers load and customers pick up there, with a position
 *   cancelled at the cloud meanwhile and its parcel loaded at the locker anyway;
 * - B: the agent killed between its commit and its publish (events, and command acks), and a
 *   short cut;
 * - C: every PUBLISH of its link duplicated or reordered at random, both ways, and a short cut;
 * and for everyone: the broker restarted, the cloud killed between committing events and acking
 * them, and between reading commands and publishing them. A crash point is armed, then activity
 * is made at a locker so that the process passes it soon; a fault that does not happen in time
 * fails the run (the suite must prove what it claims to cover).
 */
import { OrderState } from '../../shared/src/enums.js';
import type { Random } from '../../sim/src/random.js';
import type { CrashPoint } from './child-support.js';
import type { FaultWorld, LockerRig } from './fault-world.js';
import type { History, OrderModel } from './history.js';
import type { SupervisedChild } from './supervised-child.js';

export interface FaultEntry {
  /** Seconds since the world started. */
  at: number;
  what: string;
}

export interface NemesisTimings {
  /** The long cut at locker A. */
  longCutMs: number;
  /** Pause between the other faults. */
  gapMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a condition; bounded only to turn a hang into a failure that says what hung. */
export async function until<T>(fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export interface OfflineCancellation {
  /** Cancelled at the cloud while locker A was cut off, and loaded there meanwhile. */
  cancelled: OrderModel;
  /** Loaded before the cut, picked up during it with the code the receiver got. */
  pickedUp: OrderModel;
}

export class Nemesis {
  readonly log: FaultEntry[] = [];
  /** Faults that were scheduled but did not happen. */
  readonly missed: string[] = [];

  constructor(
    private readonly world: FaultWorld,
    private readonly history: History,
    private readonly timings: NemesisTimings,
    private readonly random: Random,
  ) {}

  get a(): LockerRig {
    return this.world.lockers[0]!;
  }

  get b(): LockerRig {
    return this.world.lockers[1]!;
  }

  get c(): LockerRig {
    return this.world.lockers[2]!;
  }

  note(what: string): void {
    this.log.push({ at: (Date.now() - this.world.startedAt) / 1000, what });
  }

  /** Chaos on C's link from now until heal(). */
  startChaos(): void {
    this.c.chaos.enabled = true;
    this.note(`locker ${this.c.id}: duplicating and reordering PUBLISH packets both ways`);
  }

  /** Everything back to normal: links open, no chaos, no armed crash. */
  heal(): void {
    for (const l of this.world.lockers) {
      l.chaos.enabled = false;
      l.proxy.unblock();
    }
    for (const c of this.world.children()) c.disarm();
    const { duplicated, reordered } = this.c.chaos.counts;
    this.note(`healed (locker ${this.c.id}: ${duplicated.up}+${duplicated.down} duplicated, ${reordered.up}+${reordered.down} reordered, up+down)`);
  }

  /** The crashes and short cuts, one after another. */
  async crashesAndCuts(): Promise<void> {
    const { b, c } = this;
    const { gapMs } = this.timings;
    await sleep(gapMs);
    await this.#crash(b.agent, 'agent:events-committed', () => this.#signIn(b));
    await sleep(gapMs);
    await this.#restartBroker();
    await sleep(gapMs);
    await this.#crash(this.world.cloud, 'cloud:events-committed', () => this.#signIn(this.#pickOnline()));
    await sleep(gapMs);
    await this.#shortCut(c, 4_000);
    await sleep(gapMs);
    await this.#crash(b.agent, 'agent:commands-applied', () => this.history.createOrder(b.id, 1, false));
    await sleep(gapMs);
    await this.#crash(this.world.cloud, 'cloud:commands-read', () => this.history.createOrder(this.#pickOnline().id, 1, false));
    await sleep(gapMs);
    await this.#shortCut(b, 3_000);
  }

  /**
   * Locker A: two orders reach the locker; one is loaded and its code issued. Then the link is
   * cut for `longCutMs`: the cloud cancels the other order's position (New, so it is Cancelled),
   * the courier loads that parcel anyway (the locker has not heard), and the customer picks the
   * first order up, while the rest of the history goes on.
   */
  async offlineCancellation(): Promise<OfflineCancellation> {
    const { a } = this;
    const h = this.history;
    const pickedUp = await h.createOrder(a.id, 1, true);
    const cancelled = await h.createOrder(a.id, 1, true);
    if (!pickedUp || !cancelled) throw new Error(`locker ${a.id} refused the scenario's orders`);
    await this.#caughtUp(a);
    // The first route sheet's courier: the locker had that grant before the history began.
    const courier = h.courierCodes[0]!;
    const visit = await h.courierVisit(a.id, pickedUp.barcodes, false, courier);
    if (visit.loads[0] !== 'ok') throw new Error(`the scenario's load at locker ${a.id} failed: ${visit.loads[0] ?? visit.returns}`);
    await until(() => h.codeOf(pickedUp), `the pick-up code of ${pickedUp.externalId}`, 60_000);
    await this.#caughtUp(a);

    a.proxy.block();
    a.proxy.cut();
    const cutAt = Date.now();
    this.note(`locker ${a.id}: link cut for ${Math.round(this.timings.longCutMs / 1000)} s`);
    await until(async () => (await this.#cloudRow(a)).online === 0, `the cloud to see locker ${a.id} offline`, 30_000);
    const cancel = await h.cancel(cancelled, cancelled.barcodes[0]!);
    if (cancel !== 'ok') throw new Error(`cancelling ${cancelled.externalId} while locker ${a.id} is offline: ${cancel}`);
    this.note(`locker ${a.id}: position of ${cancelled.externalId} cancelled at the cloud while the locker is offline`);
    const load = await h.courierVisit(a.id, cancelled.barcodes, false, courier);
    if (load.loads[0] !== 'ok') throw new Error(`loading ${cancelled.externalId} offline: ${load.loads[0] ?? load.returns}`);
    this.note(`locker ${a.id}: ${cancelled.externalId} loaded there anyway`);
    const pick = await h.customerVisit(pickedUp);
    if (pick !== 'ok') throw new Error(`picking ${pickedUp.externalId} up offline: ${pick}`);
    this.note(`locker ${a.id}: ${pickedUp.externalId} picked up offline`);
    await sleep(Math.max(0, cutAt + this.timings.longCutMs - Date.now()));
    a.proxy.unblock();
    this.note(`locker ${a.id}: link back`);
    return { cancelled, pickedUp };
  }

  async #crash(child: SupervisedChild, point: CrashPoint, nudge: () => Promise<unknown>): Promise<void> {
    await child.whenUp();
    const crashed = child.crashed(point);
    let fired = false;
    void crashed.then(() => (fired = true));
    const deadline = Date.now() + 60_000;
    while (!fired && Date.now() < deadline) {
      // Armed again each round: an order sent while the process was restarting is lost.
      child.arm(point);
      // Activity that makes the process pass the point; a nudge cut off by the crash is fine.
      await Promise.race([nudge().catch(() => undefined), crashed]);
      if (!fired) await Promise.race([sleep(3_000), crashed]);
    }
    if (!fired) {
      child.disarm();
      this.missed.push(`${child.name} ${point}`);
      this.note(`${child.name}: crash at ${point} did not happen`);
      return;
    }
    const record = await crashed;
    this.note(`${child.name}: SIGKILL at ${point} ${JSON.stringify(record.detail)}; restarted`);
  }

  async #restartBroker(): Promise<void> {
    this.note(`broker (${this.world.brokerKind}) going down`);
    await this.world.broker.restart(2_000);
    this.note(`broker (${this.world.brokerKind}) back`);
  }

  async #shortCut(rig: LockerRig, ms: number): Promise<void> {
    rig.proxy.block();
    rig.proxy.cut();
    this.note(`locker ${rig.id}: link cut for ${ms / 1000} s`);
    await this.#signIn(rig).catch(() => undefined);
    await sleep(ms);
    rig.proxy.unblock();
    this.note(`locker ${rig.id}: link back`);
  }

  async #signIn(rig: LockerRig): Promise<void> {
    await this.history.courierVisit(rig.id, [], false);
  }

  /** B or C: a locker whose link is not being cut by the scenario. */
  #pickOnline(): LockerRig {
    return this.random() < 0.5 ? this.b : this.c;
  }

  async #cloudRow(rig: LockerRig) {
    return this.world.tdb.db.selectFrom('lockers').select(['online', 'next_cseq', 'applied_cseq']).where('id', '=', rig.id).executeTakeFirstOrThrow();
  }

  /** Until the locker has applied every command the cloud wrote for it so far. */
  async #caughtUp(rig: LockerRig): Promise<void> {
    const target = (await this.#cloudRow(rig)).next_cseq - 1;
    await until(async () => (await this.#cloudRow(rig)).applied_cseq >= target, `locker ${rig.id} to apply command ${target}`, 60_000);
  }
}

/** What the offline cancellation must have come to once the run is over. */
export async function offlineCancellationOutcome(world: FaultWorld, s: OfflineCancellation): Promise<string[]> {
  const problems: string[] = [];
  const db = world.tdb.db;
  const state = async (o: OrderModel) =>
    (await db.selectFrom('orders').select('state').where('marketplace_id', '=', 'shop-a').where('external_id', '=', o.externalId).executeTakeFirstOrThrow()).state;
  const statuses = (o: OrderModel) =>
    world.receiver.calls
      .filter((c) => c.path === '/order-status' && (c.body as { id: string }).id === o.externalId)
      .map((c) => (c.body as { event_id: string }).event_id)
      .filter((e, i, all) => all.indexOf(e) === i);
  const cancelledState = await state(s.cancelled);
  if (cancelledState !== OrderState.CourierPickedUp) problems.push(`${s.cancelled.externalId} (cancelled, then loaded offline) ended in state ${cancelledState}, not 4`);
  // 7 comes when the order reaches Awaiting return with the parcel still in; a courier may take it back before.
  const told = statuses(s.cancelled).join(',');
  if (told !== '3,7,4' && told !== '3,4') problems.push(`${s.cancelled.externalId}: the marketplace was told ${told}, not 3,(7,)4`);
  const pickedState = await state(s.pickedUp);
  if (pickedState !== OrderState.ClientReceived) problems.push(`${s.pickedUp.externalId} (picked up offline) ended in state ${pickedState}, not 2`);
  const picked = statuses(s.pickedUp).join(',');
  if (picked !== '3,2') problems.push(`${s.pickedUp.externalId}: the marketplace was told ${picked}, not 3,2`);
  return problems;
}
