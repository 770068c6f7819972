/**
 * A locker whose SQLite store is behind the cloud's acked_dseq (the file was replaced, or restored
 * from an older backup) records facts offline under numbers the cloud has already applied. The
 * cloud's first ack on the next connection shows it; the agent moves those events above the
 * cloud's ack, and every fact arrives once, none skipped as a duplicate.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderState } from '../../shared/src/enums.js';
import type { LockerEvent } from '../../shared/src/protocol.js';
import { type AgentRig, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';
import { KioskClient } from './kiosk-client.js';

type Row = { dseq: number; type: string; body: unknown };

/** Events as the cloud's inbox keeps them: the fact without its number's time. */
const facts = (events: LockerEvent[]) => events.map(({ dseq: _d, at: _a, ...body }) => body);

async function inbox(w: LinkWorld, id: number): Promise<Row[]> {
  return (await w.inbox(id)).map((e) => ({ dseq: e.dseq, type: e.type, body: JSON.parse(e.body) as unknown }));
}

const outbox = (rig: AgentRig): LockerEvent[] => rig.agent.store.eventsAfter(0, 10_000);
const kiosk = (rig: AgentRig) => new KioskClient(() => rig.agent.screenUrl, rig.sim);

async function offline(w: LinkWorld, rig: AgentRig): Promise<void> {
  rig.proxy.block();
  rig.proxy.cut();
  await eventually(async () => (await w.locker(rig.lockerId)).online === 0, 'the cloud to see the locker offline');
}

describe('a store behind the cloud ack', () => {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await openLinkWorld('sqlite', 'embedded');
  });
  afterAll(async () => w?.close());

  it('replaced by an empty file: the codes tried offline arrive once, after the events the cloud has', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-fresh-${id}`);
    await w.converged(rig);
    for (let i = 0; i < 4; i++) expect((await kiosk(rig).signIn(code)).ok).toBe(true);
    await w.converged(rig);
    const before = outbox(rig);
    const cloudAcked = (await w.locker(id)).acked_dseq;
    expect(cloudAcked).toBe(before.length);

    await rig.stopAgent();
    await offline(w, rig);
    for (const f of [rig.config.dbPath, `${rig.config.dbPath}-wal`, `${rig.config.dbPath}-shm`]) rmSync(f, { force: true });
    await rig.startAgent();
    // An empty store knows no courier: three wrong codes, numbered 1..3 locally.
    for (let i = 0; i < 3; i++) expect((await kiosk(rig).signIn(code)).ok).toBe(false);
    expect(outbox(rig).map((e) => e.dseq)).toEqual([1, 2, 3]);
    const offlineFacts = facts(outbox(rig));

    rig.proxy.unblock();
    await w.converged(rig);
    const after = outbox(rig);
    expect(after.map((e) => e.dseq)).toEqual([cloudAcked + 1, cloudAcked + 2, cloudAcked + 3]);
    expect(facts(after)).toEqual(offlineFacts);
    const rows = await inbox(w, id);
    expect(rows.map((r) => r.dseq)).toEqual(Array.from({ length: cloudAcked + 3 }, (_, i) => i + 1));
    expect(rows.map((r) => r.body)).toEqual([...facts(before), ...offlineFacts]);
    // Numbering goes on from there (the snapshot brought the courier's grant).
    expect((await kiosk(rig).signIn(code)).ok).toBe(true);
    await w.converged(rig);
    expect(outbox(rig).at(-1)?.dseq).toBe(cloudAcked + 4);
    expect((await inbox(w, id)).length).toBe(cloudAcked + 4);
  });

  it('restored from an older backup, with more facts recorded offline than it missed: none is lost', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-restored-${id}`);
    const first = await w.createOrder(id, `restored-a-${id}`);
    const second = await w.createOrder(id, `restored-b-${id}`);
    await w.converged(rig);
    expect((await kiosk(rig).signIn(code)).ok).toBe(true);
    await w.converged(rig);
    const atBackup = outbox(rig).length;
    await rig.stopAgent();
    rig.backup();

    // The original store goes on: two more sign-ins the cloud applies.
    await rig.startAgent();
    for (let i = 0; i < 2; i++) expect((await kiosk(rig).signIn(code)).ok).toBe(true);
    await w.converged(rig);
    const original = outbox(rig);
    const cloudAcked = (await w.locker(id)).acked_dseq;
    expect(cloudAcked).toBe(original.length);
    expect(cloudAcked).toBeGreaterThan(atBackup);
    await rig.stopAgent();

    // The backup comes back and works offline: a sign-in and two loads, more than the 2 it missed.
    await offline(w, rig);
    rig.restore();
    await rig.startAgent();
    const k = kiosk(rig);
    expect((await k.signIn(code)).ok).toBe(true);
    expect((await k.load(first)).kind).toBe('loaded');
    expect((await k.load(second)).kind).toBe('loaded');
    const recorded = outbox(rig).filter((e) => e.dseq > atBackup);
    expect(recorded.length).toBeGreaterThan(cloudAcked - atBackup);
    expect(recorded[0]!.dseq).toBe(atBackup + 1);

    rig.proxy.unblock();
    await w.converged(rig);
    const rows = await inbox(w, id);
    expect(rows.map((r) => r.dseq)).toEqual(Array.from({ length: cloudAcked + recorded.length }, (_, i) => i + 1));
    expect(rows.map((r) => r.body)).toEqual([...facts(original), ...facts(recorded)]);
    expect(outbox(rig).filter((e) => e.dseq > cloudAcked).map((e) => e.dseq)).toEqual(recorded.map((_, i) => cloudAcked + 1 + i));
    expect(await w.orderState(first, code)).toBe(OrderState.CourierLoaded);
    expect(await w.orderState(second, code)).toBe(OrderState.CourierLoaded);
  });
});
