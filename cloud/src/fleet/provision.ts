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
import { CELL_FLAGS } from '../../../shared/src/enums.js';
import { z } from 'zod';
import type { CloudDatabase } from '../db/database.js';
import { fleetTransaction, type Tx } from '../db/transaction.js';
import { lockerConfig } from '../lockers/cells.js';
import type { LockerProfile } from '../lockers/profile.js';
import { knownAccountsOf } from '../repositories/known-accounts.js';
import { occupancyCacheOf } from '../lockers/occupancy-cache.js';
import { recordChange, type LockerCommandDraft } from '../outbox/record-change.js';
import { type ApiKey, type MarketplaceFields, type PartnerFields, replaceApiKeys, saveMarketplaces, savePartners } from '../repositories/accounts.js';
import {
  type Cell,
  cellsOf,
  deactivateLocker,
  deleteCells,
  allLockers,
  findLocker,
  insertLocker,
  type LockerFields,
  saveCell,
  updateLocker,
} from '../repositories/lockers.js';
import { heldCells } from '../repositories/occupancy.js';
import { replaceOperators } from '../repositories/operators.js';
import { sandboxPartners } from '../sandbox/sandbox-partner.js';
import { cellIsAccessible, type Fleet, type FleetLocker, fleetSchema } from './fleet-schema.js';

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
    await saveMarketplaces(tx, new Map(fleet.marketplaces.map((m) => [m.id, marketplaceFields(m)])), at);
    const partners = new Map([...fleet.partners.map((p) => [p.id, partnerFields(p)] as const), ...sandboxPartners(fleet)]);
    await savePartners(tx, partners, at);
    await replaceApiKeys(tx, apiKeys(fleet));
    await replaceOperators(tx, fleet.operators.map((o) => ({ name: o.name, role: o.role })));
    const commands: LockerCommandDraft[] = [];
    const existing = new Map((await allLockers(tx)).map((l) => [l.id, l]));
    for (const locker of fleet.lockers) {
      const before = existing.get(locker.id);
      const oldCells = before ? await cellsOf(tx, locker.id) : [];
      const oldConfig = before ? JSON.stringify(lockerConfig(before, oldCells)) : null;
      const fields: LockerFields = {
        name: locker.name,
        timezone: locker.timezone,
        depth: locker.depth,
        active: locker.active,
        broken: locker.broken,
        scanner: locker.equipment.barcodeScanner,
        profile: profileOf(locker),
        mqttPasswordHash: locker.mqttPasswordSha256 ?? null,
        sandbox: locker.sandbox,
      };
      if (before) {
        await updateLocker(tx, locker.id, fields, at);
        report.lockers.updated.push(locker.id);
      } else {
        await insertLocker(tx, locker.id, fields, at);
        report.lockers.added.push(locker.id);
      }
      await provisionCells(tx, locker, oldCells, at);
      const after = (await findLocker(tx, locker.id))!;
      const config = lockerConfig(after, await cellsOf(tx, locker.id));
      if (JSON.stringify(config) !== oldConfig) {
        commands.push({ lockerId: locker.id, body: { type: 'locker.config', config } });
        report.configChanged.push(locker.id);
      }
    }
    const inFleet = new Set(fleet.lockers.map((l) => l.id));
    const gone = [...existing.values()].filter((l) => !inFleet.has(l.id) && l.active);
    for (const locker of gone) {
      await deactivateLocker(tx, locker.id, at);
      report.lockers.deactivated.push(locker.id);
    }
    await recordChange(tx, { at, commands });
  });
  // What this process remembers of the fleet is read again (other processes: within seconds).
  knownAccountsOf(cdb).forget();
  occupancyCacheOf(cdb).forgetAll();
  return report;
}

async function provisionCells(tx: Tx, locker: FleetLocker, oldCells: readonly Cell[], at: number): Promise<void> {
  const wanted = new Map(locker.cells.map((c) => [c.id, c]));
  const removed = oldCells.filter((c) => !wanted.has(c.id)).map((c) => c.id);
  const held = await heldCells(tx, locker.id, removed);
  if (held.length > 0) {
    throw new FleetError(
      `locker ${locker.id}: cells ${held.join(', ')} are missing from the fleet file but hold or are reserved for parcels; ` +
        'keep them in the file until they are empty',
    );
  }
  await deleteCells(tx, locker.id, removed);
  const old = new Map(oldCells.map((c) => [c.id, c]));
  for (const cell of locker.cells) {
    const before = old.get(cell.id);
    // A reload adds the file's flags and never clears one (the operator API does).
    const flags = CELL_FLAGS.filter((f) => cell.flags.includes(f) || !!before?.flags.includes(f));
    const segment = cell.segment ? [...cell.segment].sort() : null;
    await saveCell(tx, locker.id, { id: cell.id, width: cell.width, height: cell.height, bus: cell.bus, board: cell.board, lock: cell.lock, segment, flags, accessible: cellIsAccessible(cell, locker) }, !!before, at);
  }
}

function marketplaceFields(m: Fleet['marketplaces'][number]): MarketplaceFields {
  return {
    name: m.name,
    sandbox: m.sandbox,
    active: m.active,
    organizationActive: m.organizationActive,
    receiver: {
      url: m.receiver?.url ?? null,
      login: m.receiver?.login ?? null,
      password: m.receiver?.password ?? null,
      caFile: m.receiver?.caFile ?? null,
      bodyForm: m.receiver?.bodyForm ?? 'object',
      hmacSecret: m.receiver?.hmacSecret ?? null,
    },
    storagePeriodHours: m.storagePeriodHours,
    rateLimits: m.rateLimits ?? null,
  };
}

function partnerFields(p: Fleet['partners'][number]): PartnerFields {
  return { name: p.name, active: p.active, rateLimits: p.rateLimits ?? null, marketplaceIds: p.marketplaces, lockerIds: p.lockers };
}

function apiKeys(fleet: Fleet): ApiKey[] {
  return [
    ...fleet.marketplaces.flatMap((m) => m.apiKeySha256.map((h) => ({ keyHash: h, ownerKind: 'marketplace' as const, ownerId: m.id }))),
    ...fleet.partners.flatMap((p) => p.apiKeySha256.map((h) => ({ keyHash: h, ownerKind: 'partner' as const, ownerId: p.id }))),
    ...fleet.operators.flatMap((o) => o.apiKeySha256.map((h) => ({ keyHash: h, ownerKind: 'operator' as const, ownerId: o.name }))),
  ];
}
