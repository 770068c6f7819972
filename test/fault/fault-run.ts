/**
 * One fault-suite run end to end: the world, the seeded history with the nemesis beside it, the
 * faults healed, quiescence, the couriers' last round of returns, quiescence again, every process
 * stopped, then the checker. Prints the seed first and a report at the end; returns what failed.
 *
 * Settings (environment): FAULT_SEED repeats a run's choices; FAULT_CUT_SECONDS (120) and
 * FAULT_GAP_SECONDS (10) shorten the run while working on the suite.
 */
import { randomInt } from 'node:crypto';
import { seededRandom } from '../../sim/src/random.js';
import { type CheckResult, type Counts, anomalyTotal, check } from './checker.js';
import { type BrokerKind, type FaultWorld, openFaultWorld } from './fault-world.js';
import { History } from './history.js';
import { Nemesis, type OfflineCancellation, offlineCancellationOutcome, until } from './nemesis.js';
import { gather, quiescence } from './run-record.js';

export interface RunReport {
  seed: number;
  result: CheckResult | null;
  /** Everything that failed: anomalies, missed faults, processes that died, scenario outcomes. */
  failures: string[];
}

const QUIESCENCE_MS = 150_000;
/** Quiescent this many times in a row, a second apart, before the run counts as settled. */
const STABLE_CHECKS = 3;

const seconds = (name: string, fallback: number) => 1000 * Number(process.env[name] ?? fallback);

/** Until the run is quiescent (run-record.ts) STABLE_CHECKS times in a row. */
export async function settle(world: FaultWorld): Promise<void> {
  let stable = 0;
  let reason: string | null = null;
  const deadline = Date.now() + QUIESCENCE_MS;
  while (stable < STABLE_CHECKS) {
    reason = await quiescence(world);
    stable = reason === null ? stable + 1 : 0;
    if (Date.now() > deadline) throw new Error(`no quiescence after ${QUIESCENCE_MS / 1000} s: ${reason}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

function table(c: Counts): string {
  return [
    `events ${c.events}, commands ${c.commands} (snapshots ${c.snapshots})`,
    `lost ${c.lost}, duplicated ${c.duplicated}, out of order ${c.outOfOrder}, disagreements ${c.disagreements}`,
    `notifications ${c.notifications} (calls ${c.calls}, redeliveries ${c.redeliveries}); effects of facts ${c.effectsExpected}: ` +
      `missing ${c.effectsMissing}, duplicated ${c.effectsDuplicated}, unexplained ${c.effectsUnexplained}, out of order ${c.notificationsOutOfOrder}, undelivered ${c.undelivered}`,
  ].join('\n  ');
}

export async function runFaultSuite(broker: BrokerKind): Promise<RunReport> {
  const seed = process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : randomInt(2 ** 31);
  console.log(`fault suite on the ${broker} broker: seed ${seed} (FAULT_SEED=${seed} repeats the run's choices)`);
  const streams = (k: number) => seededRandom((seed ^ (k * 0x9e3779b1)) >>> 0);
  const receiverRandom = streams(1);
  const world = await openFaultWorld({
    broker,
    lockers: 3,
    random: streams(2),
    chaos: { duplicate: 0.2, reorder: 0.2, maxHoldMs: 300 },
    // Some answers lost (the receiver took it, the cloud never heard) and some refusals: both are retried.
    receiverBehaviour: () => {
      const r = receiverRandom();
      return r < 0.06 ? 'hang' : r < 0.1 ? 500 : 200;
    },
  });
  const history = new History(world, streams(3));
  const nemesis = new Nemesis(world, history, { longCutMs: seconds('FAULT_CUT_SECONDS', 120), gapMs: seconds('FAULT_GAP_SECONDS', 10) }, streams(4));
  const failures: string[] = [];
  let result: CheckResult | null = null;
  try {
    await history.start();
    nemesis.startChaos();
    let scenario: OfflineCancellation | undefined;
    // Both to the end before anything else happens, even when one of them fails.
    const faults = await Promise.allSettled([nemesis.offlineCancellation().then((s) => (scenario = s)), nemesis.crashesAndCuts()]);
    for (const f of faults) if (f.status === 'rejected') throw f.reason;
    // A little more history with the locker back, then only healing.
    await new Promise((r) => setTimeout(r, 10_000));
    await nemesis.heal();
    await history.stop();
    await settle(world);
    // The last round: a courier at every locker takes back what is to be returned.
    for (const l of world.lockers) {
      const visit = await history.courierVisit(l.id, [], true);
      nemesis.note(`locker ${l.id}: last collection of returns: ${visit.returns}`);
    }
    await settle(world);
    for (const c of world.children().reverse()) await c.stop();
    await until(() => world.children().every((c) => !c.up), 'every process to stop', 30_000);

    result = check(await gather(world, history));
    failures.push(...result.anomalies);
    if (scenario) failures.push(...(await offlineCancellationOutcome(world, scenario)));
  } catch (err) {
    failures.push(`run aborted: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await history.stop();
    failures.push(...nemesis.missed.map((m) => `fault not injected: ${m}`));
    failures.push(...nemesis.unrecovered);
    for (const c of world.children()) failures.push(...c.unexpected);
    console.log(
      [
        `faults (${broker}, seed ${seed}):`,
        ...nemesis.log.map((f) => `  +${f.at.toFixed(1).padStart(6)} s  ${f.what}`),
        'history:',
        ...Object.entries(history.summary()).map(([kind, outcomes]) => `  ${kind}: ${Object.entries(outcomes).map(([o, n]) => `${o} ${n}`).join(', ')}`),
        result ? `checker:\n  ${table(result.counts)}` : 'checker: not run',
        failures.length === 0 ? 'no anomaly' : `FAILED (${failures.length}):\n  ${failures.slice(0, 40).join('\n  ')}`,
      ].join('\n'),
    );
    if (failures.length > 0) {
      for (const c of world.children()) console.log(`--- ${c.name} (${c.lives} lives), last log lines:\n${c.logTail(15)}`);
      console.log(`run files kept in ${world.dir}`);
    }
    await world.close({ keepDir: failures.length > 0 });
  }
  if (result && anomalyTotal(result.counts) !== result.anomalies.length) failures.push('checker: counts and anomalies differ');
  return { seed, result, failures };
}
