/**
 * What operators do with rollouts (docs/updates.md, "Rollouts"): create one (a release, a target,
 * waves, soak time, health window, failure threshold), pause, resume, abort, and roll back (a
 * signed rollback release to the lockers the rollout updated). Each action is audited in the
 * transaction of its change; the conductor (conductor.ts) carries it out on the lockers at once.
 */
import { PROTOCOL_VERSION } from '../../../shared/src/protocol.js';
import { releaseVersionCompare } from '../../../shared/src/release.js';
import { transaction, type Tx } from '../db/transaction.js';
import type { DomainError} from '../errors.js';
import { invalidRequest, type Bilingual } from '../errors.js';
import { type Actor, audit, targets } from '../operator/audit.js';
import { activeLockers } from '../repositories/lockers.js';
import { releaseById, type Release } from '../repositories/releases.js';
import {
  busyLockers,
  insertRollout,
  lockRollout,
  memberCounts,
  memberIdsIn,
  rolloutById,
  setMembersState,
  updateRollout,
  type Rollout,
  type RolloutTarget,
} from '../repositories/rollouts.js';
import type { ServiceDeps } from '../services.js';
import { notFound, releaseView, type ReleaseView } from './releases.js';
import { assignWaves, shuffled, wavesProblem } from './rollout-plan.js';
import { CANCELLABLE_MEMBER_STATES, FINAL_MEMBER_STATES, type MemberState, type RolloutState } from './states.js';

export interface NewRolloutRequest {
  releaseId: number;
  target: RolloutTarget;
  waves: number[];
  soakSeconds: number;
  healthWindowSeconds: number;
  maxFailurePercent: number;
  reason?: string | undefined;
}

export interface RolloutView {
  id: number;
  release: ReleaseView;
  target: RolloutTarget;
  waves: number[];
  soakSeconds: number;
  healthWindowSeconds: number;
  maxFailurePercent: number;
  state: RolloutState;
  haltReason: string | null;
  rollbackOf: number | null;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  /** The wave under way (1-based) of how many, when it started, when it settled (its soak counts from there). */
  wave: { current: number; of: number; startedAt: string; settledAt: string | null };
  /** Lockers by state, the whole rollout and per wave. */
  lockers: { total: number; byState: Record<string, number>; waves: { wave: number; total: number; byState: Record<string, number> }[] };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function rolloutView(db: Tx, r: Rollout, release?: Release): Promise<RolloutView> {
  const rel = release ?? (await releaseById(db, r.releaseId))!;
  const counts = await memberCounts(db, r.id);
  const byState: Record<string, number> = {};
  const waves = new Map<number, { total: number; byState: Record<string, number> }>();
  let total = 0;
  for (const c of counts) {
    total += c.n;
    byState[c.state] = (byState[c.state] ?? 0) + c.n;
    const w = waves.get(c.wave) ?? { total: 0, byState: {} };
    w.total += c.n;
    w.byState[c.state] = (w.byState[c.state] ?? 0) + c.n;
    waves.set(c.wave, w);
  }
  return {
    id: r.id,
    release: releaseView(rel),
    target: r.target,
    waves: r.waves,
    soakSeconds: r.soakSeconds,
    healthWindowSeconds: r.healthWindowSeconds,
    maxFailurePercent: r.maxFailurePercent,
    state: r.state,
    haltReason: r.haltReason,
    rollbackOf: r.rollbackOf,
    createdAt: iso(r.createdAt)!,
    createdBy: r.createdBy,
    updatedAt: iso(r.updatedAt)!,
    wave: { current: r.wave + 1, of: Math.max(1, waves.size), startedAt: iso(r.waveStartedAt)!, settledAt: iso(r.waveSettledAt) },
    lockers: {
      total,
      byState,
      waves: [...waves.entries()].sort((a, b) => a[0] - b[0]).map(([wave, w]) => ({ wave: wave + 1, ...w })),
    },
  };
}

/** The lockers of a target, active and not sandbox ones. */
async function targetLockers(tx: Tx, target: RolloutTarget): Promise<number[]> {
  const lockers = await activeLockers(tx, { sandbox: false });
  switch (target.kind) {
    case 'all':
      return lockers.map((l) => l.id);
    case 'city': {
      const city = target.city.trim().toLocaleLowerCase('ru');
      return lockers.filter((l) => (l.profile.location.city ?? '').trim().toLocaleLowerCase('ru') === city).map((l) => l.id);
    }
    case 'lockers': {
      const known = new Set(lockers.map((l) => l.id));
      const unknown = target.lockerIds.filter((id) => !known.has(id));
      if (unknown.length > 0) throw invalidRequest({ ru: `не активные постаматы парка: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', ...' : ''}`, en: `not active lockers of the fleet: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', ...' : ''}` });
      return [...new Set(target.lockerIds)];
    }
  }
}

function conflict(detail: Bilingual): DomainError {
  return invalidRequest(detail, { status: 409 });
}

async function create(tx: Tx, deps: ServiceDeps, req: NewRolloutRequest, actor: Actor, rollbackOf: number | null, now: number): Promise<number> {
  const problem = wavesProblem(req.waves);
  if (problem) throw invalidRequest({ ru: `waves: «${problem}»`, en: `waves: ${problem}` });
  const release = await releaseById(tx, req.releaseId);
  if (!release) throw notFound('release', String(req.releaseId));
  if (release.minProtocol > PROTOCOL_VERSION) throw invalidRequest({ ru: `выпуску ${release.version} нужен протокол связи ${release.minProtocol}; облако поддерживает ${PROTOCOL_VERSION}`, en: `release ${release.version} needs link protocol ${release.minProtocol}; this cloud speaks ${PROTOCOL_VERSION}` });
  const lockerIds = await targetLockers(tx, req.target);
  if (lockerIds.length === 0) throw invalidRequest({ ru: 'в цели нет ни одного активного постамата', en: 'the target has no active locker' });
  const busy = await busyLockers(tx, lockerIds);
  if (busy.length > 0) {
    {
    const listed = `${busy.slice(0, 20).join(', ')}${busy.length > 20 ? ', ...' : ''}`;
    throw conflict({
      ru: `постаматы уже в незавершённой раскатке (паузы мало: сначала прервите её): ${listed}`,
      en: `lockers already in an unfinished rollout (pause is not enough: abort it first): ${listed}`,
    });
  }
  }
  const seed = `${now}:${release.sha256}`;
  const ordered = req.target.kind === 'lockers' ? lockerIds : shuffled(lockerIds, seed);
  const members = assignWaves(ordered, req.waves);
  const id = await insertRollout(
    tx,
    {
      releaseId: release.id,
      target: req.target,
      waves: req.waves,
      soakSeconds: req.soakSeconds,
      healthWindowSeconds: req.healthWindowSeconds,
      maxFailurePercent: req.maxFailurePercent,
      rollbackOf,
      at: now,
      createdBy: actor.operator,
    },
    members,
  );
  await audit(tx, actor, now, 'rollout.create', targets.rollout(id), {
    releaseId: release.id,
    version: release.version,
    target: req.target.kind === 'lockers' ? { kind: 'lockers', count: lockerIds.length } : req.target,
    lockers: lockerIds.length,
    waves: req.waves,
    soakSeconds: req.soakSeconds,
    healthWindowSeconds: req.healthWindowSeconds,
    maxFailurePercent: req.maxFailurePercent,
    ...(rollbackOf !== null ? { rollbackOf } : {}),
  });
  return id;
}

export async function createRollout(deps: ServiceDeps, req: NewRolloutRequest, actor: Actor): Promise<RolloutView> {
  const now = deps.clock.now();
  const view = await transaction(deps.cdb, async (tx) => {
    const id = await create(tx, deps, req, actor, null, now);
    return rolloutView(tx, (await rolloutById(tx, id))!);
  });
  deps.signals.rolloutsChanged(view.id);
  deps.logger.info({ rolloutId: view.id, version: view.release.version, lockers: view.lockers.total, waves: req.waves }, 'rollout created');
  return view;
}

export type RolloutAction = 'pause' | 'resume' | 'abort';

const ALLOWED: Record<RolloutAction, readonly RolloutState[]> = {
  pause: ['running'],
  resume: ['paused', 'halted'],
  abort: ['running', 'paused', 'halted'],
};

async function act(tx: Tx, deps: ServiceDeps, id: number, action: RolloutAction, actor: Actor, now: number): Promise<Rollout> {
  const r = await lockRollout(tx, id, deps.cdb.engine, false);
  if (!r) throw notFound('rollout', String(id));
  if (!ALLOWED[action].includes(r.state)) throw conflict({ ru: `раскатка ${id} в состоянии ${r.state}: действие ${action} невозможно`, en: `rollout ${id} is ${r.state}: it cannot ${action}` });
  switch (action) {
    case 'pause':
      await updateRollout(tx, id, { state: 'paused' }, now);
      break;
    case 'resume':
      // Failures so far were seen and accepted: only new ones count toward a halt.
      await updateRollout(tx, id, { state: 'running', haltReason: null, failuresSince: now }, now);
      await setMembersState(tx, id, ['cancelled'], { state: 'pending', reason: null }, now);
      break;
    case 'abort': {
      await updateRollout(tx, id, { state: 'aborted' }, now);
      // A switched locker finishes its trial; everything before the switch stops.
      const notFinal = ['pending', ...CANCELLABLE_MEMBER_STATES].filter((s) => !(FINAL_MEMBER_STATES as readonly string[]).includes(s)) as MemberState[];
      await setMembersState(tx, id, notFinal, { state: 'cancelled', reason: 'cancelled' }, now);
      break;
    }
  }
  await audit(tx, actor, now, `rollout.${action}`, targets.rollout(id), { from: r.state });
  return (await rolloutById(tx, id))!;
}

export async function changeRollout(deps: ServiceDeps, id: number, action: RolloutAction, actor: Actor): Promise<RolloutView> {
  const now = deps.clock.now();
  const view = await transaction(deps.cdb, async (tx) => rolloutView(tx, await act(tx, deps, id, action, actor, now)));
  deps.signals.rolloutsChanged(id);
  deps.logger.info({ rolloutId: id, action, state: view.state }, 'rollout changed by an operator');
  return view;
}

export interface RollbackRequest extends Omit<NewRolloutRequest, 'target'> {
  reason: string;
}

/**
 * A signed rollback release to every locker the rollout updated (or is updating): the rollout is
 * aborted and a new one, marked as its rollback, takes those lockers back in the waves given.
 */
export async function rollBackRollout(deps: ServiceDeps, id: number, req: RollbackRequest, actor: Actor): Promise<RolloutView> {
  const now = deps.clock.now();
  const view = await transaction(deps.cdb, async (tx) => {
    const r = await lockRollout(tx, id, deps.cdb.engine, false);
    if (!r) throw notFound('rollout', String(id));
    const from = (await releaseById(tx, r.releaseId))!;
    const back = await releaseById(tx, req.releaseId);
    if (!back) throw notFound('release', String(req.releaseId));
    if (releaseVersionCompare(back.version, from.version) >= 0 || !back.rollbackFrom.includes(from.version)) {
      throw invalidRequest({ ru: `выпуск ${back.version} не является подписанным откатом с ${from.version} (его rollbackFrom: ${back.rollbackFrom.join(', ') || '—'})`, en: `release ${back.version} is not a signed rollback from ${from.version} (its rollbackFrom: ${back.rollbackFrom.join(', ') || 'none'})` });
    }
    const lockerIds = await memberIdsIn(tx, id, ['confirmed', 'switching']);
    if (lockerIds.length === 0) throw invalidRequest({ ru: `ни один постамат раскатки ${id} не работает на ${from.version}`, en: `no locker of rollout ${id} runs ${from.version}` });
    if (r.state === 'running' || r.state === 'paused' || r.state === 'halted') await act(tx, deps, id, 'abort', actor, now);
    const newId = await create(tx, deps, { ...req, target: { kind: 'lockers', lockerIds } }, actor, id, now);
    await audit(tx, actor, now, 'rollout.rollback', targets.rollout(id), { rollout: newId, releaseId: back.id, version: back.version, lockers: lockerIds.length });
    return rolloutView(tx, (await rolloutById(tx, newId))!, back);
  });
  deps.signals.rolloutsChanged(id);
  deps.signals.rolloutsChanged(view.id);
  deps.logger.info({ rolloutId: id, rollback: view.id, version: view.release.version, lockers: view.lockers.total }, 'rollout rolled back');
  return view;
}
