/**
 * A fleet for the benchmarks: many lockers of one CU48 board each (small, medium and large
 * cells), one marketplace, one partner allowed everywhere, known keys and locker passwords.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FleetInput } from '../cloud/src/fleet/fleet-schema.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

export const BENCH_KEYS = { shop: 'bench-shop-key', partner: 'bench-partner-key' } as const;
export const lockerPassword = (id: number): string => `bench-locker-${id}`;

/** `cells` per locker: a third each small (400x100), medium (400x200) and large (400x400). */
export function benchFleet(lockerIds: readonly number[], cells = 48): FleetInput {
  const sizes = [100, 200, 400];
  return {
    lockers: lockerIds.map((id) => ({
      id,
      name: `Bench locker ${id}`,
      timezone: 'Europe/Moscow',
      depth: 600,
      location: { id, city: 'Moscow', street: 'Bench street', house: String(id), latitude: 55.75, longitude: 37.61, fullAddress: `Moscow, Bench street, ${id}` },
      boardFamily: 'kerong-cu48',
      mqttPasswordSha256: sha(lockerPassword(id)),
      // 48 locks a board (CU48): a locker of 400 cells has 9 boards.
      cells: Array.from({ length: cells }, (_, i) => ({ id: i + 1, width: 400, height: sizes[Math.floor((i * sizes.length) / cells)]!, board: Math.floor(i / 48), lock: (i % 48) + 1 })),
    })),
    // The benchmarks measure what a request costs (the limiter's counting included), not the limit.
    marketplaces: [{ id: 'bench-shop', name: 'Bench shop', apiKeySha256: [sha(BENCH_KEYS.shop)], rateLimits: { requests: { max: 1_000_000, windowSeconds: 1 } } }],
    partners: [{ id: 'bench-partner', name: 'Bench partner', apiKeySha256: [sha(BENCH_KEYS.partner)], marketplaces: ['bench-shop'], lockers: [...lockerIds] }],
    operators: [],
  };
}

/** Writes the fleet to a temporary folder; returns its path and a cleanup. */
export function writeFleet(fleet: FleetInput): { dir: string; file: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const file = join(dir, 'fleet.json');
  writeFileSync(file, JSON.stringify(fleet));
  return { dir, file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Tomorrow in Moscow: a delivery date no locker refuses. */
export function tomorrowInMoscow(now = Date.now()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(now + 86_400_000));
}

/**
 * One one-parcel order for tomorrow on each locker through `smartorder/create`, `inFlight` at a
 * time; externalId `<prefix><locker id>`, barcode `<externalId>-1`. Throws on any answer but 200.
 */
export async function createOrderPerLocker(baseUrl: string, ids: readonly number[], prefix: string, inFlight: number): Promise<void> {
  const date = tomorrowInMoscow();
  const queue = [...ids];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const externalId = `${prefix}${id}`;
      const res = await fetch(`${baseUrl}/api/v4/auth/delivery/smartorder/create`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'X-Service-Api-Key': BENCH_KEYS.shop },
        body: JSON.stringify({
          externalId,
          number: externalId,
          postamatId: id,
          dateDelivery: date,
          parcels: [{ barcode: `${externalId}-1`, dimension: { length: 300, width: 200, height: 60 } }],
          clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
          notification: { emails: [], phones: ['+79161234567'] },
        }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`order ${externalId}: HTTP ${res.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}
