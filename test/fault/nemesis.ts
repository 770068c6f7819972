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
 *
 * Faults come one after another, each only once the system has recovered from the one before
 * (`#recovered`): every process up, every locker whose link is not cut online and caught up. The
 * waits follow state, not time; their bounds are generous and only turn a hang into a failure
 * that says what did not recover.
 */
import { OrderState } from '../../shared/src/enums.js';
import type { Random } from '../../sim/src/random.js';
import type { CrashPoint } from './child-support.js';
import type { FaultWorld, LockerRig } from './fault-world.js';
import type { History, OrderModel } from './history.js';
import { agentPosition } from './run-record.js';
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

/** Bound of the wait for recovery between two faults (reported as a failure when exceeded). */
const RECOVERY_MS = 180_000;
/** Bound of the wait for an armed process to pass its crash point while activity is made. */
const CRASH_WITHIN_MS = 120_000;
/** Activity is made again this often while an armed process has not passed its point. */
const NUDGE_EVERY_MS = 3_000;

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

/** `promise`, or a failure naming what did not happen within `ms` (a hang, not a slow machine). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
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
  /** Faults the system did not recover from within RECOVERY_MS, with what was still wrong. */
  readonly unrecovered: string[] = [];

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
  async heal(): Promise<void> {
    for (const l of this.world.lockers) {
      l.chaos.enabled = false;
      l.proxy.unblock();
    }
    await Promise.all(this.world.children().map((c) => c.disarm()));
    const { duplicated, reordered } = this.c.chaos.counts;
    this.note(`healed (locker ${this.c.id}: ${duplicated.up}+${duplicated.down} duplicated, ${reordered.up}+${reordered.down} reordered, up+down)`);
  }

  /** The crashes and short cuts, one after another. */
  async crashesAndCuts(): Promise<void> {
    const { b, c } = this;
    const faults: [string, () => Promise<void>][] = [
      ['agent crash at events-committed', () => this.#crash(b.agent, 'agent:events-committed', () => this.#signIn(b))],
      ['broker restart', () => this.#restartBroker()],
      ['cloud crash at events-committed', () => this.#crash(this.world.cloud, 'cloud:events-committed', () => this.#signIn(this.#pickOnline()))],
      [`short cut at locker ${c.id}`, () => this.#shortCut(c, 4_000)],
      ['agent crash at commands-applied', () => this.#crash(b.agent, 'agent:commands-applied', () => this.history.createOrder(b.id, 1, false))],
      ['cloud crash at commands-read', () => this.#crash(this.world.cloud, 'cloud:commands-read', () => this.history.createOrder(this.#pickOnline().id, 1, false))],
      [`short cut at locker ${b.id}`, () => this.#shortCut(b, 3_000)],
    ];
    let last = 'the start';
    for (const [name, fault] of faults) {
      // The history runs on meanwhile; the gap is time for it, the recovery is the condition.
      await sleep(this.timings.gapMs);
      await this.#recovered(last);
      await fault();
      last = name;
    }
    await this.#recovered(last);
  }

  /**
   * Until the system has recovered from `fault`: every process up, and every locker whose link
   * is not being cut online at the cloud with both streams caught up to where they stood when
   * the wait began (the history goes on, so later commands and events do not count).
   */
  async #recovered(fault: string): Promise<void> {
    const targets = new Map<number, { cseq: number; dseq: number }>();
    const wrong = async (): Promise<string | null> => {
      const down = this.world.children().filter((ch) => !ch.up);
      if (down.length > 0) return `not up: ${down.map((ch) => ch.name).join(', ')}`;
      for (const rig of this.world.lockers) {
        if (rig.proxy.blocked) continue;
        const row = await this.#cloudRow(rig);
        let target = targets.get(rig.id);
        if (!target) {
          target = { cseq: row.next_cseq - 1, dseq: agentPosition(rig).lastDseq };
          targets.set(rig.id, target);
        }
        if (row.online !== 1) return `locker ${rig.id} offline at the cloud`;
        if (row.applied_cseq < target.cseq) return `locker ${rig.id}: commands applied ${row.applied_cseq} of ${target.cseq}`;
        if (row.acked_dseq < target.dseq) return `locker ${rig.id}: events acked ${row.acked_dseq} of ${target.dseq}`;
      }
      return null;
    };
    const started = Date.now();
    let reason = await wrong();
    while (reason !== null) {
      if (Date.now() - started > RECOVERY_MS) {
        this.unrecovered.push(`no recovery within ${RECOVERY_MS / 1000} s after ${fault}: ${reason}`);
        this.note(`no recovery within ${RECOVERY_MS / 1000} s after ${fault}: ${reason}`);
        return;
      }
      await sleep(250);
      reason = await wrong();
    }
    const took = (Date.now() - started) / 1000;
    if (took >= 1) this.note(`recovered from ${fault} in ${took.toFixed(1)} s`);
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
    await until(() => h.codeOf(pickedUp), `the pick-up code of ${pickedUp.externalId}`, RECOVERY_MS);
    await this.#caughtUp(a);

    a.proxy.block();
    a.proxy.cut();
    const cutAt = Date.now();
    this.note(`locker ${a.id}: link cut for ${Math.round(this.timings.longCutMs / 1000)} s`);
    await until(async () => (await this.#cloudRow(a)).online === 0, `the cloud to see locker ${a.id} offline`, RECOVERY_MS);
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

  /**
   * Arms `point` in the child's running life and makes activity until that life dies there. Only
   * a life that answered "armed" is nudged, and a life is armed at most once: the next life starts
   * disarmed, so it cannot die at the point while starting (before it is ready), which the
   * supervisor would take for a failed restart.
   */
  async #crash(child: SupervisedChild, point: CrashPoint, nudge: () => Promise<unknown>): Promise<void> {
    const died = child.diedAt(point);
    let fired = false;
    void died.then(() => (fired = true));
    const deadline = Date.now() + CRASH_WITHIN_MS;
    while (!fired && Date.now() < deadline) {
      await within(child.whenUp(), RECOVERY_MS, `${child.name} to be up before arming ${point}`);
      // False when that life ended (for another reason) before it was armed: the next one is armed.
      if (!(await child.arm(point))) continue;
      while (!fired && child.up && Date.now() < deadline) {
        // Activity that makes the process pass the point; a nudge cut off by the crash is fine.
        await Promise.race([nudge().catch(() => undefined), died]);
        if (!fired) await Promise.race([sleep(NUDGE_EVERY_MS), died]);
      }
    }
    if (!fired) {
      await child.disarm();
      this.missed.push(`${child.name} ${point}`);
      this.note(`${child.name}: crash at ${point} did not happen within ${CRASH_WITHIN_MS / 1000} s`);
      return;
    }
    const record = await died;
    this.note(`${child.name}: SIGKILL at ${point} ${JSON.stringify(record.detail)}`);
    await within(child.whenUp(), RECOVERY_MS, `${child.name} to come back after the crash at ${point}`);
    this.note(`${child.name}: restarted`);
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
    return this.world.tdb.db.selectFrom('lockers').select(['online', 'next_cseq', 'applied_cseq', 'acked_dseq']).where('id', '=', rig.id).executeTakeFirstOrThrow();
  }

  /** Until the locker has applied every command the cloud wrote for it so far. */
  async #caughtUp(rig: LockerRig): Promise<void> {
    const target = (await this.#cloudRow(rig)).next_cseq - 1;
    await until(async () => (await this.#cloudRow(rig)).applied_cseq >= target, `locker ${rig.id} to apply command ${target}`, RECOVERY_MS);
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
