import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderLifecycleTables, withLifecycleTables } from '../../cloud/src/lifecycle/render.js';
import { ORDER_TRANSITIONS, PARCEL_STEPS } from '../../cloud/src/lifecycle/table.js';

const committed = readFileSync(new URL('../../docs/lifecycle.md', import.meta.url), 'utf8');

describe('docs/lifecycle.md', () => {
  it('prints the tables the code runs (regenerate: npx tsx cloud/src/lifecycle/cli-doc.ts)', () => {
    expect(committed).toBe(withLifecycleTables(committed));
    expect(committed).toContain(renderLifecycleTables());
  });

  it('has one row per id', () => {
    const ids = [...ORDER_TRANSITIONS, ...PARCEL_STEPS].map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(committed).toContain(`| ${id} |`);
  });
});
