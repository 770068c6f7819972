/**
 * The shape of a benchmark file and how one is measured. Every `bench/*.bench.ts` exports
 * `suite: BenchSuite`; `bench/run.ts` measures each comparison with tinybench and prints one table.
 * Results are ratios against a baseline measured in the same run, never pass/fail thresholds.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Bench } from 'tinybench';

export interface BenchTask {
  name: string;
  fn: () => unknown;
}

/** Tasks doing the same work; each is reported as a ratio to the baseline's median time. */
export interface Comparison {
  name: string;
  baseline: BenchTask;
  contenders: BenchTask[];
}

export interface BenchSuite {
  title: string;
  /** May set things up first (servers, databases); `teardown` undoes that after the measurement. */
  comparisons: () => Comparison[] | Promise<Comparison[]>;
  /** Lines printed under the table (e.g. quality of the results, which timing cannot show); gets the suite's rows. */
  notes?: (rows: readonly Row[]) => string[];
  teardown?: () => Promise<void>;
}

export interface Row {
  suite: string;
  comparison: string;
  task: string;
  medianMicros: number;
  meanMicros: number;
  rmePercent: number;
  /** NaN for asynchronous tasks, whose calls overlap other work. */
  heapKiBPerCall: number;
  ratio: number;
}

export interface MeasureOptions {
  /** Time budget per task in milliseconds. */
  timeMs: number;
}

setFlagsFromString('--expose-gc');
/** A full garbage collection, for benchmarks that measure heap themselves. */
export const collectGarbage = runInNewContext('gc') as () => void;

function heapGrowth(fn: () => unknown, calls: number): number {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < calls; i++) fn();
  return (process.memoryUsage().heapUsed - before) / calls;
}

/**
 * Roughly what one call allocates: the median heap growth over batches of calls, each batch after
 * a full collection. V8 hands out new-space memory in chunks of some KiB, so batches are sized to
 * allocate about 512 KiB: large enough to average the chunks out, small enough not to trigger a
 * collection (which would hide the growth; the median drops such batches).
 */
export function heapPerCall(fn: () => unknown, batches = 11): number {
  const estimate = Math.max(1024, heapGrowth(fn, 1));
  const calls = Math.min(256, Math.max(1, Math.floor((512 * 1024) / estimate)));
  const growth = Array.from({ length: batches }, () => heapGrowth(fn, calls)).sort((a, b) => a - b);
  return Math.max(0, growth[batches >> 1]!);
}

/** Heap per call of a synchronous task; NaN for one that returns a promise (its calls cannot be batched). */
async function heapOf(fn: () => unknown): Promise<number> {
  const probe = fn();
  if (probe instanceof Promise) {
    await probe;
    return NaN;
  }
  return heapPerCall(fn);
}

export async function measure(suite: BenchSuite, options: MeasureOptions): Promise<Row[]> {
  const rows: Row[] = [];
  for (const comparison of await suite.comparisons()) {
    const tasks = [comparison.baseline, ...comparison.contenders];
    const bench = new Bench({ time: options.timeMs, warmupTime: options.timeMs / 4, throws: true });
    for (const task of tasks) bench.add(task.name, task.fn);
    await bench.run();
    const stats = bench.tasks.map((t) => {
      const result = t.result;
      if (result.state !== 'completed') throw new Error(`${comparison.name} / ${t.name}: ${result.state}`);
      return { median: result.latency.p50, mean: result.latency.mean, rme: result.latency.rme };
    });
    for (const [i, task] of tasks.entries()) {
      rows.push({
        suite: suite.title,
        comparison: comparison.name,
        task: task.name,
        medianMicros: stats[i]!.median * 1000,
        meanMicros: stats[i]!.mean * 1000,
        rmePercent: stats[i]!.rme,
        heapKiBPerCall: (await heapOf(task.fn)) / 1024,
        // The median, not the mean: other processes on the machine add long outliers.
        ratio: stats[i]!.median / stats[0]!.median,
      });
    }
  }
  return rows;
}

function micros(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

export function formatTable(rows: readonly Row[]): string {
  const header = ['suite', 'case', 'task', 'median µs', 'mean µs', '±%', 'heap KiB/call', 'x baseline'];
  const body = rows.map((r) => [
    r.suite,
    r.comparison,
    r.task,
    micros(r.medianMicros),
    micros(r.meanMicros),
    r.rmePercent.toFixed(1),
    Number.isNaN(r.heapKiBPerCall) ? '-' : r.heapKiBPerCall.toFixed(1),
    r.ratio.toFixed(2),
  ]);
  const all = [header, ...body];
  const widths = header.map((_, col) => Math.max(...all.map((line) => line[col]!.length)));
  const numeric = (col: number) => col >= 3;
  const line = (cells: string[]) =>
    cells.map((cell, col) => (numeric(col) ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}
