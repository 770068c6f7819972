/**
 * The locker link end to end: events committed to an agent's store (SQLite, synchronous=FULL),
 * published by its link, applied by the cloud (inbox row, the domain's effect and the locker's
 * ack position in one transaction), and acked back to the agent, against a raw MQTT round trip
 * (publish QoS 1 to a locker's down topic, the locker publishes it back on its up topic) through
 * the same embedded broker in the same run. The events are `code.attempt` facts, which the cloud
 * records for operators. Also: heap per locker of the fleet runner (simulator plus agent, and the
 * cloud's side of its link, all in this process). SQLite always; PostgreSQL too with DATABASE_URL.
 */
import type { Engine } from '../cloud/src/db/database.js';
import type { LockerRig } from '../demo/fleet-runner.js';
import { testEngines } from '../test/helpers/cloud-db.js';
import { collectGarbage, type BenchSuite, type Comparison, type Row } from './harness.js';
import { startLinkRig, until, type Cleanup } from './link-rig.js';

/** Lockers started for the heap measurement. */
const HEAP_LOCKERS = Array.from({ length: 20 }, (_, i) => 101 + i);
const BATCH = 50;

const cleanups: Cleanup[] = [];
const heap: { perLockerKiB: number; rssPerLockerKiB: number } = { perLockerKiB: NaN, rssPerLockerKiB: NaN };

async function comparisonFor(engine: Engine): Promise<Comparison> {
  const rig = await startLinkRig(engine, cleanups, HEAP_LOCKERS);
  if (engine === 'sqlite') await measureHeap((id) => rig.startLocker(id), (r) => rig.ready(r));
  return {
    name: engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    baseline: { name: 'raw MQTT round trip (QoS 1, down and back up)', fn: () => rig.rawRoundTrip() },
    contenders: [
      { name: '1 event, committed to acked', fn: () => rig.emit(1) },
      { name: `${BATCH} events, committed to acked`, fn: () => rig.emit(BATCH) },
    ],
  };
}

/** Heap and RSS growth, after full collections, of starting HEAP_LOCKERS lockers until each has its layout. */
async function measureHeap(start: (id: number) => Promise<LockerRig>, ready: (r: LockerRig) => boolean): Promise<void> {
  collectGarbage();
  const before = process.memoryUsage();
  const rigs: LockerRig[] = [];
  for (const id of HEAP_LOCKERS) rigs.push(await start(id));
  await until(() => rigs.every(ready), 'every locker to connect and get its layout');
  collectGarbage();
  const after = process.memoryUsage();
  heap.perLockerKiB = (after.heapUsed - before.heapUsed) / HEAP_LOCKERS.length / 1024;
  heap.rssPerLockerKiB = (after.rss - before.rss) / HEAP_LOCKERS.length / 1024;
  for (const r of rigs) await r.stop();
}

async function comparisons(): Promise<Comparison[]> {
  const list: Comparison[] = [];
  for (const engine of testEngines()) list.push(await comparisonFor(engine));
  return list;
}

function notes(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const c of new Set(rows.map((r) => r.comparison))) {
    const of = (prefix: string) => rows.find((r) => r.comparison === c && r.task.startsWith(prefix))!;
    const raw = of('raw');
    const one = of('1 event');
    const batch = of(`${BATCH} events`);
    const perSecond = (BATCH * 1e6) / batch.medianMicros;
    lines.push(
      `${c}: one event takes ${one.ratio.toFixed(1)} raw round trips; in batches of ${BATCH}, ${Math.round(perSecond)} events/s ` +
        `(${(batch.medianMicros / BATCH / raw.medianMicros).toFixed(2)} raw round trips per event, ${Math.round(1e6 / raw.medianMicros)} raw round trips/s)`,
    );
  }
  lines.push(
    `fleet runner: ${heap.perLockerKiB.toFixed(0)} KiB heap and ${heap.rssPerLockerKiB.toFixed(0)} KiB RSS per locker ` +
      `(${HEAP_LOCKERS.length} lockers of 24 cells: simulator, agent with its SQLite store, screen server and link, and the cloud's side of the link)`,
  );
  if (!testEngines().includes('postgres')) lines.push('PostgreSQL skipped: DATABASE_URL is not set');
  return lines;
}

async function teardown(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

export const suite: BenchSuite = { title: 'link', comparisons, notes, teardown };
