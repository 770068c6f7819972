/**
 * The locker of bench/door-chain-rig.ts in a process of its own, as on a real locker (its agent's
 * door polls and SQLite writes do not share the cloud's event loop): the hardware simulator and
 * the agent (startLockerRig), driven over IPC. Started with the locker's spec as argv[2]; answers
 * `ready`, then for each `sample` (an order the cloud has just reserved) opens its cell for the
 * load, closes the simulated door at a random point of the poll cycle and answers the times
 * (epoch ms: performance.timeOrigin + now, comparable across the two processes) at which the door
 * closed, the agent committed it and the agent handed the event to the broker, and the event's dseq.
 */
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { agentConfigSchema } from '../agent/src/config.js';
import type { DoorChange } from '../agent/src/locker/doors.js';
import type { LinkHooks } from '../agent/src/sync/index.js';
import type { FleetLocker } from '../cloud/src/fleet/fleet-schema.js';
import { startLockerRig } from '../demo/fleet-runner.js';

export interface LockerSpec {
  locker: FleetLocker;
  brokerUrl: string;
  password: string;
  dataDir: string;
}

export type ToLocker = { type: 'sample'; externalId: string; barcode: string } | { type: 'stop' };
export type FromLocker = { type: 'ready' } | { type: 'sample'; closed: number; committed: number; published: number; dseq: number } | { type: 'error'; message: string };

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const send = (m: FromLocker) => process.send?.(m);

const spec = JSON.parse(process.argv[2]!) as LockerSpec;
const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;

/** Orders applied (by external id), and the one a sample waits for. */
const applied = new Set<string>();
let awaited: { externalId: string; resolve: () => void } | undefined;
/** The highest dseq handed to the broker, and when; the one a sample waits for. */
let publishedUpTo = 0;
let publishedAt = 0;
let awaitedDseq: { dseq: number; resolve: (at: number) => void } | undefined;

const hooks: LinkHooks = {
  beforePublish(m) {
    if (m.type !== 'events') return;
    publishedUpTo = Math.max(publishedUpTo, ...m.items.map((e) => e.dseq));
    publishedAt = now();
    if (awaitedDseq && awaitedDseq.dseq <= publishedUpTo) {
      awaitedDseq.resolve(publishedAt);
      awaitedDseq = undefined;
    }
  },
  afterApply(command) {
    if (command.type !== 'order.upsert') return;
    applied.add(command.order.externalId);
    if (awaited?.externalId === command.order.externalId) awaited.resolve();
  },
};

const rig = await startLockerRig({
  locker: spec.locker,
  mqtt: { url: spec.brokerUrl, password: spec.password },
  dataDir: spec.dataDir,
  screenPort: 0,
  simPort: null,
  logger: pino({ level: 'silent' }),
  agentDeps: { link: { hooks } },
});
const { agent } = rig;
const doors = agent.locker.doors;

const doorChange = (cellId: number, closed: boolean): Promise<number> =>
  new Promise((resolve) => {
    const on = (c: DoorChange): void => {
      if (c.cellId !== cellId || c.closed !== closed) return;
      doors.off('change', on);
      resolve(now());
    };
    doors.on('change', on);
  });

async function sample(externalId: string, barcode: string): Promise<FromLocker> {
  if (!applied.has(externalId)) await new Promise<void>((resolve) => (awaited = { externalId, resolve }));
  awaited = undefined;
  const [match] = agent.store.orders.findByBarcode(barcode);
  const cell = agent.store.cells.get(match!.parcel.cellId!)!;
  const opened = doorChange(cell.id, false);
  const outcome = await agent.locker.ops.openForLoad(cell, { orderId: match!.order.intent.orderId, barcode, grantId: `g-${externalId}` });
  if (!outcome.ok) throw new Error(`cell ${cell.id} did not open (${outcome.reason})`);
  await opened;
  // The close falls anywhere in the poll cycle.
  await sleep(Math.random() * (pollMs + 20));
  const committed = doorChange(cell.id, true);
  const closed = now();
  rig.sim.closeDoor(rig.lockOf(cell.id));
  const committedAt = await committed;
  const dseq = agent.store.outbox.lastDseq();
  const published = dseq <= publishedUpTo ? publishedAt : await new Promise<number>((resolve) => (awaitedDseq = { dseq, resolve }));
  return { type: 'sample', closed, committed: committedAt, published, dseq };
}

process.on('message', (m: ToLocker) => {
  if (m.type === 'stop') {
    void rig.stop().then(() => process.exit(0));
    return;
  }
  sample(m.externalId, m.barcode).then(send, (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.message : String(err) }));
});

// Ready: connected, layout applied, every door read once.
const ready = (): boolean => agent.link?.connected === true && agent.store.cells.all().length === spec.locker.cells.length && agent.store.cells.all().every((c) => c.door === 'closed');
for (const end = Date.now() + 30_000; !ready(); await sleep(20)) {
  if (Date.now() > end) {
    send({ type: 'error', message: 'the agent did not come up' });
    process.exit(1);
  }
}
send({ type: 'ready' });
