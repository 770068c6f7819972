/**
 * Runs one scenario by name and prints its figures: `npx tsx bench/run-scenario.ts fleet [--quick]`
 * (bench/fleet.scenario.ts). `npm run bench` runs every scenario; this runs one while working on it.
 */
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './scenario.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith('--'));
if (!name) {
  console.error('usage: tsx bench/run-scenario.ts <name> [--quick]   (bench/<name>.scenario.ts)');
  process.exit(2);
}
const { scenario } = (await import(pathToFileURL(join(here, `${name}.scenario.ts`)).href)) as { scenario: Scenario };
console.error(`running ${scenario.title}...`);
const figures = await scenario.run({ quick: args.includes('--quick'), log: (line) => console.error(line) });
for (const f of figures) {
  const base = f.baseline ? ` (${f.baseline.name}: ${f.baseline.value} ${f.baseline.unit}${f.ratio !== undefined ? `, x${f.ratio}` : ''})` : '';
  const goal = f.goal ? ` [${f.goal}: ${f.met ? 'met' : 'NOT met'}]` : '';
  console.log(`${f.name}: ${f.value} ${f.unit}${base}${goal}${f.note ? ` — ${f.note}` : ''}`);
}
