/**
 * A database snapshot: every table's rows, each row as JSON, sorted, so that two snapshots are
 * equal exactly when no row was added, removed or changed. Works on both engines (the table list
 * comes from the engine's catalogue).
 */
import { sql } from 'kysely';
import type { CloudDatabase } from '../../../cloud/src/db/database.js';

export type DatabaseSnapshot = ReadonlyMap<string, string>;

export async function tableNames(cdb: CloudDatabase): Promise<string[]> {
  const query =
    cdb.engine === 'postgres'
      ? sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
  const { rows } = await query.execute(cdb.db);
  return rows.map((r) => r.name).sort();
}

export async function snapshotDatabase(cdb: CloudDatabase): Promise<DatabaseSnapshot> {
  const out = new Map<string, string>();
  for (const table of await tableNames(cdb)) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(cdb.db);
    const lines = rows
      .filter((r) => !recordsRefusal(table, r))
      .map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
      .sort();
    out.set(table, lines.join('\n'));
  }
  return out;
}

/**
 * Tables that record refused requests by design and so are exempt from "a refused request changes
 * nothing": the rate-limit counters and the locks of guessed credentials (cloud/src/guard/), and
 * the marketplace calls that named an order, refused or not (the order's timeline).
 */
export const REFUSAL_RECORDS: ReadonlySet<string> = new Set<string>(['rate_counters', 'guard_locks', 'order_api_calls']);

/** Rows of other tables written by a refusal by design: the operator alert of a guessing lockout. */
function recordsRefusal(table: string, row: Record<string, unknown>): boolean {
  return table === 'locker_alerts' && row.kind === 'api.code_guessing';
}

/** The tables whose rows differ between two snapshots, but for REFUSAL_RECORDS. */
export function changedTables(before: DatabaseSnapshot, after: DatabaseSnapshot): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((t) => !REFUSAL_RECORDS.has(t) && before.get(t) !== after.get(t)).sort();
}
