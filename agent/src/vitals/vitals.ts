/**
 * The agent's vital signs, recorded in one place and read two ways: its own Prometheus metrics
 * (GET /metrics on the screen's port; cumulative, with the locker id as a label) and the health
 * report it sends the cloud (health-reporter.ts; counts of the interval since the last report
 * that went out). Fed by the buses (answer times, unanswered requests), the outbox (door faults
 * as the door supervision records them), the scanner, and read from the store and the link.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventBody, HealthReport } from '../../../shared/src/protocol.js';
import type { BusObserver } from '../hw/index.js';
// Imported, not read from disk by a relative path: the bundle (scripts/build-agent.ts) sits at
// another depth than this file, and embeds the manifest instead.
import manifest from '../../../package.json' with { type: 'json' };

/** The agent's software version: the platform's package version. */
export const AGENT_VERSION: string = manifest.version;

/** Answer times kept per interval for the report's percentiles (the newest win beyond it). */
const MAX_SAMPLES = 2048;

/** A door fault as the door supervision and remote opens record it in the outbox; null: not a fault. */
export function doorFaultOf(body: EventBody): string | null {
  if (body.type === 'door.alarm' && body.kind !== 'closed') return body.kind;
  if (body.type === 'cell.open' && (body.outcome === 'jammed' || body.outcome === 'unknown')) return `open_${body.outcome}`;
  return null;
}

export interface VitalsSources {
  /** Events in the outbox not yet acked by the cloud. */
  outboxDepth(): number;
  /** Null without a locker link. */
  link(): { connected: boolean; reconnects: number } | null;
}

interface Window {
  startedAt: number;
  samples: number[];
  answers: number;
  errors: number;
  doorFaults: number;
  scans: number;
  reconnectsAtStart: number;
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round(sorted[i]! * 100) / 100;
}

export class AgentVitals implements BusObserver {
  readonly registry = new Registry();
  readonly #answerSeconds: Histogram<'bus'>;
  readonly #unanswered: Counter<'bus'>;
  readonly #doorFaults: Counter<'kind'>;
  readonly #scans: Counter;
  readonly #startedAt: number;
  readonly #now: () => number;
  readonly #version: string;
  #sources: VitalsSources | undefined;
  #window: Window;
  /** Called on a door fault or a board error (the reporter sends soon). */
  onFault: (() => void) | undefined;

  constructor(lockerId: string, now: () => number, version: string = AGENT_VERSION) {
    this.#now = now;
    this.#version = version;
    this.#startedAt = now();
    this.#window = this.#newWindow(0);
    const registers = [this.registry];
    this.registry.setDefaultLabels({ locker: lockerId });
    collectDefaultMetrics({ register: this.registry });
    this.#answerSeconds = new Histogram({
      name: 'agent_board_answer_seconds',
      help: 'Time from a frame sent to a lock board to its answer, by bus',
      labelNames: ['bus'],
      buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1],
      registers,
    });
    this.#unanswered = new Counter({
      name: 'agent_board_errors_total',
      help: 'Requests to a lock board left without a valid answer after every retry, by bus',
      labelNames: ['bus'],
      registers,
    });
    this.#doorFaults = new Counter({
      name: 'agent_door_faults_total',
      help: 'Door faults: left_open, opened_unexpectedly, unconfirmed, open_jammed, open_unknown',
      labelNames: ['kind'],
      registers,
    });
    this.#scans = new Counter({ name: 'agent_scans_total', help: 'Barcodes read by the scanner', registers });
    new Gauge({ name: 'agent_info', help: 'Always 1; the running software version as a label', labelNames: ['version'], registers }).set({ version }, 1);
    const sources = (): VitalsSources | undefined => this.#sources;
    new Gauge({
      name: 'agent_outbox_depth',
      help: 'Events in the outbox not yet acked by the cloud',
      registers,
      collect() {
        const s = sources();
        if (s) this.set(s.outboxDepth());
      },
    });
    new Gauge({
      name: 'agent_link_connected',
      help: 'Whether the locker link is connected to the broker (0 also without a link)',
      registers,
      collect() {
        this.set(sources()?.link()?.connected ? 1 : 0);
      },
    });
    let reconnectsSeen = 0;
    new Counter({
      name: 'agent_link_reconnects_total',
      help: 'Connections to the broker made again since the agent started (each one a lost link)',
      registers,
      collect() {
        // The link counts them; the counter follows at each scrape.
        const now = sources()?.link()?.reconnects ?? 0;
        if (now > reconnectsSeen) this.inc(now - reconnectsSeen);
        reconnectsSeen = Math.max(reconnectsSeen, now);
      },
    });
  }

  /** The store and the link, once they exist. */
  watch(sources: VitalsSources): void {
    this.#sources = sources;
    this.#window.reconnectsAtStart = sources.link()?.reconnects ?? 0;
  }

  answered(bus: string, ms: number): void {
    this.#answerSeconds.observe({ bus }, ms / 1000);
    const w = this.#window;
    w.answers += 1;
    if (w.samples.length >= MAX_SAMPLES) w.samples.shift();
    w.samples.push(ms);
  }

  unanswered(bus: string): void {
    this.#unanswered.inc({ bus });
    this.#window.errors += 1;
    this.onFault?.();
  }

  /** Every event the store appends; door faults are counted. */
  event(body: EventBody): void {
    const kind = doorFaultOf(body);
    if (kind === null) return;
    this.#doorFaults.inc({ kind });
    this.#window.doorFaults += 1;
    this.onFault?.();
  }

  scan(): void {
    this.#scans.inc();
    this.#window.scans += 1;
  }

  /** The report of the interval so far; `sent()` starts the next interval once it went out. */
  report(): HealthReport {
    const now = this.#now();
    const w = this.#window;
    const sorted = [...w.samples].sort((a, b) => a - b);
    const memory = process.memoryUsage();
    const link = this.#sources?.link();
    return {
      at: now,
      intervalSeconds: Math.max(0, (now - w.startedAt) / 1000),
      uptimeSeconds: Math.max(0, (now - this.#startedAt) / 1000),
      version: this.#version,
      memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      boards: { answers: w.answers, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), errors: w.errors },
      doorFaults: w.doorFaults,
      scans: w.scans,
      outboxDepth: this.#sources?.outboxDepth() ?? 0,
      link: { reconnects: Math.max(0, (link?.reconnects ?? 0) - w.reconnectsAtStart) },
    };
  }

  /** The report went out: the next interval starts now. */
  sent(): void {
    this.#window = this.#newWindow(this.#sources?.link()?.reconnects ?? 0);
  }

  #newWindow(reconnects: number): Window {
    return { startedAt: this.#now(), samples: [], answers: 0, errors: 0, doorFaults: 0, scans: 0, reconnectsAtStart: reconnects };
  }
}
