/**
 * A year of data (a month with --quick): one busy locker's traffic through the agent's store and
 * the cloud's tables, with the retention sweeps and, as the baseline, the agent without them.
 */
import pino from 'pino';
import type { PartDeps } from '../cloud/src/cloud-part.js';
import { openDatabase } from '../cloud/src/db/database.js';
import { retainedRowCounts } from '../cloud/src/repositories/retention.js';
import { RetentionSweep } from '../cloud/src/retention/sweep.js';
import { retentionSettingsSchema } from '../cloud/src/retention/settings.js';
import { Scheduler, type Timers } from '../cloud/src/scheduler.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Figure, Scenario } from './scenario.js';
import { DAY_MS, PER_DAY, START, runAgentYear, seedDay } from './year-of-data.js';

const MIB = 1024 * 1024;
const idleTimers: Timers = { setTimeout: () => 0, clearTimeout: () => undefined, setInterval: () => 0, clearInterval: () => undefined };

async function cloudYear(days: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'cloud-year-'));
  const cdb = await openDatabase({ sqlitePath: join(dir, 'cloud.sqlite') });
  try {
    await cdb.migrate();
    let now = START;
    const logger = pino({ level: 'silent' });
    const deps = { cdb, clock: { now: () => now }, logger, scheduler: new Scheduler({ logger, timers: idleTimers }) } as unknown as PartDeps;
    const sweep = new RetentionSweep(deps, retentionSettingsSchema.parse({}));
    for (let day = 0; day < days; day++) {
      now = START + day * DAY_MS;
      await seedDay(cdb, day);
      await sweep.sweep();
    }
    return await retainedRowCounts(cdb.db);
  } finally {
    await cdb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const scenario: Scenario = {
  title: 'a year of data',
  async run({ quick, log }) {
    const days = quick ? 30 : 365;
    const span = quick ? 'a month' : 'a year';
    log(`year: ${days} days of ${PER_DAY} parcels through the agent's store, swept and unswept`);
    const swept = runAgentYear(days, true);
    const unswept = runAgentYear(days, false);
    log(`year: ${days} days through the cloud's tables with the retention sweep`);
    const rows = await cloudYear(days);
    const perLocker = Object.values(rows).reduce((a, b) => a + b, 0);
    const figures: Figure[] = [
      {
        name: `agent store after ${span} of ${PER_DAY} parcels/day, swept`,
        value: swept.bytes / MIB,
        unit: 'MiB',
        baseline: { name: 'the same without the sweep', value: unswept.bytes / MIB, unit: 'MiB' },
        ratio: swept.bytes / unswept.bytes,
        goal: '< 20 MB after a year',
        met: swept.bytes < 20 * 1_000_000,
      },
      { name: `agent events kept after ${span}`, value: swept.eventsKept, unit: 'rows', baseline: { name: 'events written', value: swept.eventsWritten, unit: 'rows' }, ratio: swept.eventsKept / swept.eventsWritten },
      {
        name: `cloud rows of one locker after ${span}, swept`,
        value: perLocker,
        unit: 'rows',
        note: Object.entries(rows)
          .map(([t, n]) => `${t} ${n}`)
          .join(', '),
      },
    ];
    return figures;
  },
};
