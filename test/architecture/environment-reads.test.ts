/**
 * Settings are read once, at each process's entry point, through its settings schema, and passed
 * down: no other module of the product reads the environment. A module that needs a setting gets
 * it as an argument (see docs/architecture.md, "Config").
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCE_DIRS = ['cloud/src', 'agent/src', 'shared/src', 'sim/src', 'demo', 'bench'];

/** Entry points: each passes `process.env` to its settings loader (bench/run.ts reads BENCH_TIME_MS and BENCH_SERVER_NODE_OPTIONS; the agent's launcher reads AGENT_CONFIG). */
const ENTRY_POINTS = ['cloud/src/main.ts', 'cloud/src/cli.ts', 'agent/src/main.ts', 'agent/src/launcher/main.ts', 'demo/main.ts', 'sim/src/main.ts', 'bench/run.ts'];

const ENV_READ = /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|from\s+['"](?:node:)?process['"]|require\(\s*['"](?:node:)?process['"]\s*\)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(ROOT, dir, name);
    if (name === 'node_modules' || name === 'public') return [];
    if (statSync(path).isDirectory()) return sourceFiles(relative(ROOT, path));
    return /\.(?:ts|js|mjs|cjs)$/.test(name) ? [relative(ROOT, path)] : [];
  });
}

describe('reading the environment', () => {
  it('happens only in the entry points', () => {
    const files = SOURCE_DIRS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const readers = files.filter((f) => ENV_READ.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(readers.filter((f) => !ENTRY_POINTS.includes(f))).toEqual([]);
  });

  it('allow-lists only files that exist and read it', () => {
    for (const f of ENTRY_POINTS) {
      expect(existsSync(join(ROOT, f)), f).toBe(true);
      expect(ENV_READ.test(readFileSync(join(ROOT, f), 'utf8')), f).toBe(true);
    }
  });
});
