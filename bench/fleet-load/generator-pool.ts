/**
 * Several generator processes (generator.ts), so that playing thousands of lockers is not the
 * bottleneck of the measure: the lockers are split between them, every operation goes to all,
 * and their stats are summed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FleetLocker, FleetStats, LightFleetOptions } from './light-fleet.js';
import type { GeneratorRequest } from './generator.js';

const ENTRY = fileURLToPath(new URL('./generator.ts', import.meta.url));

type Op = GeneratorRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

class Generator {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #next = 0;

  constructor() {
    // Its own small environment: nothing of this process's settings leaks into the generator.
    this.#child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], env: {}, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.#child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const w = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(`generator: ${m.error}`));
      else w?.resolve(m.result);
    });
    this.#child.on('exit', () => {
      for (const w of this.#waiting.values()) w.reject(new Error('generator exited'));
      this.#waiting.clear();
    });
  }

  ask<T>(op: Op): Promise<T> {
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#child.send({ ...op, id });
    });
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    await this.ask({ op: 'stop' }).catch(() => undefined);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

export class GeneratorPool {
  readonly #generators: Generator[];

  constructor(processes: number) {
    this.#generators = Array.from({ length: processes }, () => new Generator());
  }

  /** Resolves once every process answers (started, its modules loaded). */
  async ready(): Promise<void> {
    await Promise.all(this.#generators.map((g) => g.ask({ op: 'usage' })));
  }

  /** Deals the lockers round-robin over the processes and starts them. */
  async start(lockers: readonly FleetLocker[], options: LightFleetOptions): Promise<void> {
    const n = this.#generators.length;
    await Promise.all(this.#generators.map((g, i) => g.ask({ op: 'start', lockers: lockers.filter((_, j) => j % n === i), options })));
  }

  async stats(): Promise<FleetStats> {
    const all = await Promise.all(this.#generators.map((g) => g.ask<FleetStats>({ op: 'stats' })));
    const sum = { ...all[0]! };
    for (const s of all.slice(1)) for (const k of Object.keys(sum) as (keyof FleetStats)[]) sum[k] += s[k];
    return sum;
  }

  /** CPU seconds and RSS of the generator processes together. */
  async usage(): Promise<{ cpuSeconds: number; rssBytes: number }> {
    const all = await Promise.all(this.#generators.map((g) => g.ask<{ cpuSeconds: number; rssBytes: number }>({ op: 'usage' })));
    return all.reduce((a, b) => ({ cpuSeconds: a.cpuSeconds + b.cpuSeconds, rssBytes: a.rssBytes + b.rssBytes }), { cpuSeconds: 0, rssBytes: 0 });
  }

  async all(op: Op): Promise<void> {
    await Promise.all(this.#generators.map((g) => g.ask(op)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.#generators.map((g) => g.stop()));
  }
}
