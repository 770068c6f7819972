/**
 * Rollouts and their lockers (tables rollouts, rollout_lockers): what the conductor
 * (updates/conductor.ts), the agents' reports (updates/agent-reports.ts) and the operator's
 * views read and write. A member's row changes only under conditions on its current state or
 * report time, so a late write never undoes a fresher one.
 */
import { sql, type Selectable } from 'kysely';
import type { RolloutLockersTable } from '../db/schema.js';
import type { UpdateReport } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';
import { ACTIVE_ROLLOUT_STATES, CANCELLABLE_MEMBER_STATES, FAILED_MEMBER_STATES, FINAL_MEMBER_STATES, type MemberState, type RolloutState } from '../updates/states.js';

export type RolloutTarget = { kind: 'all' } | { kind: 'lockers'; lockerIds: number[] } | { kind: 'city'; city: string };

export interface Rollout {
  id: number;
  releaseId: number;
  target: RolloutTarget;
  /** Cumulative percentages of the waves as given. */
  waves: number[];
  soakSeconds: number;
  healthWindowSeconds: number;
  maxFailurePercent: number;
  state: RolloutState;
  /** The wave under way (0-based). */
  wave: number;
  waveStartedAt: number;
  waveSettledAt: number | null;
  haltReason: string | null;
  failuresSince: number;
  rollbackOf: number | null;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
}

export interface RolloutMember {
  rolloutId: number;
  lockerId: number;
  wave: number;
  position: number;
  state: MemberState;
  reason: string | null;
  bytes: number | null;
  offeredAt: number | null;
  heardAt: number | null;
  switchedAt: number | null;
  finishedAt: number | null;
}

type RolloutRow = {
  id: number;
  release_id: number;
  target: string;
  waves: string;
  soak_seconds: number;
  health_window_seconds: number;
  max_failure_percent: number;
  state: string;
  wave: number;
  wave_started_at: number;
  wave_settled_at: number | null;
  halt_reason: string | null;
  failures_since: number;
  rollback_of: number | null;
  created_at: number;
  created_by: string;
  updated_at: number;
};

function toRollout(r: RolloutRow): Rollout {
  return {
    id: Number(r.id),
    releaseId: Number(r.release_id),
    target: JSON.parse(r.target) as RolloutTarget,
    waves: JSON.parse(r.waves) as number[],
    soakSeconds: r.soak_seconds,
    healthWindowSeconds: r.health_window_seconds,
    maxFailurePercent: r.max_failure_percent,
    state: r.state as RolloutState,
    wave: r.wave,
    waveStartedAt: Number(r.wave_started_at),
    waveSettledAt: r.wave_settled_at === null ? null : Number(r.wave_settled_at),
    haltReason: r.halt_reason,
    failuresSince: Number(r.failures_since),
    rollbackOf: r.rollback_of === null ? null : Number(r.rollback_of),
    createdAt: Number(r.created_at),
    createdBy: r.created_by,
    updatedAt: Number(r.updated_at),
  };
}

const num = (v: number | string | bigint | null): number | null => (v === null ? null : Number(v));

export interface NewRollout {
  releaseId: number;
  target: RolloutTarget;
  waves: number[];
  soakSeconds: number;
  healthWindowSeconds: number;
  maxFailurePercent: number;
  rollbackOf: number | null;
  at: number;
  createdBy: string;
}

export async function insertRollout(db: Tx, r: NewRollout, members: readonly { lockerId: number; wave: number }[]): Promise<number> {
  const row = await db
    .insertInto('rollouts')
    .values({
      release_id: r.releaseId,
      target: JSON.stringify(r.target),
      waves: JSON.stringify(r.waves),
      soak_seconds: r.soakSeconds,
      health_window_seconds: r.healthWindowSeconds,
      max_failure_percent: r.maxFailurePercent,
      state: 'running',
      wave: 0,
      wave_started_at: r.at,
      wave_settled_at: null,
      halt_reason: null,
      failures_since: r.at,
      rollback_of: r.rollbackOf,
      created_at: r.at,
      created_by: r.createdBy,
      updated_at: r.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  const rows = members.map((m, position) => ({ rollout_id: id, locker_id: m.lockerId, wave: m.wave, position, state: 'pending' }));
  // Bounded statements: SQLite allows at most 32766 parameters per statement.
  for (let i = 0; i < rows.length; i += 1000) await db.insertInto('rollout_lockers').values(rows.slice(i, i + 1000)).execute();
  return id;
}

export async function rolloutById(db: Tx, id: number): Promise<Rollout | undefined> {
  const row = await db.selectFrom('rollouts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRollout(row);
}

/**
 * Holds the rollout's row for the rest of the transaction (PostgreSQL: FOR UPDATE, SKIP LOCKED
 * when `skipLocked`, so a second process moving the same rollout passes it by; SQLite: the
 * transaction holds the database). Undefined when absent or held elsewhere.
 */
export async function lockRollout(db: Tx, id: number, engine: 'sqlite' | 'postgres', skipLocked: boolean): Promise<Rollout | undefined> {
  let q = db.selectFrom('rollouts').selectAll().where('id', '=', id);
  if (engine === 'postgres') q = skipLocked ? q.forUpdate().skipLocked() : q.forUpdate();
  const row = await q.executeTakeFirst();
  return row && toRollout(row);
}

export async function activeRolloutIds(db: Tx): Promise<number[]> {
  const rows = await db.selectFrom('rollouts').select('id').where('state', 'in', [...ACTIVE_ROLLOUT_STATES]).orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

export async function listRollouts(db: Tx, q: { offset: number; limit: number; state?: RolloutState | undefined }): Promise<{ items: Rollout[]; total: number }> {
  let base = db.selectFrom('rollouts');
  if (q.state) base = base.where('state', '=', q.state);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute();
  return { items: rows.map(toRollout), total: Number(total.n) };
}

export async function updateRollout(
  db: Tx,
  id: number,
  fields: Partial<Pick<Rollout, 'state' | 'wave' | 'waveStartedAt' | 'waveSettledAt' | 'haltReason' | 'failuresSince'>>,
  at: number,
): Promise<void> {
  await db
    .updateTable('rollouts')
    .set({
      ...(fields.state !== undefined ? { state: fields.state } : {}),
      ...(fields.wave !== undefined ? { wave: fields.wave } : {}),
      ...(fields.waveStartedAt !== undefined ? { wave_started_at: fields.waveStartedAt } : {}),
      ...(fields.waveSettledAt !== undefined ? { wave_settled_at: fields.waveSettledAt } : {}),
      ...(fields.haltReason !== undefined ? { halt_reason: fields.haltReason } : {}),
      ...(fields.failuresSince !== undefined ? { failures_since: fields.failuresSince } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
}

/** Members per wave and state. */
export async function memberCounts(db: Tx, rolloutId: number): Promise<{ wave: number; state: MemberState; n: number }[]> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .select(['wave', 'state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('rollout_id', '=', rolloutId)
    .groupBy(['wave', 'state'])
    .execute();
  return rows.map((r) => ({ wave: r.wave, state: r.state as MemberState, n: Number(r.n) }));
}

/** Failures per wave since `since` (what counts toward a halt). */
export async function failuresByWave(db: Tx, rolloutId: number, since: number): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .select(['wave', (eb) => eb.fn.countAll<number>().as('n')])
    .where('rollout_id', '=', rolloutId)
    .where('state', 'in', [...FAILED_MEMBER_STATES])
    .where('finished_at', '>=', since)
    .groupBy('wave')
    .execute();
  return new Map(rows.map((r) => [r.wave, Number(r.n)]));
}

/**
 * Members up to `maxWave` that still hold their wave: not finished, and either online (they can
 * act now) or switched (a new version that never came back is a failure, not an absence).
 */
export async function holdingMembers(db: Tx, rolloutId: number, maxWave: number): Promise<number> {
  const row = await db
    .selectFrom('rollout_lockers')
    .innerJoin('lockers', 'lockers.id', 'rollout_lockers.locker_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('rollout_lockers.rollout_id', '=', rolloutId)
    .where('rollout_lockers.wave', '<=', maxWave)
    .where('rollout_lockers.state', 'not in', [...FINAL_MEMBER_STATES])
    .where((eb) => eb.or([eb('lockers.online', '=', 1), eb('rollout_lockers.state', '=', 'switching')]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function unfinishedMembers(db: Tx, rolloutId: number): Promise<number> {
  const row = await db
    .selectFrom('rollout_lockers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('rollout_id', '=', rolloutId)
    .where('state', 'not in', [...FINAL_MEMBER_STATES])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface OfferCandidate {
  lockerId: number;
  state: MemberState;
  /** What its agent last said (null: nothing since this cloud learned of versions: an older agent). */
  agentVersion: string | null;
  agentUpdates: boolean | null;
}

/**
 * Online members up to `maxWave`, not finished, neither offered nor heard from since `quietSince`
 * (so a locker working on its update is not offered again while it reports).
 */
export async function offerCandidates(db: Tx, rolloutId: number, maxWave: number, quietSince: number, limit: number): Promise<OfferCandidate[]> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .innerJoin('lockers', 'lockers.id', 'rollout_lockers.locker_id')
    .leftJoin('locker_agents', 'locker_agents.locker_id', 'rollout_lockers.locker_id')
    .select(['rollout_lockers.locker_id', 'rollout_lockers.state', 'locker_agents.version', 'locker_agents.updates'])
    .where('rollout_lockers.rollout_id', '=', rolloutId)
    .where('rollout_lockers.wave', '<=', maxWave)
    .where('rollout_lockers.state', 'not in', [...FINAL_MEMBER_STATES, 'switching'])
    .where('lockers.online', '=', 1)
    .where((eb) => eb.or([eb('rollout_lockers.offered_at', 'is', null), eb('rollout_lockers.offered_at', '<', quietSince)]))
    .where((eb) => eb.or([eb('rollout_lockers.heard_at', 'is', null), eb('rollout_lockers.heard_at', '<', quietSince)]))
    .orderBy('rollout_lockers.position')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    lockerId: r.locker_id,
    state: r.state as MemberState,
    agentVersion: r.version ?? null,
    agentUpdates: r.updates === null ? null : !!r.updates,
  }));
}

/** The offer went out now: a pending member becomes offered. */
export async function markOffered(db: Tx, rolloutId: number, lockerIds: readonly number[], at: number): Promise<void> {
  if (lockerIds.length === 0) return;
  for (let i = 0; i < lockerIds.length; i += 1000) {
    const ids = lockerIds.slice(i, i + 1000);
    await db
      .updateTable('rollout_lockers')
      .set({ offered_at: at, state: sql<string>`case when state = 'pending' then 'offered' else state end` })
      .where('rollout_id', '=', rolloutId)
      .where('locker_id', 'in', ids)
      .execute();
  }
}

/** Sets a member's state when it is still in one of `from`; true when it changed. */
export async function setMemberState(
  db: Tx,
  rolloutId: number,
  lockerId: number,
  from: readonly MemberState[],
  to: { state: MemberState; reason: string | null },
  at: number,
): Promise<boolean> {
  const final = (FINAL_MEMBER_STATES as readonly string[]).includes(to.state);
  const res = await db
    .updateTable('rollout_lockers')
    .set({ state: to.state, reason: to.reason, finished_at: final ? at : null, heard_at: at })
    .where('rollout_id', '=', rolloutId)
    .where('locker_id', '=', lockerId)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Every member in one of `from` moves to `to` (an operator's pause, resume or abort). */
export async function setMembersState(db: Tx, rolloutId: number, from: readonly MemberState[], to: { state: MemberState; reason: string | null }, at: number): Promise<number> {
  const final = (FINAL_MEMBER_STATES as readonly string[]).includes(to.state);
  const res = await db
    .updateTable('rollout_lockers')
    .set({ state: to.state, reason: to.reason, finished_at: final ? at : null, ...(to.state === 'pending' ? { offered_at: null, heard_at: null } : {}) })
    .where('rollout_id', '=', rolloutId)
    .where('state', 'in', [...from])
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Members that switched before `before` and never reported again. */
export async function overdueSwitches(db: Tx, rolloutId: number, before: number): Promise<number[]> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .select('locker_id')
    .where('rollout_id', '=', rolloutId)
    .where('state', '=', 'switching')
    .where('switched_at', '<', before)
    .execute();
  return rows.map((r) => r.locker_id);
}

/** Online members under way and not switched (a pause, halt or abort tells them to stop). */
export async function cancellableOnline(db: Tx, rolloutId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .innerJoin('lockers', 'lockers.id', 'rollout_lockers.locker_id')
    .select('rollout_lockers.locker_id')
    .where('rollout_lockers.rollout_id', '=', rolloutId)
    .where('rollout_lockers.state', 'in', [...CANCELLABLE_MEMBER_STATES])
    .where('lockers.online', '=', 1)
    .execute();
  return rows.map((r) => r.locker_id);
}

/** A rollout_lockers row as the services see it. */
function memberFromRow(r: Selectable<RolloutLockersTable>): RolloutMember {
  return {
    rolloutId: Number(r.rollout_id),
    lockerId: r.locker_id,
    wave: r.wave,
    position: r.position,
    state: r.state as MemberState,
    reason: r.reason,
    bytes: num(r.bytes),
    offeredAt: num(r.offered_at),
    heardAt: num(r.heard_at),
    switchedAt: num(r.switched_at),
    finishedAt: num(r.finished_at),
  };
}

export async function memberOf(db: Tx, rolloutId: number, lockerId: number): Promise<RolloutMember | undefined> {
  const r = await db.selectFrom('rollout_lockers').selectAll().where('rollout_id', '=', rolloutId).where('locker_id', '=', lockerId).executeTakeFirst();
  return r && memberFromRow(r);
}

/**
 * An agent's report on its member row, unless the row has a later report already (the agent's
 * clock orders its own reports). The cloud's clock stamps when it heard, switched and finished.
 * Returns the state before and after, or undefined when the locker is not in that rollout or the
 * report is older.
 */
export async function applyMemberReport(db: Tx, lockerId: number, report: UpdateReport, at: number): Promise<{ before: MemberState; after: MemberState } | undefined> {
  const member = await memberOf(db, report.rolloutId, lockerId);
  if (!member) return undefined;
  const current = await db
    .selectFrom('rollout_lockers')
    .select('reported_at')
    .where('rollout_id', '=', report.rolloutId)
    .where('locker_id', '=', lockerId)
    .executeTakeFirstOrThrow();
  if (current.reported_at !== null && Number(current.reported_at) > report.at) return undefined;
  const final = (FINAL_MEMBER_STATES as readonly string[]).includes(report.state);
  await db
    .updateTable('rollout_lockers')
    .set({
      state: report.state,
      reason: report.reason ?? null,
      bytes: report.bytes ?? null,
      reported_at: report.at,
      heard_at: at,
      switched_at: report.state === 'switching' ? (member.switchedAt ?? at) : member.switchedAt,
      finished_at: final ? (member.state === report.state && member.finishedAt !== null ? member.finishedAt : at) : null,
    })
    .where('rollout_id', '=', report.rolloutId)
    .where('locker_id', '=', lockerId)
    .execute();
  return { before: member.state, after: report.state };
}

/** The active rollouts (running first, oldest first) in which this locker has not finished. */
export async function unfinishedMemberships(db: Tx, lockerId: number): Promise<{ rolloutId: number; wave: number; state: MemberState }[]> {
  const rows = await db
    .selectFrom('rollout_lockers')
    .innerJoin('rollouts', 'rollouts.id', 'rollout_lockers.rollout_id')
    .select(['rollout_lockers.rollout_id', 'rollout_lockers.wave', 'rollout_lockers.state'])
    .where('rollout_lockers.locker_id', '=', lockerId)
    .where('rollouts.state', 'in', [...ACTIVE_ROLLOUT_STATES])
    .where('rollout_lockers.state', 'not in', [...FINAL_MEMBER_STATES])
    .orderBy('rollouts.id')
    .execute();
  return rows.map((r) => ({ rolloutId: Number(r.rollout_id), wave: r.wave, state: r.state as MemberState }));
}

/** Of these lockers, those with an unfinished place in an active rollout. */
export async function busyLockers(db: Tx, lockerIds: readonly number[]): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < lockerIds.length; i += 1000) {
    const rows = await db
      .selectFrom('rollout_lockers')
      .innerJoin('rollouts', 'rollouts.id', 'rollout_lockers.rollout_id')
      .select('rollout_lockers.locker_id')
      .where('rollout_lockers.locker_id', 'in', lockerIds.slice(i, i + 1000))
      .where('rollouts.state', 'in', [...ACTIVE_ROLLOUT_STATES])
      .where('rollout_lockers.state', 'not in', [...FINAL_MEMBER_STATES])
      .execute();
    out.push(...rows.map((r) => r.locker_id));
  }
  return [...new Set(out)];
}

/** Lockers of a rollout in one of `states`, in rollout order. */
export async function memberIdsIn(db: Tx, rolloutId: number, states: readonly MemberState[]): Promise<number[]> {
  const rows = await db.selectFrom('rollout_lockers').select('locker_id').where('rollout_id', '=', rolloutId).where('state', 'in', [...states]).orderBy('position').execute();
  return rows.map((r) => r.locker_id);
}

export interface MemberView extends RolloutMember {
  name: string | null;
  online: boolean;
  agentVersion: string | null;
}

/** A page of a rollout's lockers in rollout order, with each locker's name, presence and version. */
export async function memberPage(
  db: Tx,
  rolloutId: number,
  q: { state?: MemberState | undefined; wave?: number | undefined; offset: number; limit: number },
): Promise<{ items: MemberView[]; total: number }> {
  let base = db.selectFrom('rollout_lockers').where('rollout_lockers.rollout_id', '=', rolloutId);
  if (q.state) base = base.where('rollout_lockers.state', '=', q.state);
  if (q.wave !== undefined) base = base.where('rollout_lockers.wave', '=', q.wave);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .leftJoin('lockers', 'lockers.id', 'rollout_lockers.locker_id')
    .leftJoin('locker_agents', 'locker_agents.locker_id', 'rollout_lockers.locker_id')
    .selectAll('rollout_lockers')
    .select(['lockers.name', 'lockers.online', 'locker_agents.version'])
    .orderBy('rollout_lockers.position')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  return {
    total: Number(total.n),
    items: rows.map((r) => ({
      ...memberFromRow(r),
      name: r.name ?? null,
      online: !!r.online,
      agentVersion: r.version ?? null,
    })),
  };
}

/** May this locker download this artifact: a member of a rollout of its release that was not aborted. */
export async function mayDownload(db: Tx, lockerId: number, releaseId: number): Promise<boolean> {
  const row = await db
    .selectFrom('rollout_lockers')
    .innerJoin('rollouts', 'rollouts.id', 'rollout_lockers.rollout_id')
    .select('rollout_lockers.locker_id')
    .where('rollout_lockers.locker_id', '=', lockerId)
    .where('rollouts.release_id', '=', releaseId)
    .where('rollouts.state', '!=', 'aborted')
    .executeTakeFirst();
  return row !== undefined;
}
