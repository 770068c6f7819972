/**
 * The other side's hands at a sandbox locker, through the locker's own public interfaces only:
 * the screen's JSON API (what a courier or a customer taps) and the simulator's control API (a
 * barcode through the scanner's serial bytes, a parcel put in or taken out, a door pushed shut, a
 * jammed lock). docs/agent.md (Screen API) and docs/hardware.md describe both.
 */
import { z } from 'zod';
import type { SandboxRig } from './rig-order.js';

/** The part of the screen's state the sandbox reads (docs/agent.md, Screen API). */
const screenStateSchema = z.object({
  view: z.looseObject({
    screen: z.string(),
    cellId: z.number().optional(),
    barcode: z.string().optional(),
    cells: z.array(z.number()).optional(),
    failedCells: z.array(z.number()).optional(),
  }),
  error: z.looseObject({ code: z.string() }).nullable(),
  busy: z.boolean(),
});
export type ScreenState = z.infer<typeof screenStateSchema>;

type Lock = { bus: string; board: number; lock: number };

/** The part of the simulator's state the sandbox reads (docs/hardware.md, control API). */
const simStateSchema = z.object({
  buses: z.array(z.looseObject({ name: z.string(), boards: z.array(z.looseObject({ address: z.number(), locks: z.array(z.looseObject({ pulses: z.number() })) })) })),
});

async function call(url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

export class LockerHands {
  constructor(private readonly rig: SandboxRig) {}

  // --- the screen -----------------------------------------------------------------------------
  async screen(): Promise<ScreenState> {
    return screenStateSchema.parse(await call(`${this.rig.screenUrl}/api/state`));
  }

  async tap(action: 'home' | 'back', body: Record<string, unknown> = {}): Promise<ScreenState> {
    return screenStateSchema.parse(await call(`${this.rig.screenUrl}/api/${action}`, body));
  }

  async choose(kind: 'courier' | 'customer'): Promise<ScreenState> {
    return screenStateSchema.parse(await call(`${this.rig.screenUrl}/api/choose`, { kind }));
  }

  async typeCode(kind: 'courier' | 'customer', code: string): Promise<ScreenState> {
    return screenStateSchema.parse(await call(`${this.rig.screenUrl}/api/code`, { kind, code }));
  }

  /** On the courier menu: "Collect returns" opens every cell holding a collectable parcel of the courier's marketplaces. */
  async collectReturns(): Promise<ScreenState> {
    return screenStateSchema.parse(await call(`${this.rig.screenUrl}/api/returns`, {}));
  }

  /** A barcode: through the simulated scanner's bytes when the locker has one, typed on the screen otherwise. */
  async scan(barcode: string): Promise<void> {
    if (this.rig.hasScanner) await call(`${this.rig.simUrl}/scan`, { barcode });
    else await call(`${this.rig.screenUrl}/api/scan`, { barcode });
  }

  // --- the simulated hardware -----------------------------------------------------------------
  async putParcel(lock: Lock): Promise<void> {
    await call(`${this.rig.simUrl}/items/put`, lock);
  }

  async takeParcel(lock: Lock): Promise<void> {
    await call(`${this.rig.simUrl}/items/take`, lock);
  }

  async closeDoor(lock: Lock): Promise<void> {
    await call(`${this.rig.simUrl}/doors/close`, lock);
  }

  async jam(lock: Lock): Promise<void> {
    await call(`${this.rig.simUrl}/faults`, { kind: 'jammed', ...lock });
  }

  /** Unlock pulses the lock has received so far (the simulator's state). */
  async pulses(lock: Lock): Promise<number> {
    const state = simStateSchema.parse(await call(`${this.rig.simUrl}/state`));
    const board = state.buses.find((b) => b.name === lock.bus)?.boards.find((b) => b.address === lock.board);
    return board?.locks[lock.lock - 1]?.pulses ?? 0;
  }

  async unjam(lock: Lock): Promise<void> {
    await call(`${this.rig.simUrl}/faults/clear`, { kind: 'jammed', ...lock });
  }
}
