/**
 * Operators: their role (from the fleet file), their console sessions (only the SHA-256 of a
 * session's token is stored) and the audit log of what they did. Every function takes the
 * executor the caller holds (`cdb.db` or a `tx`); an audited action writes its entry with the
 * `tx` of the change.
 */
import type { Tx } from '../db/transaction.js';

export const OPERATOR_ROLES = ['viewer', 'operator'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export interface OperatorSession {
  operator: string;
  role: OperatorRole;
  csrfToken: string;
  expiresAt: number;
}

export interface AuditEntry {
  id: number;
  at: number;
  operator: string;
  action: string;
  target: string;
  reason: string | null;
  note: string | null;
  lockerId: number | null;
  orderId: string | null;
  detail: unknown;
}

/** What the audit log is filtered by: each given one narrows it; `from` inclusive, `to` exclusive (epoch ms). */
export interface AuditFilter {
  operator?: string | undefined;
  target?: string | undefined;
  lockerId?: number | undefined;
  orderId?: string | undefined;
  action?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'detail'> & { detail: Record<string, unknown> };

function roleOf(role: string | null | undefined): OperatorRole {
  // An operator key without a row (older database, a key given by hand) keeps the full rights it had.
  return role === 'viewer' ? 'viewer' : 'operator';
}

/** Replaces the operators with the fleet file's; sessions of operators no longer listed end. */
export async function replaceOperators(db: Tx, operators: readonly { name: string; role: OperatorRole }[]): Promise<void> {
  await db.deleteFrom('operators').execute();
  if (operators.length > 0) await db.insertInto('operators').values(operators.map((o) => ({ name: o.name, role: o.role }))).execute();
  const names = operators.map((o) => o.name);
  let ended = db.deleteFrom('operator_sessions');
  if (names.length > 0) ended = ended.where('operator', 'not in', names);
  await ended.execute();
}

export async function operatorRole(db: Tx, name: string): Promise<OperatorRole> {
  const row = await db.selectFrom('operators').select('role').where('name', '=', name).executeTakeFirst();
  return roleOf(row?.role);
}

export async function insertSession(db: Tx, s: { tokenHash: string; operator: string; csrfToken: string; createdAt: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('operator_sessions')
    .values({ token_hash: s.tokenHash, operator: s.operator, csrf_token: s.csrfToken, created_at: s.createdAt, expires_at: s.expiresAt })
    .execute();
}

/** The live session of this token hash with its operator's current role; undefined when unknown or expired. */
export async function findSession(db: Tx, tokenHash: string, now: number): Promise<OperatorSession | undefined> {
  const row = await db
    .selectFrom('operator_sessions')
    .leftJoin('operators', 'operators.name', 'operator_sessions.operator')
    .select(['operator_sessions.operator', 'operator_sessions.csrf_token', 'operator_sessions.expires_at', 'operators.role'])
    .where('operator_sessions.token_hash', '=', tokenHash)
    .where('operator_sessions.expires_at', '>', now)
    .executeTakeFirst();
  return row && { operator: row.operator, role: roleOf(row.role), csrfToken: row.csrf_token, expiresAt: Number(row.expires_at) };
}

/** Moves the session's idle expiry forward. */
export async function touchSession(db: Tx, tokenHash: string, expiresAt: number): Promise<void> {
  await db.updateTable('operator_sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Tx, tokenHash: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends the operator's sessions but the `keep` newest (by sign-in time). */
export async function keepNewestSessions(db: Tx, operator: string, keep: number): Promise<void> {
  const older = await db
    .selectFrom('operator_sessions')
    .select('token_hash')
    .where('operator', '=', operator)
    .orderBy('created_at', 'desc')
    .orderBy('token_hash')
    .offset(keep)
    .limit(1_000_000)
    .execute();
  if (older.length === 0) return;
  await db.deleteFrom('operator_sessions').where('token_hash', 'in', older.map((r) => r.token_hash)).execute();
}

export async function deleteExpiredSessions(db: Tx, now: number): Promise<void> {
  await db.deleteFrom('operator_sessions').where('expires_at', '<=', now).execute();
}

export async function insertAudit(db: Tx, e: NewAuditEntry): Promise<void> {
  await db
    .insertInto('operator_audit')
    .values({
      at: e.at,
      operator: e.operator,
      action: e.action,
      target: e.target,
      reason: e.reason,
      note: e.note,
      locker_id: e.lockerId,
      order_id: e.orderId,
      detail: JSON.stringify(e.detail),
    })
    .execute();
}

/** Newest first, a page of it, and the total. */
export async function auditPage(db: Tx, q: AuditFilter & { offset: number; limit: number }): Promise<{ items: AuditEntry[]; total: number }> {
  let base = db.selectFrom('operator_audit');
  if (q.operator !== undefined) base = base.where('operator', '=', q.operator);
  if (q.target !== undefined) base = base.where('target', '=', q.target);
  if (q.lockerId !== undefined) base = base.where('locker_id', '=', q.lockerId);
  if (q.orderId !== undefined) base = base.where('order_id', '=', q.orderId);
  if (q.action !== undefined) base = base.where('action', '=', q.action);
  if (q.from !== undefined) base = base.where('at', '>=', q.from);
  if (q.to !== undefined) base = base.where('at', '<', q.to);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await base.selectAll().orderBy('id', 'desc').offset(q.offset).limit(q.limit).execute();
  return {
    total: Number(total.n),
    items: rows.map((r) => ({ id: Number(r.id), at: Number(r.at), operator: r.operator, action: r.action, target: r.target, reason: r.reason,
      note: r.note,
      lockerId: r.locker_id === null ? null : Number(r.locker_id),
      orderId: r.order_id,
      detail: JSON.parse(r.detail) as unknown,
    })),
  };
}
