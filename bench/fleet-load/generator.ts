/**
 * One load-generator process: a LightFleet driven over the IPC channel of its parent
 * (GeneratorPool). Every request names an operation and gets one reply with the same id.
 */
import { LightFleet, type FleetLocker, type LightFleetOptions } from './light-fleet.js';

export type GeneratorRequest =
  | { id: number; op: 'start'; lockers: FleetLocker[]; options: LightFleetOptions }
  | { id: number; op: 'stats' | 'cut' | 'load' | 'stop' | 'usage' }
  | { id: number; op: 'deaf'; on: boolean }
  | { id: number; op: 'expect'; more: number }
  | { id: number; op: 'watch'; prefix: string };

let fleet: LightFleet | undefined;

function handle(req: GeneratorRequest): unknown {
  if (req.op === 'start') {
    fleet = new LightFleet(req.lockers, req.options);
    fleet.start();
    return null;
  }
  if (req.op === 'usage') {
    const u = process.cpuUsage();
    return { cpuSeconds: (u.user + u.system) / 1e6, rssBytes: process.memoryUsage.rss() };
  }
  if (req.op === 'stop' && !fleet) return null;
  if (!fleet) throw new Error('generator not started');
  switch (req.op) {
    case 'stats':
      return fleet.stats();
    case 'cut':
      return fleet.cut();
    case 'load':
      return fleet.loadReserved();
    case 'deaf':
      return fleet.setDeaf(req.on);
    case 'expect':
      return fleet.expectApplied(req.more);
    case 'watch':
      return fleet.watchOrders(req.prefix);
    case 'stop':
      fleet.stop();
      return null;
  }
}

process.on('message', (req: GeneratorRequest) => {
  let reply: { id: number; result?: unknown; error?: string };
  try {
    reply = { id: req.id, result: handle(req) ?? null };
  } catch (err) {
    reply = { id: req.id, error: (err as Error).message };
  }
  // After the reply to a stop, the channel closes and the process ends (the DISCONNECTs flushed).
  process.send?.(reply, () => {
    if (req.op === 'stop') setTimeout(() => process.disconnect(), 200);
  });
});
