/** Only the lifecycle's repository writes orders, parcels, revocations and the transitions' record. */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TABLES = ['orders', 'parcels', 'order_revocations', 'order_transitions'];
const WRITER = 'cloud/src/lifecycle/repository.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Kysely writes (`insertInto('orders')`...) and raw SQL writes (`update parcels`...). */
function writesIn(text: string): string[] {
  const found: string[] = [];
  for (const table of TABLES) {
    const kysely = new RegExp(`(insertInto|updateTable|deleteFrom|replaceInto)\\(\\s*['"\`]${table}['"\`]`, 'g');
    const raw = new RegExp(`\\b(insert\\s+into|update|delete\\s+from)\\s+["\`]?${table}\\b`, 'gi');
    for (const m of text.matchAll(kysely)) found.push(m[0]);
    for (const m of text.matchAll(raw)) found.push(m[0]);
  }
  return found;
}

describe('the order lifecycle is the single writer', () => {
  it(`finds writes of ${TABLES.join(', ')} in cloud/src only in ${WRITER}`, () => {
    const offenders = sources(join(root, 'cloud/src'))
      .map((file) => ({ file: relative(root, file), writes: writesIn(readFileSync(file, 'utf8')) }))
      .filter((f) => f.writes.length > 0 && f.file !== WRITER);
    expect(offenders).toEqual([]);
  });

  it('recognises the writes it looks for', () => {
    expect(writesIn(readFileSync(join(root, WRITER), 'utf8')).length).toBeGreaterThanOrEqual(4);
    expect(writesIn("tx.updateTable('parcels').set({})")).toEqual(["updateTable('parcels'"]);
    expect(writesIn('UPDATE orders SET state = 3')).toEqual(['UPDATE orders']);
  });
});
