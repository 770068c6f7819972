/**
 * Sends the agent's health report (vitals.ts) to the cloud every `healthReportSeconds`, and a few
 * seconds after a door fault or a board error (several faults close together make one report).
 * A report goes out only while the link is connected; until one does, the interval's counts
 * keep adding up, so a report after an outage covers the whole outage.
 */
import type { HealthReport } from '../../../shared/src/protocol.js';
import type { AgentVitals } from './vitals.js';

/** A fault is reported this long after it (more faults meanwhile join the same report). */
export const FAULT_REPORT_DELAY_MS = 5_000;

export interface HealthSender {
  sendHealth(report: HealthReport): boolean;
}

export class HealthReporter {
  readonly #vitals: AgentVitals;
  readonly #link: HealthSender;
  readonly #everyMs: number;
  #interval: NodeJS.Timeout | undefined;
  #soon: NodeJS.Timeout | undefined;

  constructor(vitals: AgentVitals, link: HealthSender, everySeconds: number) {
    this.#vitals = vitals;
    this.#link = link;
    this.#everyMs = everySeconds * 1000;
  }

  start(): Promise<void> {
    if (this.#everyMs <= 0 || this.#interval) return Promise.resolve();
    this.#interval = setInterval(() => this.send(), this.#everyMs);
    this.#interval.unref();
    this.#vitals.onFault = () => this.#sendSoon();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    clearInterval(this.#interval);
    clearTimeout(this.#soon);
    this.#interval = undefined;
    this.#soon = undefined;
    this.#vitals.onFault = undefined;
    return Promise.resolve();
  }

  /** Sends the report now; true when it went out. */
  send(): boolean {
    clearTimeout(this.#soon);
    this.#soon = undefined;
    const sent = this.#link.sendHealth(this.#vitals.report());
    if (sent) this.#vitals.sent();
    return sent;
  }

  #sendSoon(): void {
    if (this.#soon || !this.#interval) return;
    this.#soon = setTimeout(() => {
      this.send();
    }, FAULT_REPORT_DELAY_MS);
    this.#soon.unref();
  }
}
