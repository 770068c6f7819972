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
  },
});
