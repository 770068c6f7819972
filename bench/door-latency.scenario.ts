/**
 * From a door closing to the marketplace holding the order-status notification, in two legs:
 * (a) the simulator's door closes -> the agent has committed it (four KR-CU48 boards on one bus,
 * the default door poll; the simulator's pipe adds no wire time, so the bus time computed from the
 * baud rate is reported beside it); (b) a notification committed -> the receiver holds it (HTTPS
 * receiver answering at once), in the committing process and, on PostgreSQL, in another process
 * woken over LISTEN/NOTIFY. The MQTT hop between them (agent -> broker -> cloud applying the event)
 * is not part of this scenario.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { agentConfigSchema } from '../agent/src/config.js';
import { busConfigSchema, createLockHardware } from '../agent/src/hw/index.js';
import { DoorSupervisor, type DoorChange } from '../agent/src/locker/doors.js';
import { openStore } from '../agent/src/store/index.js';
import { openDatabase, type CloudDatabase } from '../cloud/src/db/database.js';
import { transaction } from '../cloud/src/db/transaction.js';
import { fleetSchema } from '../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../cloud/src/fleet/provision.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../cloud/src/notify/settings.js';
import { bridgeNotificationWakeups } from '../cloud/src/outbox/cross-process.js';
import { recordChange } from '../cloud/src/outbox/record-change.js';
import { OutboxSignals } from '../cloud/src/outbox/signals.js';
import { startSimulator } from '../sim/src/index.js';
import { openTestDatabase, testEngines } from '../test/helpers/cloud-db.js';
import { makeTestPki } from '../test/helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../test/helpers/test-receiver.js';
import { statusDraft } from '../test/notify/helpers/drafts.js';
import { notifyFleet } from '../test/notify/helpers/notify-cloud.js';
import type { Figure, Scenario } from './scenario.js';

const silent = pino({ level: 'silent' });
const BOARDS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function figures(name: string, samples: number[], goal: { ms: number; words: string }): Figure[] {
  const s = [...samples].sort((a, b) => a - b);
  const p99 = percentile(s, 99);
  return [
    { name: `${name}, p50`, value: Math.round(percentile(s, 50) * 10) / 10, unit: 'ms', note: `${s.length} samples` },
    { name: `${name}, p99`, value: Math.round(p99 * 10) / 10, unit: 'ms', goal: goal.words, met: p99 < goal.ms },
  ];
}

/** (a): door close -> the agent's transaction recording it has committed. */
async function doorToCommit(samples: number): Promise<number[]> {
  const sim = await startSimulator({ buses: [{ name: 'main', boards: BOARDS }], scanner: false });
  const hw = createLockHardware([busConfigSchema.parse(sim.busConfig('main'))], silent, { createTransport: () => sim.connect({ bus: 'main' }) });
  await hw.start();
  const store = openStore(':memory:', { now: () => Date.now() });
  const cell = { bus: 'main', board: BOARDS - 1, lock: 1 };
  store.cells.setLayout([{ id: 1, width: 400, height: 100, ...cell, flags: [] }]);
  const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;
  const doors = new DoorSupervisor(store, hw, { now: () => Date.now() }, silent, { pollMs, leftOpenMs: 3_600_000 }, () => undefined);
  const next = (closed: boolean) => new Promise<void>((resolve) => {
    const on = (c: DoorChange) => {
      if (c.closed !== closed) return;
      doors.off('change', on);
      resolve();
    };
    doors.on('change', on);
  });
  const out: number[] = [];
  try {
    await doors.start();
    await doors.poll(); // the first reading: the closed door is known
    for (let i = 0; i < samples; i++) {
      const opened = next(false);
      sim.openDoor(cell);
      await opened;
      await sleep(Math.random() * (pollMs + 50)); // the close falls anywhere in the poll cycle
      const closed = next(true);
      const t0 = performance.now();
      sim.closeDoor(cell);
      await closed;
      out.push(performance.now() - t0);
    }
  } finally {
    await doors.stop();
    await hw.stop();
    await sim.stop();
    store.close();
  }
  return out;
}

/** (b): a notification committed in process A -> the receiver holds it (delivered by A, or by B). */
async function commitToReceiver(engine: 'sqlite' | 'postgres', crossProcess: boolean, samples: number): Promise<number[]> {
  const pki = await makeTestPki();
  const receiver: TestReceiver = await startReceiver(pki);
  const tdb = await openTestDatabase(engine);
  const undo: (() => Promise<void>)[] = [() => receiver.down(), () => tdb.close()];
  const out: number[] = [];
  try {
    await provisionFleet(tdb, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());
    const proc = async (): Promise<{ cdb: CloudDatabase; signals: OutboxSignals }> => {
      const cdb = crossProcess ? await openDatabase({ ...tdb.location, poolSize: 4 }) : tdb;
      if (crossProcess) undo.push(() => cdb.close());
      const signals = new OutboxSignals();
      const bridge = bridgeNotificationWakeups(cdb, tdb.location, signals, silent);
      if (bridge) {
        undo.push(() => bridge.stop());
        await bridge.ready();
      }
      return { cdb, signals };
    };
    const a = await proc();
    const b = crossProcess ? await proc() : a;
    const dispatcher: NotificationDispatcher = createNotificationDispatcher(
      { cdb: b.cdb, clock: { now: () => Date.now() }, signals: b.signals, logger: silent },
      loadNotifySettings({}, crossProcess ? { pollSeconds: 3600 } : {}),
    );
    await dispatcher.start();
    undo.push(() => dispatcher.stop());
    await dispatcher.idle();
    for (let i = 0; i < samples; i++) {
      await transaction(a.cdb, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft(`L${i}`, 1)] }));
      const t0 = performance.now();
      a.signals.notificationsRecorded();
      await receiver.waitFor(() => receiver.delivered.length > i);
      out.push(performance.now() - t0);
      await dispatcher.idle();
    }
  } finally {
    for (const fn of undo.reverse()) await fn().catch(() => undefined);
  }
  return out;
}

export const scenario: Scenario = {
  title: 'door to marketplace latency',
  async run({ quick, log }) {
    const n = quick ? 30 : 200;
    const out: Figure[] = [];
    const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;
    // 8N1: 10 bits a byte; a CU48 status read is 6 bytes out and 12 back.
    const wireMs = (BOARDS * 18 * 10 * 1000) / 19200;
    out.push({ name: `(a) bus time of one round, ${BOARDS} x KR-CU48 at 19200 baud (computed, board answer time not included)`, value: Math.round(wireMs * 10) / 10, unit: 'ms', note: `door poll pause ${pollMs} ms` });
    log('door close -> agent committed...');
    const a = await doorToCommit(n);
    out.push(...figures(`(a) door close -> agent committed, in-process pipe (no wire time), poll ${pollMs} ms`, a, { ms: 100 - wireMs, words: 'with the wire time added, < 100 ms' }));
    const engines = testEngines();
    for (const engine of engines) {
      log(`commit -> receiver, ${engine}, same process...`);
      out.push(...figures(`(b) committed -> receiver holds, ${engine}, same process`, await commitToReceiver(engine, false, n), { ms: 50, words: 'p99 < 50 ms' }));
    }
    if (engines.includes('postgres')) {
      log('commit -> receiver, postgres, other process...');
      out.push(...figures('(b) committed -> receiver holds, postgres, another process (LISTEN/NOTIFY)', await commitToReceiver('postgres', true, n), { ms: 50, words: 'p99 < 50 ms' }));
    } else {
      out.push({ name: '(b) another process on PostgreSQL', value: 0, unit: 'ms', note: 'skipped: DATABASE_URL not set' });
    }
    return out;
  },
};

// Run on its own: npx tsx bench/door-latency.scenario.ts [--quick]
if (process.argv[1]?.endsWith('door-latency.scenario.ts')) {
  const figs = await scenario.run({ quick: process.argv.includes('--quick'), log: (l) => console.error(l) });
  for (const f of figs) console.log(`${f.name}: ${f.value} ${f.unit}${f.goal ? ` (goal ${f.goal}: ${f.met ? 'met' : 'not met'})` : ''}${f.note ? ` [${f.note}]` : ''}`);
}
