/**
 * npm run bench: runs every bench/*.bench.ts and prints one table of timings as ratios to each
 * comparison's baseline. Optional arguments filter the files by name (`npm run bench -- alloc`);
 * BENCH_TIME_MS sets the time budget per task (default 300).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTable, measure, type BenchSuite, type Row } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const timeMs = Number(process.env.BENCH_TIME_MS ?? 300);

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
  .sort();

const rows: Row[] = [];
const notes: string[] = [];
for (const file of files) {
  const { suite } = (await import(pathToFileURL(join(here, file)).href)) as { suite: BenchSuite };
  console.error(`measuring ${suite.title}...`);
  try {
    const measured = await measure(suite, { timeMs });
    rows.push(...measured);
    for (const note of suite.notes?.(measured) ?? []) notes.push(`${suite.title}: ${note}`);
  } finally {
    await suite.teardown?.();
  }
}

console.log(`Node ${process.version}, ${timeMs} ms per task; "x baseline" is median time / the first task's of each case.\n`);
console.log(formatTable(rows));
if (notes.length > 0) console.log(`\n${notes.join('\n')}`);
