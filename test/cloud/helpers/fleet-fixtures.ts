/**
 * The fleet the cloud API tests run against. Small on purpose, so every count in a test can be
 * followed by hand:
 * - locker 1 (Moscow, depth 500): cells 1-2 small 400x100, 3 medium 400x200, 4 large 400x400,
 *   5 small flagged dirty, 6 small in shop-b's segment; closed on Sundays; a holiday 2030-03-08.
 * - locker 2 (Yekaterinburg, depth 600): cells 1-3 medium 400x200, 4 large 400x400 in shop-a's segment.
 * - locker 3: broken (cells 1-2). locker 4: inactive (cell 1).
 * Marketplaces shop-a, shop-b, shop-off (inactive), shop-org-off (organization inactive).
 * Partner courier-co delivers for shop-a and shop-b to lockers 1 and 2; partner courier-none has
 * no permitted lockers.
 */
import { createHash } from 'node:crypto';
import type { FleetInput } from '../../../cloud/src/fleet/fleet-schema.js';

const sha = (key: string): string => createHash('sha256').update(key).digest('hex');

export const KEYS = {
  shopA: 'test-shop-a-key',
  shopB: 'test-shop-b-key',
  shopOff: 'test-shop-off-key',
  shopOrgOff: 'test-shop-org-off-key',
  partner: 'test-courier-co-key',
  partnerNone: 'test-courier-none-key',
  operator: 'test-operator-key',
} as const;

const location = (id: number, city: string) => ({
  id,
  city,
  street: 'Test street',
  house: String(id),
  latitude: 55.75,
  longitude: 37.61,
  fullAddress: `${city}, Test street, ${id}`,
});

const S = { width: 400, height: 100 };
const M = { width: 400, height: 200 };
const L = { width: 400, height: 400 };

export function testFleet(): FleetInput {
  return {
    lockers: [
      {
        id: 1,
        name: 'Locker One',
        timezone: 'Europe/Moscow',
        depth: 500,
        mosRegistryId: 'MOS-1',
        workTime: 'Mon-Sat 08-22',
        workTimeProfile: {
          id: 10,
          name: 'Closed on Sundays',
          lastUpdate: '2030-01-01T00:00:00+03:00',
          monday: { start: '08:00', end: '22:00' },
          tuesday: { start: '08:00', end: '22:00' },
          wednesday: { start: '08:00', end: '22:00' },
          thursday: { start: '08:00', end: '22:00' },
          friday: { start: '08:00', end: '22:00' },
          saturday: { start: '10:00', end: '18:00' },
        },
        specialDays: { holidays: [{ day: '2030-03-08', type: 1 }] },
        find: 'By the lifts',
        location: location(1, 'Moscow'),
        equipment: { barcodeScanner: false },
        access: { privateAccess: true, accessGuide: 'Ask the reception', intercomCode: '12#34' },
        cells: [
          { id: 1, ...S, board: 0, lock: 1 },
          { id: 2, ...S, board: 0, lock: 2 },
          { id: 3, ...M, board: 0, lock: 3 },
          { id: 4, ...L, board: 0, lock: 4 },
          { id: 5, ...S, board: 0, lock: 5, flags: ['dirty'] },
          { id: 6, ...S, board: 0, lock: 6, segment: ['shop-b'] },
        ],
      },
      {
        id: 2,
        name: 'Locker Two',
        timezone: 'Asia/Yekaterinburg',
        depth: 600,
        workTimeProfile: { id: 20, name: '24/7', everyDay: { start: '00:00', end: '24:00' } },
        location: location(2, 'Yekaterinburg'),
        equipment: { barcodeScanner: true, heatedCells: true },
        cells: [
          { id: 1, ...M, board: 0, lock: 1 },
          { id: 2, ...M, board: 0, lock: 2 },
          { id: 3, ...M, board: 0, lock: 3 },
          { id: 4, ...L, board: 0, lock: 4, segment: ['shop-a'] },
        ],
      },
      {
        id: 3,
        name: 'Broken Locker',
        depth: 500,
        broken: true,
        location: location(3, 'Moscow'),
        cells: [
          { id: 1, ...M, board: 0, lock: 1 },
          { id: 2, ...M, board: 0, lock: 2 },
        ],
      },
      { id: 4, name: 'Inactive Locker', depth: 500, active: false, location: location(4, 'Moscow'), cells: [{ id: 1, ...M, board: 0, lock: 1 }] },
    ],
    marketplaces: [
      { id: 'shop-a', name: 'Shop A', apiKeySha256: [sha(KEYS.shopA)], storagePeriodHours: 72 },
      { id: 'shop-b', name: 'Shop B', apiKeySha256: [sha(KEYS.shopB)], storagePeriodHours: 48 },
      { id: 'shop-off', name: 'Shop Off', active: false, apiKeySha256: [sha(KEYS.shopOff)] },
      { id: 'shop-org-off', name: 'Shop Org Off', organizationActive: false, apiKeySha256: [sha(KEYS.shopOrgOff)] },
    ],
    partners: [
      { id: 'courier-co', name: 'Courier Co', apiKeySha256: [sha(KEYS.partner)], marketplaces: ['shop-a', 'shop-b'], lockers: [1, 2] },
      { id: 'courier-none', name: 'Courier None', apiKeySha256: [sha(KEYS.partnerNone)], marketplaces: ['shop-a'], lockers: [] },
    ],
    operators: [{ name: 'ops', apiKeySha256: [sha(KEYS.operator)] }],
  };
}

/** A valid create body for locker 1; parcels default to one small parcel. */
export function orderBody(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    externalId,
    number: `N-${externalId}`,
    postamatId: 1,
    dateDelivery: '2030-03-05',
    parcels: [{ barcode: `${externalId}-P1`, dimension: { length: 300, width: 200, height: 80 } }],
    clientInvoice: {
      cart: {
        items: [{ count: 1, barcode: `${externalId}-P1`, name: 'Kettle', subjectType: 1, price: 150000, totalSum: 150000, taxId: 1, taxSystemId: 1 }],
        prePaymentSum: 150000,
      },
    },
    notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
    ...overrides,
  };
}

/** A valid courier-with-route body for partner courier-co (lockers 1 and 2). */
export function routeBody(courier: Record<string, unknown> = {}, route: Record<string, unknown> = {}) {
  return {
    courier: { externalId: 'courier-1', email: 'Ivan@Example.ru', inn: '7701234567', phone: '+79990000001', ...courier },
    route: { carNumber: 'А123ВС77', date: '2030-03-04', externalId: 'route-1', postamatIds: [1, 2], ...route },
  };
}
