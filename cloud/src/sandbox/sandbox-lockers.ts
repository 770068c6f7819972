/**
 * The cloud runs its fleet's sandbox lockers: one child process per active sandbox locker
 * (locker-process.ts: simulator plus agent, its own SQLite file under SANDBOX_DATA_DIR), linked
 * to the embedded broker with a password this process makes at each start (its hash goes to the
 * locker's row, which a fleet reload keeps). A scheduler job compares the running lockers with
 * the database every few seconds: it starts new and crashed ones, restarts a locker whose wiring
 * changed and stops those no longer active. The sandbox operations find a locker's screen and
 * simulator here (`rigOf`). Each locker takes a slot of the port block (port-block.ts): the
 * lowest free one, in locker id order at start, kept while it runs; with every slot taken a new
 * locker is not started (logged once, counted) until one is freed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { type BoardFamily, CellFlag } from '../../../shared/src/enums.js';
import type { CloudPart, PartDeps } from '../cloud-part.js';
import { activeLockers, type Cell, cellsOf, findCell, type Locker, setSandboxMqttPasswordHash } from '../repositories/lockers.js';
import { setCellFlags } from '../operator/cell-flags.js';
import type { Job } from '../scheduler.js';
import { checkPorts } from '../port-check.js';
import { LockerHands } from './locker-hands.js';
import { blockClaims, HARDWARE_PORTS_PER_SLOT, slotPorts } from './port-block.js';
import { type Lock, READY_PREFIX, type RigOrder, rigReadySchema, type SandboxRig } from './rig-order.js';
import type { SandboxSettings } from './settings.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCRIPT = join(import.meta.dirname, 'locker-process.ts');
const RECONCILE_MS = 5_000;
const STOP_GRACE_MS = 10_000;

/** The name the audit log gives the sandbox when it clears a flag its own fault raised. */
export const SANDBOX_ACTOR = 'sandbox';

export interface ArmedJam {
  lock: Lock;
  marketplaceId: string;
  /** The lock's pulse count when armed: more means the locker has tried to open it since. */
  pulses: number;
}

interface Child {
  proc: ChildProcess;
  /** The wiring it was started with; a change restarts it. */
  wiring: string;
  ready: Promise<SandboxRig>;
  rig: SandboxRig | undefined;
  exited: Promise<void>;
}

export interface SandboxLockersOptions {
  settings: SandboxSettings;
  /** The embedded broker's URL once it runs; undefined with an external broker (no sandbox lockers then). */
  brokerUrl: () => string | undefined;
}

function wiringOf(locker: Locker, cells: readonly Cell[]): string {
  return JSON.stringify([locker.profile.boardFamily ?? null, locker.scanner, locker.timezone, cells.map((c) => [c.id, c.bus, c.board, c.lock, c.width, c.height])]);
}

export class SandboxLockers implements CloudPart {
  readonly name = 'sandbox-lockers';
  readonly #deps: PartDeps;
  readonly #opts: SandboxLockersOptions;
  readonly #log: Logger;
  readonly #children = new Map<number, Child>();
  readonly #job: Job<void>;
  /** Locks the sandbox jammed, by locker and cell, with the marketplace that jammed each. */
  readonly #jams = new Map<number, Map<number, ArmedJam>>();
  /** Repairs under way, by `lockerId:cellId`. */
  readonly #repairs = new Map<string, Promise<void>>();
  /** Slot of each locker that has one (running or starting). */
  readonly #slots = new Map<number, number>();
  /** Lockers refused a slot, so the refusal is logged and counted once per locker. */
  readonly #refused = new Set<number>();
  #stopped = true;
  #warned = false;

  constructor(deps: PartDeps, opts: SandboxLockersOptions) {
    this.#deps = deps;
    this.#opts = opts;
    this.#log = deps.logger.child({ part: 'sandbox-lockers' });
    this.#job = deps.scheduler.job('sandbox-lockers', () => this.#reconcile(), { everyMs: RECONCILE_MS });
  }

  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    mkdirSync(resolve(this.#opts.settings.dataDir), { recursive: true });
    // The whole block, before any locker starts: a taken port is one error naming SANDBOX_FIRST_PORT.
    await checkPorts(blockClaims(this.#opts.settings));
    this.#job.start();
    await this.#job.run();
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#job.stop();
    await Promise.all([...this.#children.keys()].map((id) => this.#stopChild(id)));
  }

  /** Compare with the database now (after a fleet reload) instead of within a few seconds. */
  refresh(): Promise<void> {
    return this.#job.run();
  }

  /** The running locker, once its process is ready; undefined when this process does not run it. */
  async rigOf(lockerId: number): Promise<SandboxRig | undefined> {
    const child = this.#children.get(lockerId) ?? (await this.refresh(), this.#children.get(lockerId));
    if (!child) return undefined;
    try {
      return await child.ready;
    } catch {
      return undefined;
    }
  }

  /** The sandbox jammed this cell's lock for the marketplace: the next open of that cell fails. */
  jammed(lockerId: number, cellId: number, jam: ArmedJam): void {
    const jams = this.#jams.get(lockerId) ?? new Map<number, ArmedJam>();
    jams.set(cellId, jam);
    this.#jams.set(lockerId, jams);
  }

  /** The sandbox's jam of this cell's lock, while armed (until repaired). */
  armedJam(lockerId: number, cellId: number): ArmedJam | undefined {
    return this.#jams.get(lockerId)?.get(cellId);
  }

  /** The cells the marketplace's jams hold, by locker. */
  jamsOf(marketplaceId: string): { lockerId: number; cellId: number }[] {
    return [...this.#jams].flatMap(([lockerId, jams]) => [...jams].filter(([, j]) => j.marketplaceId === marketplaceId).map(([cellId]) => ({ lockerId, cellId })));
  }

  /**
   * The jam has done its part (or is no longer wanted): the lock works again, then the cell's
   * `faulty` flag, which only the sandbox's fault raised, is cleared (audited as the sandbox), so
   * the cell serves again without an operator. Repairing before clearing means the locker never
   * gets the cell back while its lock still jams.
   */
  repair(lockerId: number, cellId: number): Promise<void> {
    const key = `${lockerId}:${cellId}`;
    const running = this.#repairs.get(key);
    if (running) return running;
    const jam = this.#jams.get(lockerId)?.get(cellId);
    if (!jam) return Promise.resolve();
    // One repair at a time per cell: a play and the periodic check share it. The jam stays armed
    // (armedJam) until the flag is cleared too.
    const repair = this.#repairNow(lockerId, cellId, jam).finally(() => {
      this.#repairs.delete(key);
      this.#jams.get(lockerId)?.delete(cellId);
    });
    this.#repairs.set(key, repair);
    return repair;
  }

  async #repairNow(lockerId: number, cellId: number, jam: ArmedJam): Promise<void> {
    const rig = this.#children.get(lockerId)?.rig;
    if (rig) await new LockerHands(rig).unjam(jam.lock);
    const cell = await findCell(this.#deps.cdb.db, lockerId, cellId);
    if (cell?.flags.includes(CellFlag.Faulty)) {
      await setCellFlags(this.#deps, lockerId, cellId, { [CellFlag.Faulty]: false }, { operator: SANDBOX_ACTOR, reason: `the sandbox repaired the lock it jammed for ${jam.marketplaceId}` });
    }
  }

  /** The lockers running now (the demo prints them). */
  running(): SandboxRig[] {
    return [...this.#children.values()].flatMap((c) => (c.rig ? [c.rig] : []));
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    const brokerUrl = this.#opts.brokerUrl();
    const lockers = await activeLockers(this.#deps.cdb.db, { sandbox: true });
    if (!brokerUrl) {
      if (lockers.length > 0 && !this.#warned) {
        this.#warned = true;
        this.#log.warn({ lockers: lockers.map((l) => l.id) }, 'sandbox lockers run only with the embedded MQTT broker; none started');
      }
      return;
    }
    const wanted = new Map<number, { locker: Locker; cells: Cell[] }>();
    for (const locker of lockers) wanted.set(locker.id, { locker, cells: await cellsOf(this.#deps.cdb.db, locker.id) });
    for (const [id, child] of this.#children) {
      const w = wanted.get(id);
      if (!w || wiringOf(w.locker, w.cells) !== child.wiring || child.proc.exitCode !== null || child.proc.signalCode !== null) await this.#stopChild(id);
    }
    for (const id of this.#slots.keys()) if (!wanted.has(id)) this.#slots.delete(id);
    for (const id of this.#refused) if (!wanted.has(id)) this.#refused.delete(id);
    for (const [id, w] of [...wanted].sort(([a], [b]) => a - b)) {
      if (this.#children.has(id)) continue;
      const slot = this.#slotFor(w.locker, w.cells);
      if (slot !== undefined) await this.#launch(w.locker, w.cells, brokerUrl, slot);
    }
    await this.#repairJams();
  }

  /**
   * A jam whose cell the locker has flagged faulty has run the door-fault path: repaired. The
   * sandbox's operations repair their jams before they answer (operations.ts); this catches a jam
   * exercised another way (someone at the locker's screen).
   */
  async #repairJams(): Promise<void> {
    for (const [lockerId, jams] of this.#jams) {
      for (const cellId of [...jams.keys()]) {
        const cell = await findCell(this.#deps.cdb.db, lockerId, cellId);
        if (cell && !cell.flags.includes(CellFlag.Faulty)) continue;
        await this.repair(lockerId, cellId).catch((err: unknown) => this.#log.warn({ err, lockerId, cellId }, 'sandbox: repairing a jammed lock failed'));
      }
    }
  }

  /** The lowest free slot of the block, or undefined (logged and counted once per locker) when none fits. */
  #slotFor(locker: Locker, cells: readonly Cell[]): number | undefined {
    const kept = this.#slots.get(locker.id);
    if (kept !== undefined) return kept;
    const refuse = (reason: 'no_slot' | 'too_many_links', msg: string): undefined => {
      if (this.#refused.has(locker.id)) return undefined;
      this.#refused.add(locker.id);
      this.#deps.metrics.sandbox.refused(reason);
      this.#log.error({ lockerId: locker.id, firstPort: this.#opts.settings.firstPort, maxLockers: this.#opts.settings.maxLockers }, msg);
      return undefined;
    };
    // One link per bus name and one for a scanner, as the locker process wires its simulator.
    const links = new Set(cells.map((c) => c.bus)).size + (locker.scanner ? 1 : 0);
    if (this.#opts.settings.firstPort !== 0 && links > HARDWARE_PORTS_PER_SLOT) {
      return refuse('too_many_links', `sandbox locker not started: its ${links} hardware links (buses and scanner) do not fit the ${HARDWARE_PORTS_PER_SLOT} of a slot`);
    }
    const taken = new Set(this.#slots.values());
    let slot = 0;
    while (taken.has(slot)) slot++;
    if (slot >= this.#opts.settings.maxLockers) return refuse('no_slot', 'sandbox locker not started: every slot of the port block is taken (raise SANDBOX_MAX_LOCKERS)');
    this.#refused.delete(locker.id);
    this.#slots.set(locker.id, slot);
    return slot;
  }

  async #launch(locker: Locker, cells: Cell[], brokerUrl: string, slot: number): Promise<void> {
    const password = randomBytes(24).toString('base64url');
    await setSandboxMqttPasswordHash(this.#deps.cdb.db, locker.id, createHash('sha256').update(password).digest('hex'));
    const order: RigOrder = {
      locker: {
        id: locker.id,
        name: locker.name,
        timezone: locker.timezone,
        ...(locker.profile.boardFamily ? { boardFamily: locker.profile.boardFamily as BoardFamily } : {}),
        equipment: { barcodeScanner: locker.scanner },
        cells: cells.map((c) => ({ id: c.id, width: c.width, height: c.height, bus: c.bus, board: c.board, lock: c.lock })),
      },
      brokerUrl,
      password,
      dataDir: resolve(this.#opts.settings.dataDir),
      logLevel: this.#deps.config.logLevel,
      ports: slotPorts(this.#opts.settings, slot),
    };
    // The order carries the MQTT password: through the pipe, never argv or the environment (see locker-process.ts).
    const proc = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
    proc.stdin.on('error', (err) => this.#log.debug({ err, lockerId: locker.id }, 'sandbox locker stdin closed'));
    proc.stdin.write(`${JSON.stringify(order)}\n`);
    const exited = new Promise<void>((done) => proc.once('exit', () => done()));
    const byCell = new Map(cells.map((c) => [c.id, { bus: c.bus, board: c.board, lock: c.lock }]));
    const timeoutMs = this.#opts.settings.timeoutSeconds * 1000;
    const child: Child = { proc, wiring: wiringOf(locker, cells), rig: undefined, exited, ready: Promise.resolve(undefined as never) };
    child.ready = new Promise<SandboxRig>((resolveReady, reject) => {
      const timer = setTimeout(() => reject(new Error(`sandbox locker ${locker.id} did not start within ${timeoutMs} ms`)), timeoutMs);
      const lines = createInterface({ input: proc.stdout });
      lines.on('line', (line) => {
        if (!line.startsWith(READY_PREFIX)) return;
        clearTimeout(timer);
        const ready = rigReadySchema.parse(JSON.parse(line.slice(READY_PREFIX.length)));
        child.rig = { ...ready, lockerId: locker.id, hasScanner: locker.scanner, lockOf: (cellId) => byCell.get(cellId) };
        this.#log.info({ lockerId: locker.id, screenUrl: ready.screenUrl, simUrl: ready.simUrl }, 'sandbox locker running');
        resolveReady(child.rig);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`sandbox locker ${locker.id} exited`));
      });
    });
    child.ready.catch((err: unknown) => this.#log.error({ err, lockerId: locker.id }, 'sandbox locker did not start; retried at the next check'));
    void exited.then(() => {
      if (!this.#stopped && this.#children.get(locker.id) === child) this.#log.warn({ lockerId: locker.id, code: proc.exitCode, signal: proc.signalCode }, 'sandbox locker exited');
    });
    this.#children.set(locker.id, child);
  }

  async #stopChild(lockerId: number): Promise<void> {
    const child = this.#children.get(lockerId);
    if (!child) return;
    this.#children.delete(lockerId);
    if (child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGTERM');
      const timer = setTimeout(() => child.proc.kill('SIGKILL'), STOP_GRACE_MS);
      await child.exited;
      clearTimeout(timer);
    }
  }
}
