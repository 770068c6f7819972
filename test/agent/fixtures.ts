/** Builders for locker intent (layout, orders, grants) as the cloud would send it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeHash } from '../../shared/src/codes.js';
import type { CellConfig, Command, CommandBody, CourierGrant, LockerConfig, OrderIntent, ParcelIntent } from '../../shared/src/protocol.js';
import { openStore, type LockerStore } from '../../agent/src/store/index.js';

export const LOCKER_ID = 'L-100';
export const TZ = 'Europe/Moscow';
export const DEPTH = 500;

/** A settable clock (epoch ms). */
export class ManualClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** 2030-03-10 12:00 Moscow time. */
export const NOON = Date.UTC(2030, 2, 10, 9, 0, 0);

export function cell(id: number, lock: number, size: 'S' | 'M' | 'L', extra: Partial<CellConfig> = {}): CellConfig {
  const dims = { S: { width: 400, height: 100 }, M: { width: 400, height: 300 }, L: { width: 400, height: 600 } }[size];
  return { id, ...dims, bus: 'main', board: 0, lock, flags: [], ...extra };
}

export function lockerConfig(cells: CellConfig[]): LockerConfig {
  return { lockerId: LOCKER_ID, timezone: TZ, depth: DEPTH, cells };
}

export function parcel(barcode: string, extra: Partial<ParcelIntent> = {}): ParcelIntent {
  return { barcode, additionalBarcodes: [], dimension: { length: 300, width: 200, height: 80 }, state: 'pending', cellId: null, ...extra };
}

export function order(orderId: string, parcels: ParcelIntent[], extra: Partial<OrderIntent> = {}): OrderIntent {
  return {
    orderId,
    externalId: `ext-${orderId}`,
    number: null,
    marketplaceId: 'mp-1',
    state: 0,
    dateDelivery: '2030-03-10',
    holdUntil: null,
    pickupCodeHash: null,
    parcels,
    ...extra,
  };
}

export function pickupHash(code: string): string {
  return codeHash('customer', LOCKER_ID, code);
}

export function grant(grantId: string, code: string, validUntil: number, extra: Partial<CourierGrant> = {}): CourierGrant {
  return { grantId, codeHash: codeHash('courier', LOCKER_ID, code), validUntil, marketplaceIds: ['mp-1'], courierRef: `c-${grantId}`, ...extra };
}

/** Numbers command bodies from `from` on, as the cloud's log would. */
export function commands(bodies: CommandBody[], from = 1, at = NOON): Command[] {
  return bodies.map((b, i): Command => ({ cseq: from + i, at, ...b }));
}

export interface TempStore {
  store: LockerStore;
  dir: string;
  path: string;
  close(): void;
}

export function tempStore(clock: ManualClock): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'agent-store-'));
  const path = join(dir, 'agent.sqlite');
  const store = openStore(path, clock);
  return {
    store,
    dir,
    path,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Outbox bodies without dseq/at, for comparisons. */
export function eventBodies(store: LockerStore, after = 0): unknown[] {
  return store.eventsAfter(after, 10_000).map(({ dseq: _d, at: _a, ...body }) => body);
}

/**
 * The outbox and the physical facts agree: every fact has its event and every event its fact, and
 * dseq runs 1..n without a gap.
 */
export function checkConsistency(store: LockerStore): void {
  const events = store.eventsAfter(0, 100_000);
  events.forEach((e, i) => {
    if (e.dseq !== i + 1) throw new Error(`dseq gap: event ${i} has dseq ${e.dseq}`);
  });
  const key = (o: string, b: string) => `${o}/${b}`;
  const loaded = new Map(events.filter((e) => e.type === 'parcel.loaded').map((e) => [key(e.orderId, e.barcode), e]));
  const taken = new Map(
    events.filter((e) => e.type === 'parcel.received' || e.type === 'parcel.returned').map((e) => [key(e.orderId, e.barcode), e]),
  );
  const facts = store.parcels.all();
  for (const f of facts) {
    const l = loaded.get(key(f.orderId, f.barcode));
    if (!l || l.type !== 'parcel.loaded' || l.cellId !== f.cellId) throw new Error(`fact without its parcel.loaded event: ${f.barcode}`);
    const t = taken.get(key(f.orderId, f.barcode));
    if (f.state === 'in_cell' && t) throw new Error(`take event for a parcel still in its cell: ${f.barcode}`);
    if (f.state !== 'in_cell' && (!t || t.type !== (f.state === 'received' ? 'parcel.received' : 'parcel.returned'))) {
      throw new Error(`taken parcel without its event: ${f.barcode}`);
    }
  }
  const factKeys = new Set(facts.map((f) => key(f.orderId, f.barcode)));
  for (const k of [...loaded.keys(), ...taken.keys()]) if (!factKeys.has(k)) throw new Error(`event without its fact: ${k}`);
}
