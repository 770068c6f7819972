/**
 * An agent running against the hardware simulator: real bytes over TCP (or a pseudo-terminal),
 * a real SQLite file, the screen's real HTTP API. Time for the agent is a ManualClock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyCommand } from '../../agent/src/commands/index.js';
import { openStore, type LockerStore } from '../../agent/src/store/index.js';
import { startAgent, type RunningAgent } from '../../agent/src/agent.js';
import { parseAgentConfig, type AgentConfig } from '../../agent/src/config.js';
import type { ScreenState } from '../../agent/src/screen/server.js';
import type { CommandBody } from '../../shared/src/protocol.js';
import { startSimulator, type SimCell, type SimulatorHandle } from '../../sim/src/index.js';
import { LOCKER_ID, ManualClock, NOON, commands } from './fixtures.js';
import { WAIT_BOUND_MS, eventually } from '../helpers/eventually.js';

export interface HarnessOptions {
  via?: 'tcp' | 'pty';
  boards?: number;
  scanner?: boolean;
  clock?: ManualClock;
  config?: Record<string, unknown>;
}

export interface Harness {
  sim: SimulatorHandle;
  agent: RunningAgent;
  clock: ManualClock;
  config: AgentConfig;
  dir: string;
  /** Applies command bodies as the next cseqs, as the locker link would. */
  send(...bodies: CommandBody[]): void;
  get(path: string): Promise<ScreenState>;
  post(path: string, body?: unknown): Promise<ScreenState>;
  postRaw(path: string, body?: unknown): Promise<Response>;
  /** Polls the screen state until `pred` holds. */
  until(pred: (s: ScreenState) => boolean, what: string): Promise<ScreenState>;
  /** Stops the agent (the simulator keeps its doors), lets `prepare` edit the file, starts it again. */
  restart(prepare?: (store: LockerStore) => void): Promise<void>;
  stop(): Promise<void>;
}

/** Waits for a condition the agent reaches asynchronously (door polls, scans). */
export function waitFor<T>(fn: () => T | undefined | false | null, what: string, timeoutMs = WAIT_BOUND_MS): Promise<T> {
  return eventually(fn, what, timeoutMs);
}

/**
 * Until every board has answered `reads` more requests than now: with one frame in flight per
 * bus, the agent has then handled at least one full door poll since the call. What a test checks
 * did not happen has had its chance to (instead of sleeping a while, which on a busy machine may
 * cover no poll at all).
 */
export async function pollsPassed(h: Pick<Harness, 'sim'>, reads = 2): Promise<void> {
  const requests = () => h.sim.state().buses.flatMap((b) => b.boards.map((x) => x.requests));
  const from = requests();
  await waitFor(() => requests().every((n, i) => n >= from[i]! + reads), `${reads} reads of every board`);
}

export function simCell(lock: number, board = 0): SimCell {
  return { bus: 'main', board, lock };
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const via = opts.via ?? 'tcp';
  const sim = await startSimulator({
    buses: [{ name: 'main', family: 'kerong-cu48', boards: opts.boards ?? 1, pty: via === 'pty' }],
    scanner: opts.scanner === false ? false : { suffix: 'crlf', pty: via === 'pty' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'agent-it-'));
  const clock = opts.clock ?? new ManualClock(NOON);
  const config = parseAgentConfig({
    lockerId: LOCKER_ID,
    // A frame timeout long beside a busy machine's stalls: a short one made boards flap offline under load.
    buses: [{ ...sim.busConfig('main', via), frameTimeoutMs: 1_000, retries: 1, confirmDelayMs: 10, confirmReads: 2, openAttempts: 2, reconnectMinMs: 50 }],
    ...(opts.scanner === false ? {} : { scanner: sim.scannerConfig(via) }),
    dbPath: join(dir, 'agent.sqlite'),
    screen: { port: 0, defaultLanguage: 'en' },
    doors: { pollMs: 30, leftOpenMs: 60_000 },
    ...opts.config,
  });
  let agent: RunningAgent;
  try {
    agent = await startAgent(config, { clock, logLevel: process.env.LOG_LEVEL ?? 'silent' });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  let cseq = agent.store.appliedCseq();
  const postRaw = (path: string, body?: unknown) =>
    fetch(`${h.agent.screenUrl}${path}`, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const h: Harness = {
    sim,
    agent,
    clock,
    config,
    dir,
    send(...bodies) {
      for (const c of commands(bodies, cseq + 1, clock.now())) {
        const r = applyCommand(h.agent.store, c);
        if (r.status !== 'applied') throw new Error(`command ${c.cseq} ${r.status}`);
        cseq = c.cseq;
      }
    },
    async get(path) {
      const res = await fetch(`${h.agent.screenUrl}${path}`);
      return (await res.json()) as ScreenState;
    },
    async post(path, body) {
      const res = await postRaw(path, body);
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as ScreenState;
    },
    postRaw,
    async until(pred, what) {
      const deadline = Date.now() + WAIT_BOUND_MS;
      for (;;) {
        const last = await h.get('/api/state');
        if (pred(last)) return last;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last state ${JSON.stringify(last)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async restart(prepare) {
      await h.agent.stop();
      if (prepare) {
        const store = openStore(config.dbPath, clock);
        try {
          prepare(store);
        } finally {
          store.close();
        }
      }
      h.agent = await startAgent(config, { clock, logLevel: process.env.LOG_LEVEL ?? 'silent' });
    },
    async stop() {
      await h.agent.stop();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** A signed-in courier loads one parcel: scan, door opens, door closes. Returns the cell. */
export async function loadParcel(h: Harness, barcode: string): Promise<number> {
  const s = await h.post('/api/scan', { barcode });
  if (s.view.screen !== 'load_open') throw new Error(`no cell opened for ${barcode}: ${JSON.stringify(s)}`);
  const cellId = s.view.cellId;
  h.sim.closeDoor(simCell(h.agent.store.cells.get(cellId)!.lock));
  await h.until((x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded' && x.view.notice.barcode === barcode, `load of ${barcode}`);
  return cellId;
}

export async function signInCourier(h: Harness, code: string): Promise<ScreenState> {
  await h.post('/api/choose', { kind: 'courier' });
  return h.post('/api/code', { kind: 'courier', code });
}
