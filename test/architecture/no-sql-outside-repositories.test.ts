/**
 * The cloud's services never build SQL: queries live in cloud/src/repositories/ (one module per
 * aggregate) and cloud/src/db/ (connections, migrations, transactions). The allow-list names the
 * files whose queries are still being moved behind the orders and parcels repository; it only
 * shrinks: an entry whose file no longer exists or no longer builds SQL fails the test until it
 * is removed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = 'cloud/src';
const QUERY_HOMES = ['cloud/src/repositories/', 'cloud/src/db/', 'cloud/src/lifecycle/repository.ts'];

/** Files that still build SQL on orders and parcels, with what they wait for. */
const ALLOWED: Record<string, string> = {
  'cloud/src/orders/update-order.ts': 'orders and parcels repository',
  'cloud/src/orders/cancel-position.ts': 'orders and parcels repository',
  'cloud/src/orders/extend-storage.ts': 'orders and parcels repository',
  'cloud/src/orders/order-detail.ts': 'orders and parcels repository',
  'cloud/src/orders/order-store.ts': 'orders and parcels repository',
  'cloud/src/orders/reservation-release.ts': 'orders and parcels repository',
  'cloud/src/expiry/expire.ts': 'orders and parcels repository',
  'cloud/src/outbox/record-change.ts': 'orders and parcels repository (appends commands and notifications)',
  'cloud/src/locker-events/apply-locker-event.ts': 'orders and parcels repository (reads the locker row its handlers take)',
  'cloud/src/locker-events/displaced.ts': 'orders and parcels repository',
  'cloud/src/locker-events/parcel-loaded.ts': 'orders and parcels repository',
  'cloud/src/locker-events/parcel-taken.ts': 'orders and parcels repository',
  'cloud/src/sync/snapshot.ts': "orders and parcels repository (the locker's active orders as orderIntent takes them)",
};

const QUERY = /\b(?:selectFrom|insertInto|updateTable|deleteFrom)\s*\(|\bsql\s*(?:<[^>`]*>)?\s*`|\bsql\.(?:raw|ref|id|lit|join|table|val)\s*\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative('.', path)] : [];
  });
}

/** The code without comments, so that a comment naming a query builder is no query. */
function code(path: string): string {
  return readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function buildsSql(path: string): boolean {
  return QUERY.test(code(path));
}

describe('SQL lives in repositories', () => {
  const files = sourceFiles(ROOT);
  const outside = files.filter((f) => !QUERY_HOMES.some((home) => f === home || f.startsWith(home)));

  it('finds the query builders it looks for', () => {
    expect(files.filter(buildsSql).some((f) => f.startsWith('cloud/src/repositories/'))).toBe(true);
  });

  it('no file outside cloud/src/repositories/ and cloud/src/db/ builds SQL, except the allow-listed ones', () => {
    const offenders = outside.filter((f) => !(f in ALLOWED) && buildsSql(f));
    expect(offenders).toEqual([]);
  });

  it('the allow-list only names files that still build SQL (remove an entry once its file is converted)', () => {
    const stale = Object.keys(ALLOWED).filter((f) => !files.includes(f) || !buildsSql(f));
    expect(stale).toEqual([]);
  });
});
