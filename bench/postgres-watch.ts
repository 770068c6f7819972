/**
 * What PostgreSQL spends and waits on during a measurement, for the throughput scenario:
 * - the CPU time of the server's processes (from /proc, when the server runs on this machine),
 *   so a reservation's cost can be given for the database too;
 * - lock waits: pg_locks sampled every few milliseconds; a backend seen waiting for the same lock
 *   in consecutive samples is one wait;
 * - committed and rolled-back transactions of the database (pg_stat_database), for the share of
 *   aborted ones.
 * All three cover the whole server or database, whatever else runs on it: read on a quiet machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (µs) the PostgreSQL server of this machine has used so far: every process named
 * postgres, and what its ended backends used (counted in the postmaster's cutime and cstime when
 * it reaped them), so the sum only grows. 0 when no server is visible.
 */
export function postgresCpuMicros(): number {
  const processes = new Map<number, { parent: number; ticks: number; children: number }>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
      // After the name: state, ppid (field 4 of the line)...; utime, stime, cutime, cstime are fields 14-17.
      const fields = stat.slice(close + 2).split(' ');
      processes.set(Number(pid), {
        parent: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        children: Number(fields[13]) + Number(fields[14]),
      });
    } catch {
      // the process ended meanwhile
    }
  }
  let ticks = 0;
  for (const p of processes.values()) {
    ticks += p.ticks;
    // The postmaster (its parent is no postgres process) holds what its ended children used.
    if (!processes.has(p.parent)) ticks += p.children;
  }
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

export interface Watch {
  stop(): Promise<{ lockWaits: number; commits: number; rollbacks: number }>;
}

async function transactions(client: pg.Client): Promise<{ commits: number; rollbacks: number }> {
  // Statistics reach pg_stat_database when backends flush them (about once a second).
  const { rows } = await client.query<{ c: string; r: string }>('select xact_commit as c, xact_rollback as r from pg_stat_database where datname = current_database()');
  return { commits: Number(rows[0]?.c ?? 0), rollbacks: Number(rows[0]?.r ?? 0) };
}

/** Starts sampling lock waits; `stop()` answers the waits seen and the transactions since the start. */
export async function watchPostgres(databaseUrl: string, everyMs = 5): Promise<Watch> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const start = await transactions(client);
  let waiting = new Set<string>();
  let waits = 0;
  let stopped = false;
  const sample = async (): Promise<void> => {
    const { rows } = await client.query<{ key: string }>(
      "select pid || ':' || locktype || ':' || coalesce(relation::text, '') || ':' || coalesce(page::text, '') || ':' || coalesce(tuple::text, '') || ':' || coalesce(transactionid::text, '') as key from pg_locks where not granted",
    );
    const now = new Set(rows.map((r) => r.key));
    for (const key of now) if (!waiting.has(key)) waits++;
    waiting = now;
  };
  const loop = (async () => {
    while (!stopped) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const end = await transactions(client);
      await client.end();
      return { lockWaits: waits, commits: end.commits - start.commits, rollbacks: end.rollbacks - start.rollbacks };
    },
  };
}
