/**
 * The cloud end of rollouts (docs/updates.md, "Rollouts"): a background part that moves every
 * active rollout on, and the lockers' side of the link for updates.
 *
 * Each run of the `rollouts` job, for each running rollout, in one transaction holding its row:
 * a locker that switched and stayed silent past the health window has failed; when the failures
 * of a wave pass the rollout's threshold, it halts by itself (and tells the lockers still before
 * their switch to stop); online lockers of the waves under way get the offer (again after
 * `rolloutOfferResendSeconds` without a word), those whose agent cannot install releases are
 * skipped and those already on the version count as done; once no locker of the wave can still
 * act (finished, or offline before its switch), the soak time runs and the next wave starts; after
 * the last, the rollout completes when every locker finished. Offline lockers get their offer when
 * they say hello again, unless the rollout stopped meanwhile.
 *
 * Several cloud processes may run it: a rollout's row is held with SKIP LOCKED on PostgreSQL, and
 * an offer sent twice is answered twice with the same report.
 */
import type { Logger } from 'pino';
import { PROTOCOL_VERSION, type AgentSoftware, type UpdateReport } from '../../../shared/src/protocol.js';
import type { CloudPart, PartDeps } from '../cloud-part.js';
import { transaction, type Tx } from '../db/transaction.js';
import { saveLockerAgent } from '../repositories/locker-agents.js';
import { releaseById, type Release } from '../repositories/releases.js';
import {
  activeRolloutIds,
  applyMemberReport,
  cancellableOnline,
  failuresByWave,
  holdingMembers,
  lockRollout,
  markOffered,
  memberCounts,
  offerCandidates,
  overdueSwitches,
  rolloutById,
  setMemberState,
  unfinishedMemberships,
  unfinishedMembers,
  updateRollout,
  type Rollout,
} from '../repositories/rollouts.js';
import type { Job } from '../scheduler.js';
import type { LockerUpdates, UpdateSender } from '../sync/update-channel.js';
import { CANCELLABLE_MEMBER_STATES, FINAL_MEMBER_STATES } from './states.js';

/** After the health window, how long a switched locker may stay silent before it counts as failed. */
export const SWITCH_GRACE_MS = 120_000;
/** Offers per transaction (a 100% wave of thousands goes out in a few). */
const OFFER_BATCH = 1_000;

interface Step {
  offers: number[];
  cancels: number[];
  /** Something moved (a wave started): run again at once. */
  again: boolean;
  release: Release;
  rollout: Rollout;
  notes: Record<string, unknown>[];
}

export class RolloutConductor implements CloudPart, LockerUpdates {
  readonly name = 'rollouts';
  readonly #deps: PartDeps;
  readonly #link: () => UpdateSender | undefined;
  readonly #log: Logger;
  readonly #job: Job<void>;
  #offSignals: (() => void) | undefined;

  constructor(deps: PartDeps, link: () => UpdateSender | undefined) {
    this.#deps = deps;
    this.#link = link;
    this.#log = deps.logger.child({ part: 'rollouts' });
    this.#job = deps.scheduler.job('rollouts', () => this.runOnce(), { everyMs: deps.config.rolloutTickSeconds * 1000 });
  }

  start(): Promise<void> {
    this.#offSignals ??= this.#deps.signals.onRollouts(() => this.#job.trigger());
    this.#job.start();
    this.#job.trigger();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.#offSignals?.();
    this.#offSignals = undefined;
    await this.#job.stop();
  }

  /** One pass over every active rollout (the job; tests call it by hand). */
  async runOnce(): Promise<void> {
    for (const id of await activeRolloutIds(this.#deps.cdb.db)) {
      for (let round = 0; round < 20; round++) {
        const step = await this.#step(id);
        if (!step) break;
        this.#carryOut(step);
        if (!step.again) break;
      }
    }
  }

  async #step(id: number): Promise<Step | undefined> {
    const now = this.#deps.clock.now();
    return transaction(this.#deps.cdb, async (tx) => {
      const rollout = await lockRollout(tx, id, this.#deps.cdb.engine, true);
      if (!rollout) return undefined;
      const release = (await releaseById(tx, rollout.releaseId))!;
      const step: Step = { offers: [], cancels: [], again: false, release, rollout, notes: [] };
      if (rollout.state === 'running') await this.#advance(tx, rollout, release, now, step);
      return step;
    });
  }

  async #advance(tx: Tx, r: Rollout, release: Release, now: number, step: Step): Promise<void> {
    // A locker that switched and never came back within the health window (and some grace) has failed.
    for (const lockerId of await overdueSwitches(tx, r.id, now - r.healthWindowSeconds * 1000 - SWITCH_GRACE_MS)) {
      if (await setMemberState(tx, r.id, lockerId, ['switching'], { state: 'failed', reason: 'hung' }, now)) step.notes.push({ lockerId, failed: 'hung' });
    }
    const counts = await memberCounts(tx, r.id);
    const sizes = new Map<number, number>();
    for (const c of counts) sizes.set(c.wave, (sizes.get(c.wave) ?? 0) + c.n);
    const waveCount = Math.max(0, ...sizes.keys()) + 1;
    const failures = await failuresByWave(tx, r.id, r.failuresSince);
    for (let w = 0; w <= r.wave; w++) {
      const failed = failures.get(w) ?? 0;
      const size = sizes.get(w) ?? 0;
      if (failed > Math.floor((size * r.maxFailurePercent) / 100)) {
        const reason = `wave ${w + 1}: ${failed} of ${size} lockers failed (more than ${r.maxFailurePercent}%)`;
        await updateRollout(tx, r.id, { state: 'halted', haltReason: reason }, now);
        step.cancels = await cancellableOnline(tx, r.id);
        step.rollout = { ...r, state: 'halted', haltReason: reason };
        this.#log.error({ rolloutId: r.id, version: release.version, wave: w + 1, failed, size }, 'rollout halted: too many lockers failed');
        return;
      }
    }
    await this.#offer(tx, r, release, now, step);
    const holding = await holdingMembers(tx, r.id, r.wave);
    if (holding > 0) {
      if (r.waveSettledAt !== null) await updateRollout(tx, r.id, { waveSettledAt: null }, now);
      return;
    }
    const settledAt = r.waveSettledAt ?? now;
    if (r.waveSettledAt === null) await updateRollout(tx, r.id, { waveSettledAt: now }, now);
    if (r.wave < waveCount - 1) {
      if (now - settledAt >= r.soakSeconds * 1000) {
        await updateRollout(tx, r.id, { wave: r.wave + 1, waveStartedAt: now, waveSettledAt: null }, now);
        this.#log.info({ rolloutId: r.id, version: release.version, wave: r.wave + 2, of: waveCount }, 'rollout: next wave');
        step.again = true;
      }
      return;
    }
    if ((await unfinishedMembers(tx, r.id)) === 0) {
      await updateRollout(tx, r.id, { state: 'completed' }, now);
      this.#log.info({ rolloutId: r.id, version: release.version }, 'rollout completed');
    }
  }

  /** Offers to the online lockers of the waves under way; skips and settles those it needs not offer to. */
  async #offer(tx: Tx, r: Rollout, release: Release, now: number, step: Step): Promise<void> {
    const quietSince = now - this.#deps.config.rolloutOfferResendSeconds * 1000;
    for (let batch = 0; batch < 20; batch++) {
      const candidates = await offerCandidates(tx, r.id, r.wave, quietSince, OFFER_BATCH);
      const offers: number[] = [];
      for (const c of candidates) {
        if (c.agentUpdates !== true) {
          // An agent that never said it installs releases (an older one, or updates not configured).
          await setMemberState(tx, r.id, c.lockerId, [c.state], { state: 'skipped', reason: 'not_updatable' }, now);
        } else if (c.agentVersion === release.version) {
          await setMemberState(tx, r.id, c.lockerId, [c.state], { state: 'confirmed', reason: 'already_running' }, now);
        } else offers.push(c.lockerId);
      }
      await markOffered(tx, r.id, offers, now);
      step.offers.push(...offers);
      if (candidates.length < OFFER_BATCH) return;
    }
  }

  #carryOut(step: Step): void {
    const link = this.#link();
    for (const note of step.notes) this.#log.warn({ rolloutId: step.rollout.id, ...note }, 'rollout: a locker failed');
    if (!link) return;
    for (const lockerId of step.offers) this.#sendOffer(link, lockerId, step.rollout, step.release);
    for (const lockerId of step.cancels) link.sendUpdate(lockerId, { v: PROTOCOL_VERSION, type: 'update.cancel', rolloutId: step.rollout.id, releaseId: step.release.id });
    if (step.offers.length > 0) this.#log.info({ rolloutId: step.rollout.id, offers: step.offers.length }, 'rollout: offers sent');
  }

  #sendOffer(link: UpdateSender, lockerId: number, r: Rollout, release: Release): void {
    link.sendUpdate(lockerId, {
      v: PROTOCOL_VERSION,
      type: 'update',
      offer: { rolloutId: r.id, releaseId: release.id, version: release.version, sha256: release.sha256, size: release.size, healthWindowSeconds: r.healthWindowSeconds },
    });
  }

  // --- the link's side -------------------------------------------------------------------------

  async onHello(lockerId: number, agent: AgentSoftware | undefined): Promise<void> {
    if (!agent) return;
    const now = this.#deps.clock.now();
    const work = await transaction(this.#deps.cdb, async (tx) => {
      await saveLockerAgent(tx, lockerId, agent.version, agent.updates, now);
      if (agent.update) await applyMemberReport(tx, lockerId, agent.update, now);
      return this.#due(tx, lockerId, now);
    });
    this.#sendDue(lockerId, work);
  }

  async onReport(lockerId: number, report: UpdateReport): Promise<void> {
    const now = this.#deps.clock.now();
    const out = await transaction(this.#deps.cdb, async (tx) => {
      await saveLockerAgent(tx, lockerId, report.running, true, now);
      const change = await applyMemberReport(tx, lockerId, report, now);
      const rollout = change ? await rolloutById(tx, report.rolloutId) : undefined;
      return { change, rollout };
    });
    const { change, rollout } = out;
    if (!change || !rollout) return;
    this.#log.info({ lockerId, rolloutId: report.rolloutId, version: report.version, state: report.state, reason: report.reason }, 'locker update report');
    // A locker still working on an offer of a rollout that stopped is told to stop.
    if (rollout.state !== 'running' && (CANCELLABLE_MEMBER_STATES as readonly string[]).includes(report.state)) {
      this.#link()?.sendUpdate(lockerId, { v: PROTOCOL_VERSION, type: 'update.cancel', rolloutId: rollout.id, releaseId: rollout.releaseId });
    }
    if (change.before !== change.after && (report.state === 'switching' || (FINAL_MEMBER_STATES as readonly string[]).includes(report.state))) this.#job.trigger();
  }

  async onPresence(lockerId: number, version: string): Promise<void> {
    const now = this.#deps.clock.now();
    await transaction(this.#deps.cdb, (tx) => saveLockerAgent(tx, lockerId, version, undefined, now));
  }

  /** What a locker that just said hello is owed: the offer of a running rollout whose wave reached it, or a stop. */
  async #due(tx: Tx, lockerId: number, now: number): Promise<{ offer?: { rollout: Rollout; release: Release }; cancel?: Rollout }> {
    for (const m of await unfinishedMemberships(tx, lockerId)) {
      const rollout = (await rolloutById(tx, m.rolloutId))!;
      if (rollout.state === 'running') {
        if (m.wave > rollout.wave || m.state === 'switching') continue;
        const release = (await releaseById(tx, rollout.releaseId))!;
        await markOffered(tx, rollout.id, [lockerId], now);
        return { offer: { rollout, release } };
      }
      if ((CANCELLABLE_MEMBER_STATES).includes(m.state)) return { cancel: rollout };
    }
    return {};
  }

  #sendDue(lockerId: number, work: { offer?: { rollout: Rollout; release: Release }; cancel?: Rollout }): void {
    const link = this.#link();
    if (!link) return;
    if (work.offer) this.#sendOffer(link, lockerId, work.offer.rollout, work.offer.release);
    if (work.cancel) link.sendUpdate(lockerId, { v: PROTOCOL_VERSION, type: 'update.cancel', rolloutId: work.cancel.id, releaseId: work.cancel.releaseId });
  }
}
