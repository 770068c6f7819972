/**
 * What the fault suite's child processes (cloud-entry.ts, agent-entry.ts) share with the test:
 * the crash points the test arms over IPC, the line a child writes when it crashes itself, the
 * shared clock, the command digest and the log file.
 */
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';

/** Where a process kills itself (SIGKILL) when armed: at the next time it passes there. */
export type CrashPoint =
  /** The cloud committed events of a batch that applied at least one; its ack is not published. */
  | 'cloud:events-committed'
  /** The cloud read commands and moved its send cursor; the `commands` message is not published. */
  | 'cloud:commands-read'
  /** The agent committed events; the `events` message is not published. */
  | 'agent:events-committed'
  /** The agent applied (committed) commands; their `ack` is not published. */
  | 'agent:commands-applied';

/**
 * IPC from the test: arm a crash point (the next pass kills the process), disarm all, or move the
 * shared clock to `clockOffsetMs` ahead of real time.
 */
export type ChildOrder = { arm: CrashPoint } | { disarm: true } | { clockOffsetMs: number };

/**
 * The child's answer to an order, sent once the order took effect: the test knows which life of
 * the process is armed (an order sent to a process that is starting or dying may never arrive).
 */
export type ChildReply = { armed: CrashPoint } | { disarmed: true } | { clockOffsetMs: number };

/** One line of an agent's record of applied commands and snapshots (FAULT_APPLIED). */
export interface AppliedLine {
  pid: number;
  cseq: number;
  kind: 'command' | 'snapshot';
  /** applyCommand's or applySnapshot's status. */
  status: string;
  type?: string;
  /** digest() of the command as applied. */
  digest?: string;
}

/** The stdout line of a child that is up: `ready <url>`. A crash writes `crash <json>`. */
export const READY = 'ready';
export const CRASH = 'crash';

/** Writes the crash line synchronously, then SIGKILLs this process: nothing after this runs. */
export function crashHere(point: CrashPoint, detail: Record<string, unknown>): never {
  writeSync(1, `${CRASH} ${JSON.stringify({ point, ...detail })}\n`);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is not delivered synchronously on every platform; never go on past a crash point.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
}

/** Armed crash points of this process, set by the test over IPC. */
export class CrashSwitch {
  readonly #armed = new Set<CrashPoint>();

  constructor() {
    process.on('message', (msg: ChildOrder) => {
      let reply: ChildReply;
      if ('arm' in msg) {
        this.#armed.add(msg.arm);
        reply = { armed: msg.arm };
      } else if ('disarm' in msg) {
        this.#armed.clear();
        reply = { disarmed: true };
      } else {
        return;
      }
      process.send?.(reply);
    });
  }

  /** Crashes here when `point` is armed. */
  pass(point: CrashPoint, detail: Record<string, unknown>): void {
    if (this.#armed.has(point)) crashHere(point, detail);
  }
}

/**
 * Every process of a run reads one clock: the run's start moved to a fixed calendar time, so that
 * dates (delivery day, route date, deadlines) never depend on when the suite runs. The test may
 * move it ahead (hours of a working day in a few seconds): the offset a life starts with comes in
 * FAULT_CLOCK_OFFSET, later moves over IPC (`{ clockOffsetMs }`, answered once in effect).
 */
export function sharedClock(env: NodeJS.ProcessEnv): { now(): number } {
  const epoch = Number(env.FAULT_CLOCK_EPOCH);
  const t0 = Number(env.FAULT_CLOCK_T0);
  if (!Number.isFinite(epoch) || !Number.isFinite(t0)) throw new Error('FAULT_CLOCK_EPOCH and FAULT_CLOCK_T0 are required');
  let offset = Number(env.FAULT_CLOCK_OFFSET ?? 0);
  process.on('message', (msg: ChildOrder) => {
    if (!('clockOffsetMs' in msg)) return;
    // The clock only moves ahead: a late order never takes it back.
    offset = Math.max(offset, msg.clockOffsetMs);
    const reply: ChildReply = { clockOffsetMs: msg.clockOffsetMs };
    process.send?.(reply);
  });
  return { now: () => sharedClockAt(epoch, t0, offset) };
}

/** The shared clock's reading at real time `realNow` with `offsetMs` (what the children read). */
export function sharedClockAt(epoch: number, t0: number, offsetMs: number, realNow = Date.now()): number {
  return epoch + (realNow - t0) + offsetMs;
}

export function clockEnv(epoch: number, t0: number): Record<string, string> {
  return { FAULT_CLOCK_EPOCH: String(epoch), FAULT_CLOCK_T0: String(t0) };
}

/** JSON with sorted keys: the same value gives the same text on both sides of the link. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export function digest(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16);
}

/** The child's log: a file per process life (the test prints its tail when a run fails). */
export function fileLogger(name: string, env: NodeJS.ProcessEnv): Logger {
  const dest = env.FAULT_LOG;
  const options = loggerOptions(name, env.FAULT_LOG_LEVEL ?? 'info');
  return dest ? pino(options, pino.destination({ dest, append: true, sync: false, mkdir: true })) : pino({ ...options, level: 'silent' });
}
