/**
 * Lockers and their cells. Rows become domain values here: flags as a list, the segment and the
 * profile parsed, 0/1 as booleans. Every function takes the executor the caller holds (`cdb.db`,
 * or the `tx` of its transaction).
 */
import { CELL_FLAGS, CellFlag } from '../../../shared/src/enums.js';
import type { CellRow, LockerRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { type LockerProfile, parseProfile } from '../lockers/profile.js';

export interface Locker {
  id: number;
  name: string;
  timezone: string;
  depth: number;
  active: boolean;
  broken: boolean;
  /** Has a barcode scanner (the `scanner` filter of the locker list). */
  scanner: boolean;
  profile: LockerProfile;
  /** A sandbox locker: run by the cloud on the simulator, seen only by sandbox marketplaces. */
  sandbox: boolean;
  updatedAt: number;
}

export interface Cell {
  lockerId: number;
  id: number;
  width: number;
  height: number;
  bus: string;
  board: number;
  lock: number;
  /** Marketplaces the cell is reserved for; null when every marketplace may use it. */
  segment: string[] | null;
  /** In the protocol's order (CELL_FLAGS). */
  flags: CellFlag[];
  /** Reachable from a wheelchair (fleet file). */
  accessible: boolean;
}

/** What the fleet file sets on a locker: the locker but its id and time of change, and its MQTT password. */
export type LockerFields = Omit<Locker, 'id' | 'updatedAt'> & { mqttPasswordHash: string | null };

/** What the fleet file sets on a cell. */
export type CellFields = Omit<Cell, 'lockerId'>;

type FlagColumns = Pick<CellRow, 'faulty' | 'dirty' | 'needs_inventory' | 'blocked'>;

/** The cells column of each flag. */
export const FLAG_COLUMNS = {
  [CellFlag.Faulty]: 'faulty',
  [CellFlag.Dirty]: 'dirty',
  [CellFlag.NeedsInventory]: 'needs_inventory',
  [CellFlag.Blocked]: 'blocked',
} as const satisfies Record<CellFlag, keyof FlagColumns>;

/** The flags a cell row carries, in the protocol's order. */
export function cellFlags(row: FlagColumns): CellFlag[] {
  return CELL_FLAGS.filter((f) => !!row[FLAG_COLUMNS[f]]);
}

/** The flag columns of a cell row: 1 for each flag the cell has, 0 for the others. */
function flagColumns(flags: readonly CellFlag[]): FlagColumns {
  return Object.fromEntries(CELL_FLAGS.map((f) => [FLAG_COLUMNS[f], flags.includes(f) ? 1 : 0])) as FlagColumns;
}

function toLocker(row: LockerRow): Locker {
  return {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    depth: row.depth,
    active: !!row.active,
    broken: !!row.broken,
    scanner: !!row.scanner,
    profile: parseProfile(row.profile),
    sandbox: !!row.sandbox,
    updatedAt: row.updated_at,
  };
}

function toCell(row: CellRow): Cell {
  return {
    lockerId: row.locker_id,
    id: row.id,
    width: row.width,
    height: row.height,
    bus: row.bus,
    board: row.board,
    lock: row.lock,
    segment: row.segment === null ? null : (JSON.parse(row.segment) as string[]),
    flags: cellFlags(row),
    accessible: !!row.accessible,
  };
}

export async function findLocker(db: Tx, lockerId: number): Promise<Locker | undefined> {
  const row = await db.selectFrom('lockers').selectAll().where('id', '=', lockerId).executeTakeFirst();
  return row && toLocker(row);
}

/** A locker the caller knows exists (an order's locker: lockers are deactivated, never deleted). */
export async function lockerById(db: Tx, lockerId: number): Promise<Locker> {
  const locker = await findLocker(db, lockerId);
  if (!locker) throw new Error(`no locker ${lockerId}`);
  return locker;
}

/**
 * Active lockers by id; `scanner` keeps only those with (true) or without (false) a scanner,
 * `sandbox` only sandbox (true) or production (false) lockers.
 */
export async function activeLockers(db: Tx, filter: { scanner?: boolean | undefined; sandbox?: boolean | undefined } = {}): Promise<Locker[]> {
  let query = db.selectFrom('lockers').selectAll().where('active', '=', 1).orderBy('id');
  if (filter.scanner !== undefined) query = query.where('scanner', '=', filter.scanner ? 1 : 0);
  if (filter.sandbox !== undefined) query = query.where('sandbox', '=', filter.sandbox ? 1 : 0);
  return (await query.execute()).map(toLocker);
}

/** Every locker, active or not, by id. */
export async function allLockers(db: Tx): Promise<Locker[]> {
  return (await db.selectFrom('lockers').selectAll().orderBy('id').execute()).map(toLocker);
}

export async function lockersByIds(db: Tx, lockerIds: readonly number[]): Promise<Locker[]> {
  if (lockerIds.length === 0) return [];
  return (await db.selectFrom('lockers').selectAll().where('id', 'in', [...lockerIds]).execute()).map(toLocker);
}

/** The command types the locker's agent announced in its last hello; null: none announced; undefined: no such locker. */
export async function announcedCommandTypes(db: Tx, lockerId: number): Promise<string[] | null | undefined> {
  const row = await db.selectFrom('lockers').select('command_types').where('id', '=', lockerId).executeTakeFirst();
  if (!row) return undefined;
  return row.command_types === null ? null : (JSON.parse(row.command_types) as string[]);
}

/** Whether the locker is connected now (its presence), and the command types its agent announced; undefined: no such locker. */
export async function lockerReach(db: Tx, lockerId: number): Promise<{ online: boolean; commandTypes: string[] | null } | undefined> {
  const row = await db.selectFrom('lockers').select(['online', 'command_types']).where('id', '=', lockerId).executeTakeFirst();
  if (!row) return undefined;
  return { online: row.online === 1, commandTypes: row.command_types === null ? null : (JSON.parse(row.command_types) as string[]) };
}

/** SHA-256 hex of the locker's MQTT password; null when it has none or is unknown. */
export async function mqttPasswordHash(db: Tx, lockerId: number): Promise<string | null> {
  const row = await db.selectFrom('lockers').select('mqtt_password_hash').where('id', '=', lockerId).executeTakeFirst();
  return row?.mqtt_password_hash ?? null;
}

/** Every locker's MQTT password hash, by locker id (lockers without one are left out). */
export async function lockerMqttPasswordHashes(db: Tx): Promise<Map<number, string>> {
  const rows = await db.selectFrom('lockers').select(['id', 'mqtt_password_hash']).where('mqtt_password_hash', 'is not', null).execute();
  return new Map(rows.map((r) => [r.id, r.mqtt_password_hash!]));
}

/** Sets the MQTT password hash of a sandbox locker (the cloud that runs it made the password). */
export async function setSandboxMqttPasswordHash(db: Tx, lockerId: number, hash: string): Promise<void> {
  await db.updateTable('lockers').set({ mqtt_password_hash: hash }).where('id', '=', lockerId).where('sandbox', '=', 1).execute();
}

export async function insertLocker(db: Tx, lockerId: number, fields: LockerFields, at: number): Promise<void> {
  await db.insertInto('lockers').values({ id: lockerId, ...lockerColumns(fields), updated_at: at }).execute();
}

export async function updateLocker(db: Tx, lockerId: number, fields: LockerFields, at: number): Promise<void> {
  await db
    .updateTable('lockers')
    .set((eb) => ({ ...lockerColumns(fields), updated_at: at, occupancy_version: eb('occupancy_version', '+', 1) }))
    .where('id', '=', lockerId)
    .execute();
}

export async function deactivateLocker(db: Tx, lockerId: number, at: number): Promise<void> {
  await db
    .updateTable('lockers')
    .set((eb) => ({ active: 0, updated_at: at, occupancy_version: eb('occupancy_version', '+', 1) }))
    .where('id', '=', lockerId)
    .execute();
}

/**
 * Moves the locker's occupancy version: every write of its cells does, so that no cloud process
 * keeps using a view of them from before (lockers/occupancy-cache.ts).
 */
async function cellsChanged(db: Tx, lockerId: number): Promise<void> {
  await db
    .updateTable('lockers')
    .set((eb) => ({ occupancy_version: eb('occupancy_version', '+', 1) }))
    .where('id', '=', lockerId)
    .execute();
}

function lockerColumns(f: LockerFields) {
  return {
    name: f.name,
    timezone: f.timezone,
    depth: f.depth,
    active: f.active ? 1 : 0,
    broken: f.broken ? 1 : 0,
    scanner: f.scanner ? 1 : 0,
    profile: JSON.stringify(f.profile),
    sandbox: f.sandbox ? 1 : 0,
    // A sandbox locker's password hash is the running cloud's (setSandboxMqttPasswordHash): a reload keeps it.
    ...(f.sandbox ? {} : { mqtt_password_hash: f.mqttPasswordHash }),
  };
}

/** The locker's cells by id. */
export async function cellsOf(db: Tx, lockerId: number): Promise<Cell[]> {
  return (await db.selectFrom('cells').selectAll().where('locker_id', '=', lockerId).orderBy('id').execute()).map(toCell);
}

export async function findCell(db: Tx, lockerId: number, cellId: number): Promise<Cell | undefined> {
  const row = await db.selectFrom('cells').selectAll().where('locker_id', '=', lockerId).where('id', '=', cellId).executeTakeFirst();
  return row && toCell(row);
}

export async function saveCellFlags(db: Tx, lockerId: number, cellId: number, flags: readonly CellFlag[], at: number): Promise<void> {
  await db.updateTable('cells').set({ ...flagColumns(flags), updated_at: at }).where('locker_id', '=', lockerId).where('id', '=', cellId).execute();
  await cellsChanged(db, lockerId);
}

/**
 * Writes a cell's layout and flags, adding it when `exists` is false. The fleet reload's only: it
 * writes the locker row in the same transaction (updateLocker, insertLocker), which moves the
 * locker's occupancy version once for all its cells.
 */
export async function saveCell(db: Tx, lockerId: number, cell: CellFields, exists: boolean, at: number): Promise<void> {
  const columns = {
    width: cell.width,
    height: cell.height,
    bus: cell.bus,
    board: cell.board,
    lock: cell.lock,
    segment: cell.segment === null ? null : JSON.stringify(cell.segment),
    ...flagColumns(cell.flags),
    accessible: cell.accessible ? 1 : 0,
    updated_at: at,
  };
  if (exists) await db.updateTable('cells').set(columns).where('locker_id', '=', lockerId).where('id', '=', cell.id).execute();
  else await db.insertInto('cells').values({ locker_id: lockerId, id: cell.id, ...columns }).execute();
}

/** The fleet reload's only, like saveCell. */
export async function deleteCells(db: Tx, lockerId: number, cellIds: readonly number[]): Promise<void> {
  if (cellIds.length === 0) return;
  await db.deleteFrom('cells').where('locker_id', '=', lockerId).where('id', 'in', [...cellIds]).execute();
}
