/**
 * `npm run sim -- <command>`: start a simulated locker, or drive a running one through its
 * control API. Run `npm run sim -- help` for the commands.
 */
import { parseArgs } from 'node:util';
import { BOARD_FAMILIES, SCAN_SUFFIXES } from '@parcel-locker/hw-protocol';
import { SIM_FAULT_KINDS } from './faults.js';
import type { SimulatorState } from './simulator.js';
import { startSimulator, type SimBusOptions } from './simulator.js';
import type { SimFamily } from './responders.js';
import type { ScanSuffix } from './simulated-scanner.js';
import { onStopSignals } from '../../shared/src/stop-signals.js';

const DEFAULT_HTTP_PORT = 8790;
const FAMILIES: readonly SimFamily[] = BOARD_FAMILIES;
const SUFFIXES: readonly ScanSuffix[] = SCAN_SUFFIXES;

export const USAGE = `Locker hardware simulator

  npm run sim -- start [options]           start a simulated locker (stops on Ctrl-C)
      --bus NAME:FAMILY:BOARDS[:PORT]      a bus; repeatable (default main:kerong-cu48:2)
                                           FAMILY: ${FAMILIES.join(', ')}
      --pty                                also expose every bus and the scanner as a pseudo-terminal (socat)
      --http-port N                        control API port (default ${DEFAULT_HTTP_PORT}; 0 = any free port)
      --scanner-port N                     scanner TCP port (default: any free port)
      --scanner-suffix crlf|cr|lf|none     what ends a scan (default crlf)
      --aim PREFIX                         AIM prefix before every scan, e.g. ]C1
      --no-scanner                         no scanner
      --auto-close-ms N                    close every door N ms after it opened
      --seed N                             seed of the noise generator

  Commands for a running simulator (--url, default http://127.0.0.1:${DEFAULT_HTTP_PORT} or $SIM_URL):
  npm run sim -- state [--json]            doors, items, pulses and faults
  npm run sim -- open BOARD LOCK [--bus B]  the door swings open (service key)
  npm run sim -- close BOARD LOCK [--bus B] a person pushes the door shut
  npm run sim -- put|take BOARD LOCK [--bus B]  put an item in / take it out (door must be open)
  npm run sim -- scan BARCODE [--aim ]C1] [--suffix cr]
  npm run sim -- garbage                   the scanner sends a burst of garbage
  npm run sim -- fault KIND [--bus B] [--board N] [--lock N] [--count N] [--bytes N]
  npm run sim -- clear KIND [--bus B] [--board N] [--lock N]
  npm run sim -- clear-all
      KIND: ${SIM_FAULT_KINDS.join(', ')}
`;

const options = {
  bus: { type: 'string', multiple: true },
  pty: { type: 'boolean' },
  'http-port': { type: 'string' },
  'scanner-port': { type: 'string' },
  'scanner-suffix': { type: 'string' },
  aim: { type: 'string' },
  'no-scanner': { type: 'boolean' },
  'auto-close-ms': { type: 'string' },
  seed: { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
  board: { type: 'string' },
  lock: { type: 'string' },
  count: { type: 'string' },
  bytes: { type: 'string' },
  suffix: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

function int(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${what} must be a whole number, got "${value}"`);
  return n;
}

function required(value: number | undefined, what: string): number {
  if (value === undefined) throw new UsageError(`${what} is required`);
  return value;
}

export function parseBusSpec(spec: string): SimBusOptions {
  const [name, family, boards, port] = spec.split(':');
  if (!name || !family || !FAMILIES.includes(family as SimFamily)) throw new UsageError(`--bus NAME:FAMILY:BOARDS[:PORT], FAMILY one of ${FAMILIES.join(', ')}`);
  return { name, family: family as SimFamily, boards: int(boards ?? '1', 'BOARDS') ?? 1, port: int(port, 'PORT') ?? 0 };
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json()) as { error?: string };
  if (!res.ok) throw new Error(answer.error ?? `HTTP ${res.status}`);
  return answer;
}

export function formatState(state: SimulatorState): string {
  const lines: string[] = [];
  for (const bus of state.buses) {
    lines.push(`bus ${bus.name} (${bus.family})${bus.noiseBytes ? `, noise ${bus.noiseBytes} bytes` : ''}`);
    for (const b of bus.boards) {
      const pick = (f: (l: (typeof b.locks)[number]) => boolean): string =>
        b.locks.flatMap((l, i) => (f(l) ? [i + 1] : [])).join(',') || '-';
      const faults = [b.noReply ? `no-reply ${b.noReply}` : '', b.badChecksum ? `bad-checksum ${b.badChecksum}` : ''].filter(Boolean).join(', ');
      lines.push(
        `  board ${b.address}${b.polarity === 'inverted' ? ' (inverted)' : ''}: open ${pick((l) => l.open)}; items ${pick((l) => l.item)}; ` +
          `jammed ${pick((l) => l.jammed)}; left open ${pick((l) => l.leftOpen)}${faults ? `; ${faults}` : ''}`,
      );
    }
  }
  if (state.scanner) lines.push(`scanner: suffix ${state.scanner.suffix}, ${state.scanner.scans} scans${state.scanner.garbage ? ', garbage on' : ''}`);
  return lines.join('\n');
}

async function start(values: ReturnType<typeof parse>['values']): Promise<void> {
  const buses = (values.bus ?? ['main:kerong-cu48:2']).map(parseBusSpec).map((b) => ({ ...b, pty: values.pty ?? false }));
  const suffix = values['scanner-suffix'] ?? 'crlf';
  if (!SUFFIXES.includes(suffix as ScanSuffix)) throw new UsageError(`--scanner-suffix is one of ${SUFFIXES.join(', ')}`);
  const sim = await startSimulator({
    buses,
    scanner: values['no-scanner']
      ? false
      : { port: int(values['scanner-port'], '--scanner-port') ?? 0, pty: values.pty ?? false, suffix: suffix as ScanSuffix, aimPrefix: values.aim },
    http: { port: int(values['http-port'], '--http-port') ?? DEFAULT_HTTP_PORT },
    autoCloseMs: int(values['auto-close-ms'], '--auto-close-ms'),
    seed: int(values.seed, '--seed'),
  });
  console.log(`control API  ${sim.httpUrl ?? ''}`);
  for (const b of sim.buses) console.log(`bus ${b.name.padEnd(8)} ${b.family} boards ${b.boards.map((x) => x.address).join(',')}  ${b.url}${b.ptyPath ? `  ${b.ptyPath}` : ''}`);
  if (sim.scannerUrl) console.log(`scanner      ${sim.scannerUrl}${sim.scannerPtyPath ? `  ${sim.scannerPtyPath}` : ''}`);
  const agentConfig = { buses: sim.buses.map((b) => sim.busConfig(b.name)), scanner: sim.scannerUrl ? sim.scannerConfig() : undefined };
  console.log(`agent hardware settings:\n${JSON.stringify(agentConfig, null, 2)}`);
  onStopSignals(() => sim.stop());
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

/** The simulator CLI's one setting from the environment. */
export interface SimEnv {
  /** The running simulator's control API, when --url is not given. */
  SIM_URL?: string | undefined;
}

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[], env: SimEnv = {}): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    const [command, ...args] = positionals;
    const url = (values.url ?? env.SIM_URL ?? `http://127.0.0.1:${DEFAULT_HTTP_PORT}`).replace(/\/$/, '');
    const cell = (): { bus?: string; board: number; lock: number } => ({
      bus: values.bus?.[0],
      board: required(int(args[0] ?? values.board, 'BOARD'), 'BOARD'),
      lock: required(int(args[1] ?? values.lock, 'LOCK'), 'LOCK'),
    });
    const fault = (kind: string | undefined): Record<string, unknown> => {
      if (!kind || !SIM_FAULT_KINDS.includes(kind as never)) throw new UsageError(`KIND is one of ${SIM_FAULT_KINDS.join(', ')}`);
      return {
        kind,
        bus: values.bus?.[0],
        board: int(values.board, '--board'),
        lock: int(values.lock, '--lock'),
        count: int(values.count, '--count'),
        bytes: int(values.bytes, '--bytes'),
      };
    };
    switch (command) {
      case undefined:
      case 'help':
        console.log(USAGE);
        return 0;
      case 'start':
        await start(values);
        return 0;
      case 'state': {
        const state = (await call(url, 'GET', '/state')) as SimulatorState;
        console.log(values.json ? JSON.stringify(state, null, 2) : formatState(state));
        return 0;
      }
      case 'open':
        await call(url, 'POST', '/doors/open', cell());
        console.log('door open');
        return 0;
      case 'close': {
        const { closed } = (await call(url, 'POST', '/doors/close', cell())) as { closed: boolean };
        console.log(closed ? 'door closed' : 'the door cannot be closed (door-left-open fault)');
        return 0;
      }
      case 'put':
      case 'take':
        await call(url, 'POST', `/items/${command}`, cell());
        console.log(command === 'put' ? 'item in' : 'item out');
        return 0;
      case 'scan': {
        if (!args[0]) throw new UsageError('scan BARCODE');
        await call(url, 'POST', '/scan', { barcode: args[0], aimPrefix: values.aim, suffix: values.suffix });
        console.log('scanned');
        return 0;
      }
      case 'garbage':
        await call(url, 'POST', '/scanner/garbage');
        console.log('garbage sent');
        return 0;
      case 'fault':
        await call(url, 'POST', '/faults', fault(args[0]));
        console.log(`fault ${args[0] ?? ''} on`);
        return 0;
      case 'clear':
        await call(url, 'POST', '/faults/clear', fault(args[0]));
        console.log(`fault ${args[0] ?? ''} off`);
        return 0;
      case 'clear-all':
        await call(url, 'DELETE', '/faults');
        console.log('every fault off');
        return 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}
