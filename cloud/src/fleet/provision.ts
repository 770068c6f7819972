/**
 * Applies a fleet file to the database, at start and on every reload, without touching orders.
 *
 * - Marketplaces, partners and lockers are upserted; those missing from the file are deactivated
 *   (never deleted: their orders stay readable). API keys are replaced by the file's.
 * - Cells are upserted. A cell missing from the file is deleted only when no parcel holds or has
 *   reserved it; otherwise the whole reload is refused, naming the cells (nothing changes).
 * - Cell flags in the file are added; a reload never clears a flag (the operator API does).
 * - A locker whose layout (cells, addresses, flags, depth, time zone) changed gets a
 *   `locker.config` command.
 * Everything commits in one transaction; on PostgreSQL an advisory lock serialises reloads of
 * several cloud processes.
 */
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { z } from 'zod';
import { ParcelState } from '../../../shared/src/enums.js';
import type { CloudDatabase } from '../db/database.js';
import type { CellRow, LockerRow } from '../db/schema.js';
import { lockerTransaction, type Tx } from '../db/transaction.js';
import { lockerConfig, cellFlags, flagColumns } from '../lockers/cells.js';
import type { LockerProfile } from '../lockers/profile.js';
import { recordChange, type LockerCommandDraft } from '../outbox/record-change.js';
import { type Fleet, type FleetLocker, fleetSchema } from './fleet-schema.js';

export class FleetError extends Error {
  override readonly name = 'FleetError';
}

export interface ProvisionReport {
  lockers: { added: number[]; updated: number[]; deactivated: number[] };
  marketplaces: number;
  partners: number;
  /** Lockers that received a `locker.config` command. */
  configChanged: number[];
}

/** Reads and validates a fleet file; the error names the file and every wrong field. */
export async function readFleetFile(path: string): Promise<Fleet> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new FleetError(`fleet file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = fleetSchema.safeParse(raw);
  if (!parsed.success) throw new FleetError(`fleet file ${path} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

const FLEET_LOCK_KEY = 734_201; // any constant: names the advisory lock of fleet reloads

async function fleetTransaction<T>(cdb: CloudDatabase, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (cdb.engine === 'sqlite') return lockerTransaction(cdb, [], fn);
  return cdb.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${FLEET_LOCK_KEY})`.execute(tx);
    await tx.selectFrom('lockers').select('id').orderBy('id').forUpdate().execute();
    return fn(tx);
  });
}

function profileOf(locker: FleetLocker): LockerProfile {
  return {
    workTime: locker.workTime,
    workTimeProfile: locker.workTimeProfile,
    specialDays: locker.specialDays,
    find: locker.find,
    photos: locker.photos,
    location: locker.location,
    equipment: locker.equipment,
    access: locker.access,
    mosRegistryId: locker.mosRegistryId,
    ...(locker.boardFamily ? { boardFamily: locker.boardFamily } : {}),
  };
}

export async function provisionFleet(cdb: CloudDatabase, fleet: Fleet, at: number): Promise<ProvisionReport> {
  const report: ProvisionReport = {
    lockers: { added: [], updated: [], deactivated: [] },
    marketplaces: fleet.marketplaces.length,
    partners: fleet.partners.length,
    configChanged: [],
  };
  await fleetTransaction(cdb, async (tx) => {
    await provisionMarketplaces(tx, fleet, at);
    await provisionPartners(tx, fleet, at);
    await provisionKeys(tx, fleet);
    const commands: LockerCommandDraft[] = [];
    const existing = new Map((await tx.selectFrom('lockers').selectAll().execute()).map((l) => [l.id, l]));
    for (const locker of fleet.lockers) {
      const before = existing.get(locker.id);
      const oldCells = before ? await tx.selectFrom('cells').selectAll().where('locker_id', '=', locker.id).execute() : [];
      const oldConfig = before ? JSON.stringify(lockerConfig(before, oldCells)) : null;
      const values = {
        name: locker.name,
        timezone: locker.timezone,
        depth: locker.depth,
        active: locker.active ? 1 : 0,
        broken: locker.broken ? 1 : 0,
        scanner: locker.equipment.barcodeScanner ? 1 : 0,
        profile: JSON.stringify(profileOf(locker)),
        mqtt_password_hash: locker.mqttPasswordSha256 ?? null,
        updated_at: at,
      };
      if (before) {
        await tx.updateTable('lockers').set(values).where('id', '=', locker.id).execute();
        report.lockers.updated.push(locker.id);
      } else {
        await tx.insertInto('lockers').values({ id: locker.id, ...values }).execute();
        report.lockers.added.push(locker.id);
      }
      await provisionCells(tx, locker, oldCells, at);
      const after = await tx.selectFrom('lockers').selectAll().where('id', '=', locker.id).executeTakeFirstOrThrow();
      const newCells = await tx.selectFrom('cells').selectAll().where('locker_id', '=', locker.id).execute();
      const config = lockerConfig(after, newCells);
      if (JSON.stringify(config) !== oldConfig) {
        commands.push({ lockerId: locker.id, body: { type: 'locker.config', config } });
        report.configChanged.push(locker.id);
      }
    }
    const inFleet = new Set(fleet.lockers.map((l) => l.id));
    const gone: LockerRow[] = [...existing.values()].filter((l) => !inFleet.has(l.id) && l.active);
    for (const locker of gone) {
      await tx.updateTable('lockers').set({ active: 0, updated_at: at }).where('id', '=', locker.id).execute();
      report.lockers.deactivated.push(locker.id);
    }
    await recordChange(tx, { at, commands });
  });
  return report;
}

async function provisionCells(tx: Tx, locker: FleetLocker, oldCells: readonly CellRow[], at: number): Promise<void> {
  const wanted = new Map(locker.cells.map((c) => [c.id, c]));
  const removed = oldCells.filter((c) => !wanted.has(c.id)).map((c) => c.id);
  if (removed.length > 0) {
    const holders = await tx
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select(['parcels.cell_id', 'orders.external_id'])
      .where('orders.locker_id', '=', locker.id)
      .where('parcels.cell_id', 'in', removed)
      .where('parcels.state', 'in', [ParcelState.Pending, ParcelState.Loaded, ParcelState.AwaitingReturn])
      .execute();
    if (holders.length > 0) {
      const cells = [...new Set(holders.map((h) => h.cell_id))].sort((a, b) => Number(a) - Number(b));
      throw new FleetError(
        `locker ${locker.id}: cells ${cells.join(', ')} are missing from the fleet file but hold or are reserved for parcels; ` +
          'keep them in the file until they are empty',
      );
    }
    await tx.deleteFrom('cells').where('locker_id', '=', locker.id).where('id', 'in', removed).execute();
  }
  const old = new Map(oldCells.map((c) => [c.id, c]));
  for (const cell of locker.cells) {
    const layout = {
      width: cell.width,
      height: cell.height,
      bus: cell.bus,
      board: cell.board,
      lock: cell.lock,
      segment: cell.segment ? JSON.stringify([...cell.segment].sort()) : null,
    };
    const before = old.get(cell.id);
    if (before) {
      const flags = flagColumns([...new Set([...cellFlags(before), ...cell.flags])]);
      await tx.updateTable('cells').set({ ...layout, ...flags, updated_at: at }).where('locker_id', '=', locker.id).where('id', '=', cell.id).execute();
    } else {
      await tx.insertInto('cells').values({ locker_id: locker.id, id: cell.id, ...layout, ...flagColumns(cell.flags), updated_at: at }).execute();
    }
  }
}

async function provisionMarketplaces(tx: Tx, fleet: Fleet, at: number): Promise<void> {
  const existing = new Set((await tx.selectFrom('marketplaces').select('id').execute()).map((m) => m.id));
  for (const m of fleet.marketplaces) {
    const values = {
      name: m.name,
      active: m.active ? 1 : 0,
      organization_active: m.organizationActive ? 1 : 0,
      receiver_url: m.receiver?.url ?? null,
      receiver_login: m.receiver?.login ?? null,
      receiver_password: m.receiver?.password ?? null,
      receiver_ca_file: m.receiver?.caFile ?? null,
      body_form: m.receiver?.bodyForm ?? 'object',
      hmac_secret: m.receiver?.hmacSecret ?? null,
      storage_period_hours: m.storagePeriodHours,
      rate_limits: m.rateLimits ? JSON.stringify(m.rateLimits) : null,
      updated_at: at,
    };
    if (existing.has(m.id)) await tx.updateTable('marketplaces').set(values).where('id', '=', m.id).execute();
    else await tx.insertInto('marketplaces').values({ id: m.id, ...values }).execute();
  }
  const ids = fleet.marketplaces.map((m) => m.id);
  let gone = tx.updateTable('marketplaces').set({ active: 0, updated_at: at }).where('active', '=', 1);
  if (ids.length > 0) gone = gone.where('id', 'not in', ids);
  await gone.execute();
}

async function provisionPartners(tx: Tx, fleet: Fleet, at: number): Promise<void> {
  const existing = new Set((await tx.selectFrom('partners').select('id').execute()).map((p) => p.id));
  for (const p of fleet.partners) {
    const values = { name: p.name, active: p.active ? 1 : 0, rate_limits: p.rateLimits ? JSON.stringify(p.rateLimits) : null, updated_at: at };
    if (existing.has(p.id)) await tx.updateTable('partners').set(values).where('id', '=', p.id).execute();
    else await tx.insertInto('partners').values({ id: p.id, ...values }).execute();
  }
  const ids = fleet.partners.map((p) => p.id);
  let gone = tx.updateTable('partners').set({ active: 0, updated_at: at }).where('active', '=', 1);
  if (ids.length > 0) gone = gone.where('id', 'not in', ids);
  await gone.execute();
  await tx.deleteFrom('partner_marketplaces').execute();
  await tx.deleteFrom('partner_lockers').execute();
  const links = fleet.partners.flatMap((p) => [...new Set(p.marketplaces)].map((m) => ({ partner_id: p.id, marketplace_id: m })));
  if (links.length > 0) await tx.insertInto('partner_marketplaces').values(links).execute();
  const lockers = fleet.partners.flatMap((p) => [...new Set(p.lockers)].map((l) => ({ partner_id: p.id, locker_id: l })));
  if (lockers.length > 0) await tx.insertInto('partner_lockers').values(lockers).execute();
}

async function provisionKeys(tx: Tx, fleet: Fleet): Promise<void> {
  await tx.deleteFrom('api_keys').execute();
  const rows = [
    ...fleet.marketplaces.flatMap((m) => m.apiKeySha256.map((h) => ({ key_hash: h, owner_kind: 'marketplace', owner_id: m.id }))),
    ...fleet.partners.flatMap((p) => p.apiKeySha256.map((h) => ({ key_hash: h, owner_kind: 'partner', owner_id: p.id }))),
    ...fleet.operators.flatMap((o) => o.apiKeySha256.map((h) => ({ key_hash: h, owner_kind: 'operator', owner_id: o.name }))),
  ];
  if (rows.length > 0) await tx.insertInto('api_keys').values(rows).execute();
}
