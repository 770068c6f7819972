/**
 * The agent process killed with SIGKILL in the middle of a load, then started again: the journal
 * is resolved against the doors, the store and the outbox stay consistent, and the parcel can
 * still be loaded. The agent runs as `node --import tsx agent/src/main.ts` (what `tsx` does, in
 * one process, so SIGKILL reaches the agent itself).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCommand } from '../../agent/src/commands/index.js';
import { openStore, type LockerStore } from '../../agent/src/store/index.js';
import { systemClock } from '../../agent/src/clock.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';
import { LOCKER_ID, cell, checkConsistency, commands, eventBodies, grant, lockerConfig, order, parcel } from './fixtures.js';
import { simCell, waitFor } from './harness.js';
import type { ScreenState } from '../../agent/src/screen/server.js';

interface AgentProcess {
  child: ChildProcess;
  url: string;
}

async function spawnAgent(configPath: string): Promise<AgentProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'agent/src/main.ts', '--config', configPath], {
    cwd: process.cwd(),
    env: { ...process.env, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await waitFor(() => /screen: (\S+)/.exec(out)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined), 'the agent to start', 20_000);
  if (url === 'exited') throw new Error(`agent exited: ${err}`);
  return { child, url };
}

async function post(url: string, path: string, body?: unknown): Promise<ScreenState> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as ScreenState;
}

async function kill(p: AgentProcess): Promise<void> {
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGKILL');
  await exited;
}

describe('agent killed in the middle of a load', () => {
  let sim: SimulatorHandle;
  let dir: string;
  let dbPath: string;
  let configPath: string;
  let running: AgentProcess | undefined;

  /** Reads the agent's SQLite file beside the running process (WAL lets both in). */
  function withStore<T>(fn: (s: LockerStore) => T): T {
    const store = openStore(dbPath, systemClock);
    try {
      return fn(store);
    } finally {
      store.close();
    }
  }

  beforeAll(async () => {
    sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: false });
    dir = mkdtempSync(join(tmpdir(), 'agent-crash-'));
    dbPath = join(dir, 'agent.sqlite');
    configPath = join(dir, 'agent.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        lockerId: LOCKER_ID,
        buses: [{ ...sim.busConfig('main'), frameTimeoutMs: 1_000, retries: 1, confirmDelayMs: 10, confirmReads: 2, openAttempts: 2, reconnectMinMs: 50 }],
        dbPath,
        screen: { port: 0 },
        doors: { pollMs: 30 },
      }),
    );
    withStore((store) => {
      for (const c of commands([
        { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]) },
        { type: 'courier.grant', grant: grant('g1', '111111', Date.now() + 3_600_000) },
        { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })], { dateDelivery: '2020-01-01' }) },
      ]))
        applyCommand(store, c);
    });
  });

  afterAll(async () => {
    if (running && running.child.exitCode === null) await kill(running);
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps cell state and outbox consistent across the kill, and the parcel can still be loaded', async () => {
    running = await spawnAgent(configPath);
    await post(running.url, '/api/choose', { kind: 'courier' });
    expect((await post(running.url, '/api/code', { kind: 'courier', code: '111111' })).view.screen).toBe('courier');
    const open = await post(running.url, '/api/scan', { barcode: 'B1' });
    expect(open.view).toMatchObject({ screen: 'load_open', cellId: 2 });
    expect(sim.isOpen(simCell(2))).toBe(true);

    await kill(running);
    withStore((store) => {
      expect(store.journal.all()).toMatchObject([{ kind: 'load', cellId: 2, stage: 'open' }]);
      expect(store.parcels.all()).toEqual([]);
      checkConsistency(store);
    });

    // the courier puts the parcel in and closes the door while the agent is down
    sim.closeDoor(simCell(2));
    running = await spawnAgent(configPath);
    withStore((store) => {
      expect(store.journal.all()).toEqual([]);
      expect(store.parcels.all()).toEqual([]);
      expect(store.cells.get(2)?.flags).toEqual(['needs_inventory']);
      expect(eventBodies(store)).toEqual([
        { type: 'code.attempt', kind: 'courier', ok: true },
        { type: 'cell.flags', cellId: 2, flags: ['needs_inventory'], reason: 'interrupted_operation' },
      ]);
      checkConsistency(store);
    });

    // loading again takes another cell; the flagged one is left for inventory
    await post(running.url, '/api/choose', { kind: 'courier' });
    await post(running.url, '/api/code', { kind: 'courier', code: '111111' });
    const again = await post(running.url, '/api/scan', { barcode: 'B1' });
    expect(again.view).toMatchObject({ screen: 'load_open', cellId: 1 });
    sim.closeDoor(simCell(1));
    await waitFor(() => withStore((s) => s.parcels.get('o1', 'B1')), 'the load to commit');
    withStore((store) => {
      expect(store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 1, state: 'in_cell' });
      expect(eventBodies(store).at(-1)).toEqual({ type: 'parcel.loaded', orderId: 'o1', barcode: 'B1', cellId: 1, grantId: 'g1' });
      checkConsistency(store);
    });
  }, 90_000);
});
