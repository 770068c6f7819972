/**
 * What each locker's agent last said of its software (table locker_agents): its version and
 * whether it installs releases, from its hello, its presence and its update reports.
 */
import type { Tx } from '../db/transaction.js';

export interface LockerAgent {
  lockerId: number;
  version: string;
  updates: boolean;
  reportedAt: number;
}

/** `updates` undefined: keep what is known (a presence says only the version). */
export async function saveLockerAgent(db: Tx, lockerId: number, version: string, updates: boolean | undefined, at: number): Promise<void> {
  await db
    .insertInto('locker_agents')
    .values({ locker_id: lockerId, version, updates: updates ? 1 : 0, reported_at: at })
    .onConflict((oc) => oc.column('locker_id').doUpdateSet({ version, reported_at: at, ...(updates === undefined ? {} : { updates: updates ? 1 : 0 }) }))
    .execute();
}

export async function lockerAgentOf(db: Tx, lockerId: number): Promise<LockerAgent | undefined> {
  const r = await db.selectFrom('locker_agents').selectAll().where('locker_id', '=', lockerId).executeTakeFirst();
  return r && { lockerId: r.locker_id, version: r.version, updates: !!r.updates, reportedAt: Number(r.reported_at) };
}

/** Active lockers per running version (null: never said). */
export async function versionCounts(db: Tx): Promise<{ version: string | null; n: number }[]> {
  const rows = await db
    .selectFrom('lockers')
    .leftJoin('locker_agents', 'locker_agents.locker_id', 'lockers.id')
    .select(['locker_agents.version', (eb) => eb.fn.countAll<number>().as('n')])
    .where('lockers.active', '=', 1)
    .groupBy('locker_agents.version')
    .execute();
  return rows.map((r) => ({ version: r.version ?? null, n: Number(r.n) }));
}

export interface AgentView {
  lockerId: number;
  name: string;
  online: boolean;
  version: string | null;
  updates: boolean | null;
  reportedAt: number | null;
}

/** Lockers with their agent's version, by id; `version` keeps those running it. */
export async function agentPage(db: Tx, q: { version?: string | undefined; offset: number; limit: number }): Promise<{ items: AgentView[]; total: number }> {
  let base = db.selectFrom('lockers').leftJoin('locker_agents', 'locker_agents.locker_id', 'lockers.id').where('lockers.active', '=', 1);
  if (q.version !== undefined) base = base.where('locker_agents.version', '=', q.version);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .select(['lockers.id', 'lockers.name', 'lockers.online', 'locker_agents.version', 'locker_agents.updates', 'locker_agents.reported_at'])
    .orderBy('lockers.id')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  return {
    total: Number(total.n),
    items: rows.map((r) => ({
      lockerId: r.id,
      name: r.name,
      online: !!r.online,
      version: r.version ?? null,
      updates: r.updates === null ? null : !!r.updates,
      reportedAt: r.reported_at === null ? null : Number(r.reported_at),
    })),
  };
}
