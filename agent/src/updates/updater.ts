/**
 * The locker's end of a rollout (docs/updates.md, "On the locker"): takes the cloud's offer of a
 * release, downloads it, verifies it, stages it into a slot beside the running version, waits for
 * a quiet moment (no door open, nobody at the screen), switches, and restarts through the
 * supervisor. The new version, started on trial by the launcher, confirms itself healthy within
 * the rollout's health window (the link up if it was up, every board answering that answered
 * before, the screen served, for `healthyForSeconds` in a row) or goes back to the version before.
 *
 * Every step is recorded in the releases directory (release-dir.ts) before the next begins, so a
 * power cut anywhere resumes where it stopped: a download goes on from its last byte, a
 * verification or staging is done again, a switch either happened (the launcher starts the trial)
 * or did not (the old version waits for its quiet moment again). Each step is reported to the
 * cloud as it starts, and the latest report rides on every hello.
 */
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import { FINAL_UPDATE_STATES, type AgentSoftware, type UpdateOffer, type UpdateReason, type UpdateReport, type UpdateState } from '../../../shared/src/protocol.js';
import type { ReleaseKey } from '../../../shared/src/release.js';
import type { Clock } from '../clock.js';
import { DownloadError, completeDownload, fetchMissing, type DownloadSource } from './download.js';
import type { ReleaseDir} from './release-dir.js';
import { revertedState, slotFor, type Job, type LauncherState, type Trial } from './release-dir.js';
import { announceStep } from './update-steps.js';
import { RefusedRelease, stageRelease, verifyArtifact, type LockerSoftware } from './verify.js';

/** What the running agent is: its version, and the slot it was started from (undefined: not through the launcher). */
export interface RunningRelease {
  version: string;
  /** null: the factory install; undefined: not started through the releases directory (no updates). */
  slot: string | null | undefined;
}

export interface HealthChecks {
  /** Connected to the broker and the cloud answered the hello. */
  link: boolean;
  /** Boards (`bus/board`) that answer. */
  boards: string[];
  /** The screen answers its state. */
  screen: boolean;
}

export interface UpdaterSettings {
  maxArtifactBytes: number;
  healthyForMs: number;
  quietForMs: number;
  /** Between two checks of the health gate and of the quiet moment. */
  checkEveryMs: number;
  /** Download attempts in a row without progress before the update fails. */
  downloadAttempts: number;
}

export interface UpdaterDeps {
  dir: ReleaseDir;
  running: RunningRelease;
  keys: readonly ReleaseKey[];
  source: DownloadSource;
  software: Omit<LockerSoftware, 'running'>;
  clock: Clock;
  logger: Logger;
  /** Nobody would notice a restart now (Locker.quiet()). */
  quiet(forMs: number): { quiet: boolean; why?: string };
  probe(): Promise<HealthChecks>;
  /** Sends a report to the cloud; false when not connected (the next hello carries it). */
  send(report: UpdateReport): boolean;
  /** Stops the agent and exits, for the supervisor to start what `current` points to. */
  restart(reason: string): void;
}

const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 60_000;

export class Updater {
  readonly #deps: UpdaterDeps;
  readonly #settings: UpdaterSettings;
  readonly #log: Logger;
  #state: LauncherState;
  #job: Job | undefined;
  #running = false;
  #work: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Bytes of the artifact on the disk, while downloading. */
  #bytes: number | undefined;
  #switching = false;

  constructor(settings: UpdaterSettings, deps: UpdaterDeps) {
    this.#settings = settings;
    this.#deps = deps;
    this.#log = deps.logger;
    this.#state = { v: 1, active: null, previous: null, trial: null, outcome: null };
  }

  /** Whether this agent can install releases: started by the launcher from the releases directory. */
  get updatable(): boolean {
    return this.#deps.running.slot !== undefined;
  }

  /** What the hello says of the agent's software. */
  software(): AgentSoftware {
    const update = this.latestReport();
    return { version: this.#deps.running.version, updates: this.updatable, ...(update ? { update } : {}) };
  }

  start(): Promise<void> {
    if (this.#running) return Promise.resolve();
    this.#running = true;
    if (!this.updatable) return Promise.resolve();
    const { dir, running } = this.#deps;
    dir.ensure();
    this.#state = dir.readState();
    const trial = this.#state.trial;
    if (trial && trial.slot === running.slot) {
      // A trial has begun: what was under way before the switch is done.
      dir.clearJob();
      announceStep('first-start', { version: running.version });
      this.#log.info({ version: running.version, from: trial.from, attempt: trial.attempts }, 'update: started on trial; checking health');
      this.#scheduleGate(trial, undefined);
      return Promise.resolve();
    }
    if (trial) this.#log.warn({ trial: trial.slot, running: running.slot }, 'update: a trial is pending for another slot; the launcher settles it at the next start');
    this.#job = dir.readJob();
    if (this.#job && !isFinal(this.#job.state)) {
      this.#log.info({ version: this.#job.offer.version, state: this.#job.state }, 'update: resuming');
      this.#kick();
    }
    if (this.#state.outcome) this.#log.info({ outcome: this.#state.outcome.state, version: this.#state.outcome.offer.version, reason: this.#state.outcome.reason }, 'update: last outcome');
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    await this.#work?.catch(() => undefined);
  }

  /** The latest thing to tell the cloud: the trial, the job, or the last outcome, whichever is newest. */
  latestReport(): UpdateReport | undefined {
    const trial = this.#state.trial;
    if (trial) return this.#report(trial.offer, 'switching');
    const job = this.#job;
    const outcome = this.#state.outcome;
    if (job && (!outcome || job.at >= outcome.at)) return this.#report(job.offer, job.state, job.reason, this.#bytes);
    if (outcome) return this.#report(outcome.offer, outcome.state, outcome.reason);
    return undefined;
  }

  // --- messages from the cloud ---------------------------------------------------------------

  offer(offer: UpdateOffer): void {
    if (!this.#running) return;
    const log = this.#log.child({ rolloutId: offer.rolloutId, releaseId: offer.releaseId, version: offer.version });
    if (!this.updatable) {
      log.warn('update offered, but this agent was not started through the releases directory; refused');
      this.#send(this.#report(offer, 'refused', 'not_updatable'));
      return;
    }
    const trial = this.#state.trial;
    if (trial) {
      // One change at a time: the trial is confirmed or undone first; the cloud offers again.
      this.#send(this.#report(trial.offer, 'switching'));
      return;
    }
    const same = (o: UpdateOffer): boolean => o.rolloutId === offer.rolloutId && o.releaseId === offer.releaseId;
    const outcome = this.#state.outcome;
    if (outcome && same(outcome.offer) && (!this.#job || outcome.at >= this.#job.at)) {
      this.#send(this.#report(outcome.offer, outcome.state, outcome.reason));
      return;
    }
    const job = this.#job;
    if (job && same(job.offer)) {
      this.#send(this.#report(job.offer, job.state, job.reason, this.#bytes));
      if (!isFinal(job.state)) this.#kick();
      return;
    }
    if (offer.version === this.#deps.running.version) {
      log.info('update offered: already running this version');
      this.#send(this.#report(offer, 'confirmed', 'already_running'));
      return;
    }
    if (job && !isFinal(job.state)) {
      log.info({ previous: job.offer.version }, 'update: a newer offer replaces the one under way');
      this.#abort?.abort();
      this.#finishJob(job, 'cancelled', 'superseded');
    }
    if (offer.size > this.#settings.maxArtifactBytes) {
      log.warn({ size: offer.size, max: this.#settings.maxArtifactBytes }, 'update refused: the artifact is larger than allowed');
      this.#setJob({ v: 1, offer, state: 'refused', reason: 'too_large', at: this.#deps.clock.now() });
      return;
    }
    log.info({ size: offer.size }, 'update offered');
    this.#setJob({ v: 1, offer, state: 'downloading', at: this.#deps.clock.now() });
    this.#kick();
  }

  cancel(rolloutId: number, releaseId: number): void {
    const job = this.#job;
    if (!job || job.offer.rolloutId !== rolloutId || job.offer.releaseId !== releaseId || isFinal(job.state) || this.#switching) return;
    this.#log.info({ rolloutId, releaseId, version: job.offer.version }, 'update cancelled by the cloud');
    this.#abort?.abort();
    this.#finishJob(job, 'cancelled', 'cancelled');
  }

  // --- the work before the switch ----------------------------------------------------------------

  #kick(): void {
    if (this.#work || !this.#running) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#work = this.#advance(abort.signal)
      .catch((err: unknown) => this.#log.error({ err }, 'update: step failed'))
      .finally(() => {
        this.#work = undefined;
        if (this.#abort === abort) this.#abort = undefined;
      });
  }

  /** Takes the job from its state to the switch, one recorded step at a time. */
  async #advance(signal: AbortSignal): Promise<void> {
    let failures = 0;
    let progressAt = 0;
    for (;;) {
      const job = this.#job;
      if (!job || isFinal(job.state) || signal.aborted || !this.#running) return;
      const { dir } = this.#deps;
      const offer = job.offer;
      try {
        switch (job.state) {
          case 'downloading': {
            const part = dir.partPath(offer.sha256);
            const final = dir.artifactPath(offer.sha256);
            if (!exists(final)) {
              const have = sizeOf(part);
              if (have > 0 && this.#bytes === undefined) this.#log.info({ from: have, size: offer.size, version: offer.version }, 'update: resuming the download');
              const bytes = await fetchMissing(this.#deps.source, offer, part, (b) => (this.#bytes = b), signal);
              if (bytes < offer.size) throw new DownloadError(`the connection ended after ${bytes} of ${offer.size} bytes`, false);
              completeDownload(part, final);
            }
            this.#bytes = undefined;
            this.#setJob({ ...job, state: 'verifying', at: this.#deps.clock.now() });
            break;
          }
          case 'verifying': {
            const artifact = dir.artifactPath(offer.sha256);
            const head = await verifyArtifact(artifact, offer, this.#deps.keys, { ...this.#deps.software, running: this.#deps.running.version });
            const slot = slotFor(offer);
            if (!dir.hasSlot(slot)) await stageRelease(artifact, head, dir.slotDir(slot));
            this.#setJob({ ...job, state: 'staged', slot, at: this.#deps.clock.now() });
            break;
          }
          case 'staged':
            this.#setJob({ ...job, state: 'waiting', at: this.#deps.clock.now() });
            break;
          case 'waiting':
            await this.#waitForQuiet(signal);
            if (signal.aborted || !this.#running || this.#job !== job) return;
            await this.#switch(job);
            return;
          case 'refused':
          case 'failed':
          case 'cancelled':
            return;
        }
      } catch (err) {
        if (signal.aborted || !this.#running) return;
        if (err instanceof RefusedRelease) {
          this.#log.error({ reason: err.reason, version: offer.version, err: err.message }, 'update refused: the artifact did not verify');
          this.#finishJob(job, 'refused', err.reason);
          return;
        }
        if (err instanceof DownloadError) {
          // Attempts that moved the download on start the count again.
          if ((this.#bytes ?? 0) > progressAt) {
            progressAt = this.#bytes ?? 0;
            failures = 0;
          }
          failures += 1;
          if (err.permanent || failures >= this.#settings.downloadAttempts) {
            this.#log.error({ err: err.message, attempts: failures, version: offer.version }, 'update failed: cannot download the artifact');
            this.#finishJob(job, 'failed', 'download_failed');
            return;
          }
          const waitMs = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (failures - 1));
          this.#log.warn({ err: err.message, attempt: failures, retryInMs: waitMs }, 'update: download interrupted; resuming later');
          await sleep(waitMs, signal);
          continue;
        }
        this.#log.error({ err, state: job.state, version: offer.version }, 'update failed');
        this.#finishJob(job, 'failed', job.state === 'verifying' ? 'stage_failed' : 'download_failed');
        return;
      }
    }
  }

  async #waitForQuiet(signal: AbortSignal): Promise<void> {
    let logged = '';
    for (;;) {
      if (signal.aborted || !this.#running) return;
      const q = this.#deps.quiet(this.#settings.quietForMs);
      if (q.quiet) return;
      if (q.why !== logged) {
        logged = q.why ?? '';
        this.#log.info({ why: q.why }, 'update: waiting for a quiet moment to switch');
      }
      await sleep(this.#settings.checkEveryMs, signal);
    }
  }

  async #switch(job: Job): Promise<void> {
    const { dir, clock } = this.#deps;
    const slot = job.slot ?? slotFor(job.offer);
    if (!dir.hasSlot(slot)) {
      // The staged slot went away (a disk cleaned by hand): verify and stage again.
      this.#setJob({ ...job, state: 'verifying', at: clock.now() });
      this.#kick();
      return;
    }
    this.#switching = true;
    const checks = await this.#deps.probe();
    const now = clock.now();
    const trial: Trial = {
      slot,
      from: this.#deps.running.slot ?? null,
      attempts: 0,
      switchedAt: now,
      deadline: now + job.offer.healthWindowSeconds * 1000,
      baseline: { link: checks.link, boards: checks.boards },
      offer: job.offer,
    };
    const state: LauncherState = { ...dir.readState(), trial };
    // The switch: from here the launcher starts the new slot.
    dir.writeState(state);
    this.#state = state;
    announceStep('switch', { version: job.offer.version });
    dir.clearJob();
    this.#job = undefined;
    this.#send(this.#report(job.offer, 'switching'));
    this.#log.info({ version: job.offer.version, slot, from: trial.from }, 'update: switching; restarting into the new version');
    this.#deps.restart(`update to ${job.offer.version}`);
  }

  // --- the trial of a new version ----------------------------------------------------------------

  #scheduleGate(trial: Trial, passingSince: number | undefined, lastFailing?: UpdateReason): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#gate(trial, passingSince, lastFailing);
    }, passingSince === undefined && lastFailing === undefined ? 0 : this.#settings.checkEveryMs);
  }

  async #gate(trial: Trial, passingSince: number | undefined, lastFailing: UpdateReason | undefined): Promise<void> {
    if (!this.#running) return;
    const now = this.#deps.clock.now();
    let failing: UpdateReason | undefined;
    try {
      const c = await this.#deps.probe();
      if (trial.baseline.link && !c.link) failing = 'unhealthy_link';
      else if (trial.baseline.boards.some((b) => !c.boards.includes(b))) failing = 'unhealthy_boards';
      else if (!c.screen) failing = 'unhealthy_screen';
    } catch (err) {
      this.#log.warn({ err }, 'update: the health check failed');
      failing = 'unhealthy_screen';
    }
    if (!this.#running) return;
    if (failing === undefined) {
      const since = passingSince ?? now;
      if (now - since >= this.#settings.healthyForMs) return this.#confirm(trial);
      this.#scheduleGate(trial, since);
      return;
    }
    if (failing !== lastFailing) this.#log.warn({ failing, version: trial.offer.version }, 'update: not healthy yet');
    if (now >= trial.deadline) return this.#revert(trial, failing);
    this.#scheduleGate(trial, undefined, failing);
  }

  #confirm(trial: Trial): void {
    const { dir, clock } = this.#deps;
    const state: LauncherState = {
      v: 1,
      active: trial.slot,
      previous: trial.from,
      trial: null,
      outcome: { offer: trial.offer, state: 'confirmed', at: clock.now() },
    };
    dir.writeState(state);
    this.#state = state;
    announceStep('confirm', { version: trial.offer.version });
    this.#log.info({ version: trial.offer.version, from: trial.from }, 'update: confirmed healthy');
    this.#send(this.#report(trial.offer, 'confirmed'));
    try {
      dir.prune([trial.slot, trial.from]);
    } catch (err) {
      this.#log.warn({ err }, 'update: cannot remove old slots');
    }
  }

  #revert(trial: Trial, reason: UpdateReason): void {
    const { dir, clock } = this.#deps;
    const state = revertedState(dir.readState(), reason, clock.now());
    dir.writeState(state);
    this.#state = state;
    this.#log.error({ version: trial.offer.version, reason, back_to: trial.from ?? 'factory' }, 'update: not healthy within the health window; going back');
    this.#send(this.#report(trial.offer, 'rolled_back', reason));
    this.#deps.restart(`rollback of ${trial.offer.version}`);
  }

  // --- records ---------------------------------------------------------------------------------

  #setJob(job: Job): void {
    this.#deps.dir.writeJob(job);
    this.#job = job;
    this.#send(this.#report(job.offer, job.state, job.reason));
  }

  #finishJob(job: Job, state: 'refused' | 'failed' | 'cancelled', reason: UpdateReason): void {
    const { dir } = this.#deps;
    this.#setJob({ v: 1, offer: job.offer, state, reason, at: this.#deps.clock.now() });
    try {
      // Keep the running slot, the one before it and a staged trial's; drop downloads and other slots.
      dir.prune([this.#deps.running.slot ?? null, this.#state.active, this.#state.previous]);
    } catch (err) {
      this.#log.warn({ err }, 'update: cannot clean up the releases directory');
    }
  }

  #report(offer: UpdateOffer, state: UpdateState, reason?: UpdateReason, bytes?: number): UpdateReport {
    return {
      rolloutId: offer.rolloutId,
      releaseId: offer.releaseId,
      version: offer.version,
      state,
      ...(reason ? { reason } : {}),
      ...(bytes !== undefined && state === 'downloading' ? { bytes } : {}),
      running: this.#deps.running.version,
      at: this.#deps.clock.now(),
    };
  }

  #send(report: UpdateReport): void {
    try {
      this.#deps.send(report);
    } catch (err) {
      this.#log.warn({ err }, 'update: cannot report to the cloud');
    }
  }
}

function isFinal(state: UpdateState | Job['state']): boolean {
  return (FINAL_UPDATE_STATES as readonly string[]).includes(state);
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
