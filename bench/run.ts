/**
 * npm run bench: the timed suites (every bench/*.bench.ts, measured by harness.ts as ratios to each
 * comparison's baseline), then the scenarios (every bench/*.scenario.ts, figures beside baselines
 * and goals). Prints one Markdown report and writes it, with the same data as JSON, to
 * bench/results/<YYYY-MM-DD>-<quick|full>.md/.json and bench/results/latest.md/.json.
 *
 * Arguments: `--quick` (smaller sizes, the whole run in under five minutes on two cores), and words
 * that pick files by name (`npm run bench -- api throughput`). BENCH_TIME_MS sets the time budget
 * per timed task (default 300, 100 with --quick). DATABASE_URL and MQTT_URL add what needs them.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measure, type BenchSuite, type Row } from './harness.js';
import { describeMachine, formatReport, type Report, type ScenarioResult } from './report.js';
import type { Scenario } from './scenario.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const filters = args.filter((a) => !a.startsWith('--'));
const serverNodeOptions = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter((a) => a !== '');
const timeMs = Number(process.env.BENCH_TIME_MS ?? (quick ? 100 : 300));

const picked = (suffix: string) =>
  readdirSync(here)
    .filter((f) => f.endsWith(suffix))
    .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
    .sort();

const log = (line: string) => console.error(line);
const runStarted = performance.now();
const startLoad = loadavg()[0] ?? 0;
const report: Report = {
  startedAt: new Date().toISOString(),
  mode: quick ? 'quick' : 'full',
  machine: await describeMachine(process.env.DATABASE_URL, process.env.MQTT_URL),
  timed: { timeMsPerTask: timeMs, rows: [], notes: [] },
  scenarios: [],
};

for (const file of picked('.bench.ts')) {
  const { suite } = (await import(pathToFileURL(join(here, file)).href)) as { suite: BenchSuite };
  log(`measuring ${suite.title}...`);
  try {
    const measured: Row[] = await measure(suite, { timeMs });
    report.timed.rows.push(...measured);
    for (const note of suite.notes?.(measured) ?? []) report.timed.notes.push(`${suite.title}: ${note}`);
  } finally {
    await suite.teardown?.();
  }
}

for (const file of picked('.scenario.ts')) {
  const { scenario } = (await import(pathToFileURL(join(here, file)).href)) as { scenario: Scenario };
  log(`running ${scenario.title}...`);
  const started = performance.now();
  const result: ScenarioResult = { title: scenario.title, seconds: 0, figures: [] };
  try {
    result.figures = await scenario.run({ quick, serverNodeOptions, log: (line) => log(`  ${scenario.title}: ${line}`) });
  } catch (err) {
    // One scenario's failure is reported with the others' figures rather than losing them.
    result.error = err instanceof Error ? err.message : String(err);
    log(`  ${scenario.title} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }
  result.seconds = (performance.now() - started) / 1000;
  report.scenarios.push(result);
}

report.load = { atStart: startLoad, atEnd: loadavg()[0] ?? 0 };
report.seconds = (performance.now() - runStarted) / 1000;
const markdown = formatReport(report);
console.log(markdown);

const dir = join(here, 'results');
mkdirSync(dir, { recursive: true });
const json = `${JSON.stringify(report, null, 2)}\n`;
// A run of some files only is printed but does not replace the record of a whole run.
if (filters.length === 0) {
  const stem = `${report.startedAt.slice(0, 10)}-${report.mode}`;
  for (const name of [stem, 'latest']) {
    writeFileSync(join(dir, `${name}.md`), `${markdown}\n`);
    writeFileSync(join(dir, `${name}.json`), json);
  }
  log(`written: bench/results/${stem}.md and .json, bench/results/latest.md and .json`);
} else {
  const stem = `partial-${report.mode}`;
  writeFileSync(join(dir, `${stem}.md`), `${markdown}\n`);
  writeFileSync(join(dir, `${stem}.json`), json);
  log(`written: bench/results/${stem}.md and .json (a run of some files only; latest.md is left as it was)`);
}
if (report.scenarios.some((s) => s.error !== undefined)) process.exitCode = 1;
