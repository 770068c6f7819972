import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Waits inside tests follow events and state; these bounds only catch hangs, and are generous
    // because the suite must pass on a machine busy with other work.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll's default (1 s) is a wall-clock deadline a loaded machine misses.
    expect: { poll: { timeout: 30_000 } },
    reporters: ['default'],
    setupFiles: ['test/setup/env.ts'],
    coverage: {
      // Off for `npm test`; `npm run test:coverage` (CI) turns it on.
      provider: 'v8',
      include: ['agent/src/**/*.ts', 'cloud/src/**/*.ts', 'shared/src/**/*.ts', 'sim/src/**/*.ts', 'packages/*/src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
      // The report is written even when a test fails, so a red run still shows what was covered.
      reportOnFailure: true,
      // Floors per part, a little under the whole suite's measure (with PostgreSQL and Mosquitto):
      // a part that falls below fails the run. Raise them when coverage rises. Only code running in
      // vitest's workers is measured, not the cloud and agent processes the suites start.
      //
      // The agent's updater and launcher, and its entry points, run in the agent processes that
      // test/updates spawns (a rollout end to end, a SIGKILL at every step of an update): measured
      // here only as far as the in-process tests reach, so they have floors of their own at what
      // is measured in-process; the rest of the agent keeps its floors.
      thresholds: {
        'agent/src/!(updates|launcher)/**/*.ts': { statements: 90, branches: 80, functions: 94, lines: 95 },
        'agent/src/*.ts': { statements: 63, branches: 62, functions: 70, lines: 65 },
        'agent/src/{updates,launcher}/**/*.ts': { statements: 23, branches: 13, functions: 27, lines: 25 },
        'cloud/src/**/*.ts': { statements: 90, branches: 82, functions: 93, lines: 93 },
        'shared/src/**/*.ts': { statements: 91, branches: 85, functions: 95, lines: 96 },
        'sim/src/**/*.ts': { statements: 85, branches: 65, functions: 89, lines: 89 },
      },
    },
  },
});
