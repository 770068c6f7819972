/**
 * The repository stands on its own: no source, test, script or config file points at design
 * documents outside it (what was decided from them is written down in docs/). The docs themselves
 * are checked by scripts/check-docs.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const OUTSIDE = /\b(?:DESIGN|HARDWARE|STYLE)\.md\b|postamat-api\.md|shared\/spec\//;
// The docs checker names these on purpose: they are what it looks for.
const CHECKERS = new Set(['test/architecture/no-outside-pointers.test.ts', 'test/architecture/docs.test.ts']);

describe('no pointers outside the repository', () => {
  it('no tracked code or config file names an outside design document', () => {
    const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(?:ts|js|json|ya?ml|sh|conf)$/.test(f) && !f.startsWith('scripts/docs-check/') && !CHECKERS.has(f) && f !== 'package-lock.json');
    const hits = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
