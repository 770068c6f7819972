/**
 * People at a locker, through the agent's screen JSON API, with the simulator doing what their
 * hands do (closing doors). Every layout in the fault suites has one board whose lock number is
 * the cell id. Each function returns what the screen said; nothing here decides whether a fact
 * happened: the agents' outboxes are the record the checker reads.
 */
import type { ScreenState } from '../../agent/src/screen/server.js';
import type { SimulatorHandle } from '../../sim/src/index.js';
import { WAIT_BOUND_MS } from '../helpers/eventually.js';

export type LoadOutcome = { kind: 'loaded'; cellId: number } | { kind: 'refused'; error: string };
export type TakeOutcome = { kind: 'taken'; cells: number[] } | { kind: 'refused'; error: string };

const STEP_MS = 25;

export class KioskClient {
  constructor(
    /** The screen's base URL now (it may change when the agent restarts). */
    private readonly base: () => string,
    private readonly sim: SimulatorHandle,
    private readonly timeoutMs = WAIT_BOUND_MS,
  ) {}

  async state(): Promise<ScreenState> {
    return this.#call('/api/state');
  }

  post(path: string, body?: unknown): Promise<ScreenState> {
    return this.#call(path, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** Waits (polling the screen) until `pred` holds; the agent's door poll decides how soon. */
  async until(pred: (s: ScreenState) => boolean, what: string): Promise<ScreenState> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const s = await this.state();
      if (pred(s)) return s;
      if (Date.now() > deadline) throw new Error(`screen: timed out waiting for ${what}: ${JSON.stringify(s.view)}`);
      await new Promise((r) => setTimeout(r, STEP_MS));
    }
  }

  closeDoor(cellId: number): void {
    this.sim.closeDoor({ bus: 'main', board: 0, lock: cellId });
  }

  /** A courier signs in; true when the courier screen opened. */
  async signIn(code: string): Promise<{ ok: boolean; error?: string }> {
    await this.post('/api/home');
    await this.post('/api/choose', { kind: 'courier' });
    const s = await this.post('/api/code', { kind: 'courier', code });
    return s.view.screen === 'courier' ? { ok: true } : { ok: false, error: s.error?.code ?? 'not_signed_in' };
  }

  /** A signed-in courier scans a parcel; the door that opens is closed with the parcel inside. */
  async load(barcode: string): Promise<LoadOutcome> {
    const s = await this.post('/api/scan', { barcode });
    if (s.view.screen !== 'load_open') return { kind: 'refused', error: s.error?.code ?? s.view.screen };
    const cellId = s.view.cellId;
    this.closeDoor(cellId);
    await this.until((x) => x.view.screen !== 'load_open' && !x.busy, `the load of ${barcode} to end`);
    return { kind: 'loaded', cellId };
  }

  /** A signed-in courier collects the returns the locker offers, closing every door it opens. */
  async collectReturns(): Promise<TakeOutcome> {
    const s = await this.post('/api/returns');
    if (s.view.screen !== 'take_open') return { kind: 'refused', error: s.error?.code ?? s.view.screen };
    const cells = s.view.cells;
    for (const c of cells) this.closeDoor(c);
    await this.until((x) => x.view.screen !== 'take_open' && !x.busy, 'the returned cells to close');
    return { kind: 'taken', cells };
  }

  /** A customer enters a pick-up code, takes the parcels and closes the doors. */
  async pickUp(code: string): Promise<TakeOutcome> {
    await this.post('/api/home');
    await this.post('/api/choose', { kind: 'customer' });
    const s = await this.post('/api/code', { kind: 'customer', code });
    if (s.view.screen !== 'take_open') return { kind: 'refused', error: s.error?.code ?? s.view.screen };
    const cells = s.view.cells;
    for (const c of cells) this.closeDoor(c);
    await this.until((x) => x.view.screen !== 'take_open' && !x.busy, 'the pick-up doors to close');
    return { kind: 'taken', cells };
  }

  async #call(path: string, init?: RequestInit): Promise<ScreenState> {
    const res = await fetch(`${this.base()}${path}`, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as ScreenState;
  }
}
