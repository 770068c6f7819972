/**
 * The sandbox lockers' ports: a block from SANDBOX_FIRST_PORT, PORTS_PER_SLOT consecutive ports
 * per slot (screen, simulator, then the hardware links), SANDBOX_MAX_LOCKERS slots. Fixed ports
 * keep a sandbox locker's URLs the same between starts; SANDBOX_FIRST_PORT=0 gives free ones.
 */
import { ConfigError } from '../settings-from-env.js';
import type { PortClaim } from '../port-check.js';
import { SANDBOX_ENV, type SandboxSettings } from './settings.js';

export const PORTS_PER_SLOT = 8;
/** Screen and simulator come first; the rest of a slot is for the hardware links. */
export const HARDWARE_PORTS_PER_SLOT = PORTS_PER_SLOT - 2;

export interface SlotPorts {
  screenPort: number;
  simPort: number;
  /** First of the hardware links (0: free ports). */
  hardwarePort: number;
}

type BlockSettings = Pick<SandboxSettings, 'firstPort' | 'maxLockers'>;

export function slotPorts(settings: BlockSettings, slot: number): SlotPorts {
  if (settings.firstPort === 0) return { screenPort: 0, simPort: 0, hardwarePort: 0 };
  const base = settings.firstPort + slot * PORTS_PER_SLOT;
  return { screenPort: base, simPort: base + 1, hardwarePort: base + 2 };
}

/** Every port of the block, for checkPorts (none with SANDBOX_FIRST_PORT=0). */
export function blockClaims(settings: BlockSettings): PortClaim[] {
  if (settings.firstPort === 0) return [];
  return Array.from({ length: settings.maxLockers * PORTS_PER_SLOT }, (_, k) => ({
    port: settings.firstPort + k,
    what: `the sandbox locker slot ${Math.floor(k / PORTS_PER_SLOT) + 1}`,
    setting: `${SANDBOX_ENV.firstPort} (+${k})`,
  }));
}

/**
 * Refuses a block that runs past port 65535 or covers one of the cloud's own ports (throws
 * ConfigError naming the settings).
 */
export function validatePortBlock(settings: BlockSettings, own: readonly { port: number; setting: string }[]): void {
  if (settings.firstPort === 0) return;
  const last = settings.firstPort + settings.maxLockers * PORTS_PER_SLOT - 1;
  const problems: string[] = [];
  if (last > 65_535) {
    problems.push(`${SANDBOX_ENV.firstPort}=${settings.firstPort} with ${SANDBOX_ENV.maxLockers}=${settings.maxLockers} needs ports up to ${last} (past 65535)`);
  }
  for (const o of own) {
    if (o.port >= settings.firstPort && o.port <= last) {
      problems.push(`${o.setting}=${o.port} lies in the sandbox lockers' block ${settings.firstPort}-${last} (${SANDBOX_ENV.firstPort}, ${SANDBOX_ENV.maxLockers})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid cloud settings:\n${problems.join('\n')}`);
}
