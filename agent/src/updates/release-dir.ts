/**
 * The releases directory of a controller (docs/updates.md, "On the locker"): the A/B slots the
 * agent stages releases into, the `current` link the agent is started through, and the two small
 * files that say what runs and what is under way. The agent and the launcher
 * (agent/src/launcher/) both read and write it; every write is atomic (atomic-file.ts).
 *
 *   <dir>/current -> slots/<slot> | <factory>   what `node <dir>/current/main.js` runs next
 *   <dir>/state.json     active and previous slot, the trial of a new one, the last outcome
 *   <dir>/job.json       the offer being downloaded, verified, staged or waiting to switch
 *   <dir>/slots/<slot>/  a verified release: its files and release.json (its signed manifest)
 *   <dir>/downloads/     <sha256>.part while downloading, <sha256>.release once complete
 *
 * The factory install (the agent the controller was set up with, dist/agent) is the slot `null`.
 */
import { existsSync, mkdirSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { UPDATE_REASONS, updateOfferSchema, type UpdateOffer, type UpdateReason } from '../../../shared/src/protocol.js';
import { RELEASE_MANIFEST_FILE } from '../../../shared/src/release.js';
import { fsyncDir, readJsonIfAny, removeDurably, writeFileAtomic } from './atomic-file.js';

const slotName = z.string().regex(/^[0-9A-Za-z.-]{1,120}$/);

export const trialSchema = z.object({
  /** The slot on trial. */
  slot: slotName,
  /** What ran before (null: the factory install): where a failed trial goes back to. */
  from: slotName.nullable(),
  /** Starts of the slot the launcher made; past the limit it goes back. */
  attempts: z.number().int().min(0),
  switchedAt: z.number().int(),
  /** Confirmed healthy by then, or it goes back. */
  deadline: z.number().int(),
  /** What was healthy before the switch: the new version must do as well. */
  baseline: z.object({ link: z.boolean(), boards: z.array(z.string().max(100)).max(256) }),
  offer: updateOfferSchema,
});
export type Trial = z.infer<typeof trialSchema>;

export const outcomeSchema = z.object({
  offer: updateOfferSchema,
  state: z.enum(['confirmed', 'rolled_back']),
  reason: z.enum(UPDATE_REASONS).optional(),
  at: z.number().int(),
});
export type Outcome = z.infer<typeof outcomeSchema>;

export const launcherStateSchema = z.object({
  v: z.literal(1),
  active: slotName.nullable(),
  previous: slotName.nullable(),
  trial: trialSchema.nullable(),
  outcome: outcomeSchema.nullable(),
});
export type LauncherState = z.infer<typeof launcherStateSchema>;

export const JOB_STATES = ['downloading', 'verifying', 'staged', 'waiting', 'refused', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const jobSchema = z.object({
  v: z.literal(1),
  offer: updateOfferSchema,
  state: z.enum(JOB_STATES),
  reason: z.enum(UPDATE_REASONS).optional(),
  /** Set once staged. */
  slot: slotName.optional(),
  at: z.number().int(),
});
export type Job = z.infer<typeof jobSchema>;

export const EMPTY_STATE: LauncherState = { v: 1, active: null, previous: null, trial: null, outcome: null };

/** The slot a verified artifact is staged into: its version and the start of its digest. */
export function slotFor(offer: Pick<UpdateOffer, 'version' | 'sha256'>): string {
  return `${offer.version}-${offer.sha256.slice(0, 12)}`;
}

export class ReleaseDir {
  readonly root: string;
  /** The factory install (dist/agent), started when no slot is active. */
  readonly factory: string;

  constructor(root: string, factory: string) {
    this.root = resolve(root);
    this.factory = resolve(factory);
  }

  get slots(): string {
    return join(this.root, 'slots');
  }

  get downloads(): string {
    return join(this.root, 'downloads');
  }

  get currentLink(): string {
    return join(this.root, 'current');
  }

  ensure(): void {
    mkdirSync(this.slots, { recursive: true });
    mkdirSync(this.downloads, { recursive: true });
  }

  slotDir(slot: string | null): string {
    return slot === null ? this.factory : join(this.slots, slot);
  }

  /** A slot is complete once its manifest is in place (written last, then the folder renamed in). */
  hasSlot(slot: string | null): boolean {
    const dir = this.slotDir(slot);
    return existsSync(join(dir, 'main.js')) && (slot === null || existsSync(join(dir, RELEASE_MANIFEST_FILE)));
  }

  /** The slot a directory is (null: the factory), or undefined when it is neither. */
  slotOf(dir: string): string | null | undefined {
    const real = safeRealpath(dir);
    const rel = relative(safeRealpath(this.slots), real);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel) && !rel.includes('/')) return rel;
    if (real === safeRealpath(this.factory)) return null;
    return undefined;
  }

  /** Where `current` points now (undefined: no link). */
  current(): string | undefined {
    try {
      const target = readlinkSync(this.currentLink);
      return resolve(this.root, target);
    } catch {
      return undefined;
    }
  }

  /** Points `current` at a slot: a new link beside it, renamed over the old one (atomic). */
  pointCurrentAt(slot: string | null): void {
    const target = slot === null ? this.factory : join('slots', slot);
    const tmp = join(this.root, `.current.tmp-${process.pid}`);
    rmSync(tmp, { force: true });
    symlinkSync(target, tmp);
    renameSync(tmp, this.currentLink);
    fsyncDir(this.root);
  }

  readState(): LauncherState {
    const parsed = launcherStateSchema.safeParse(readJsonIfAny(join(this.root, 'state.json')));
    return parsed.success ? parsed.data : EMPTY_STATE;
  }

  writeState(state: LauncherState): void {
    writeFileAtomic(join(this.root, 'state.json'), `${JSON.stringify(state)}\n`);
  }

  readJob(): Job | undefined {
    const parsed = jobSchema.safeParse(readJsonIfAny(join(this.root, 'job.json')));
    return parsed.success ? parsed.data : undefined;
  }

  writeJob(job: Job): void {
    writeFileAtomic(join(this.root, 'job.json'), `${JSON.stringify(job)}\n`);
  }

  clearJob(): void {
    if (existsSync(join(this.root, 'job.json'))) removeDurably(join(this.root, 'job.json'));
  }

  partPath(sha256: string): string {
    return join(this.downloads, `${sha256}.part`);
  }

  artifactPath(sha256: string): string {
    return join(this.downloads, `${sha256}.release`);
  }

  /** Keeps the slots named (and the factory); removes every other slot, staging folder and download. */
  prune(keep: readonly (string | null)[], keepDownload?: string): void {
    const names = new Set(keep.filter((s): s is string => s !== null));
    for (const entry of safeList(this.slots)) {
      if (!names.has(entry)) rmSync(join(this.slots, entry), { recursive: true, force: true });
    }
    for (const entry of safeList(this.downloads)) {
      if (!keepDownload || !entry.startsWith(keepDownload)) rmSync(join(this.downloads, entry), { force: true });
    }
  }
}

/** The state after a trial ends without confirmation: back to what ran before. */
export function revertedState(state: LauncherState, reason: UpdateReason, at: number): LauncherState {
  const trial = state.trial;
  if (!trial) return state;
  return { v: 1, active: trial.from, previous: state.previous, trial: null, outcome: { offer: trial.offer, state: 'rolled_back', reason, at } };
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
