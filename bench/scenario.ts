/**
 * The second shape of a benchmark: a scenario (`bench/*.scenario.ts`) plays a whole situation
 * (hundreds of requests in flight, thousands of lockers, a year of traffic) and returns figures,
 * each beside the baseline it is judged against, measured in the same run on the same machine.
 * `bench/run.ts` runs them after the timed suites and writes every figure to `bench/results/`.
 */

export interface Figure {
  /** What was measured, e.g. "smartorder/create, SQLite, 64 in flight". */
  name: string;
  value: number;
  /** "req/s", "ms", "MiB", "events/s", "x" ... */
  unit: string;
  /** The figure it is compared with, measured in the same run (an empty route, a bare Node process). */
  baseline?: { name: string; value: number; unit: string };
  /** value / baseline.value when both are in comparable units. */
  ratio?: number;
  /** The goal in words ("≥ 0.10 of the empty route", "p99 < 50 ms") and whether this run met it. */
  goal?: string;
  met?: boolean;
  note?: string;
}

export interface ScenarioOptions {
  /** `npm run bench -- --quick`: smaller sizes so that the whole run ends in under five minutes. */
  quick: boolean;
  /** Prints progress to stderr (stdout carries the report). */
  log: (line: string) => void;
  /** Node options for the server processes a scenario starts (BENCH_SERVER_NODE_OPTIONS, e.g. `--cpu-prof --cpu-prof-dir=DIR`), to profile them alone. */
  serverNodeOptions?: string[];
}

export interface Scenario {
  title: string;
  /** Whatever it needs beyond Node.js (PostgreSQL, Mosquitto) it finds itself and skips with a figure's note when absent. */
  run: (opts: ScenarioOptions) => Promise<Figure[]>;
}
