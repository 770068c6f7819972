/**
 * The fleet's software, read on scrape (prom-client `collect()`): how many active lockers run each
 * agent version (as their hello, presence or update reports said), and the lockers of each active
 * rollout by state. Bounded by the versions in the fleet and the rollouts under way.
 */
import { Gauge, type Registry } from 'prom-client';
import type { CloudDatabase } from '../db/database.js';
import { versionCounts } from '../repositories/locker-agents.js';
import { activeRolloutIds, memberCounts } from '../repositories/rollouts.js';

export class UpdateMetrics {
  #cdb: CloudDatabase | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    const cdb = (): CloudDatabase | undefined => this.#cdb;
    new Gauge({
      name: 'cloud_locker_agent_versions',
      help: 'Active lockers by the agent version they run (version "unknown": never said, an older agent)',
      labelNames: ['version'],
      registers,
      async collect() {
        const db = cdb();
        if (!db) return;
        const counts = await versionCounts(db.db).catch(() => null);
        if (!counts) return;
        this.reset();
        for (const c of counts) this.set({ version: c.version ?? 'unknown' }, c.n);
      },
    });
    new Gauge({
      name: 'cloud_rollout_lockers',
      help: 'Lockers of each running, paused or halted rollout by their update state (pending, downloading, ..., confirmed, rolled_back)',
      labelNames: ['rollout', 'state'],
      registers,
      async collect() {
        const db = cdb();
        if (!db) return;
        const rows = await (async () => {
          const out: { rollout: string; state: string; n: number }[] = [];
          for (const id of await activeRolloutIds(db.db)) {
            const byState = new Map<string, number>();
            for (const c of await memberCounts(db.db, id)) byState.set(c.state, (byState.get(c.state) ?? 0) + c.n);
            for (const [state, n] of byState) out.push({ rollout: String(id), state, n });
          }
          return out;
        })().catch(() => null);
        if (!rows) return;
        this.reset();
        for (const r of rows) this.set({ rollout: r.rollout, state: r.state }, r.n);
      },
    });
  }

  /** The running cloud's database; before this the gauges report nothing. */
  watch(cdb: CloudDatabase): void {
    this.#cdb = cdb;
  }
}
