/**
 * The bench report: the machine it ran on, the timed suites' table and the scenarios' figures, as
 * Markdown (printed and written to bench/results/) and as JSON (the same data, for tools).
 */
import { cpus, totalmem } from 'node:os';
import { Socket } from 'node:net';
import pg from 'pg';
import { formatTable, type Row } from './harness.js';
import type { Figure } from './scenario.js';

export interface Machine {
  cpuModel: string;
  cores: number;
  ramGiB: number;
  node: string;
  platform: string;
  /** What the run could use: "SQLite" always, PostgreSQL and Mosquitto when reachable. */
  engines: string[];
}

export interface ScenarioResult {
  title: string;
  seconds: number;
  figures: Figure[];
  /** Set when the scenario threw: its figures are then whatever it returned before (none). */
  error?: string;
}

export interface Report {
  startedAt: string;
  mode: 'quick' | 'full';
  machine: Machine;
  /** The 1-minute load average when the run started and when it ended: how busy the machine was besides. */
  load?: { atStart: number; atEnd: number };
  seconds?: number;
  timed: { timeMsPerTask: number; rows: Row[]; notes: string[] };
  scenarios: ScenarioResult[];
}

async function postgresReachable(url: string | undefined): Promise<boolean> {
  if (!url) return false;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function tcpReachable(url: string | undefined): Promise<boolean> {
  if (!url) return Promise.resolve(false);
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port || 1883), hostname, () => done(true));
  });
}

/** `databaseUrl` and `mqttUrl` are the run's DATABASE_URL and MQTT_URL (read by the entry point). */
export async function describeMachine(databaseUrl: string | undefined, mqttUrl: string | undefined): Promise<Machine> {
  const list = cpus();
  const engines = ['SQLite'];
  if (await postgresReachable(databaseUrl)) engines.push('PostgreSQL');
  if (await tcpReachable(mqttUrl)) engines.push('Mosquitto');
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    engines,
  };
}

/** Three significant digits, no exponent: 0.0123, 12.3, 1230. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toString();
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return '0';
  return value.toPrecision(2);
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function figureLine(f: Figure): string {
  const baseline = f.baseline ? `${f.baseline.name}: ${formatNumber(f.baseline.value)} ${f.baseline.unit}` : '';
  const ratio = f.ratio === undefined ? '' : formatNumber(f.ratio);
  const met = f.met === undefined ? '' : f.met ? 'yes' : '**no**';
  return `| ${cell(f.name)} | ${formatNumber(f.value)} ${cell(f.unit)} | ${cell(baseline)} | ${ratio} | ${cell(f.goal ?? '')} | ${met} | ${cell(f.note ?? '')} |`;
}

function scenarioSection(s: ScenarioResult): string[] {
  const lines = [`### ${s.title}`, '', `${s.seconds.toFixed(0)} s${s.error ? `; **failed**: ${cell(s.error)}` : ''}`, ''];
  if (s.figures.length > 0) {
    lines.push('| figure | value | baseline (same run) | ratio | goal | met | note |', '|---|---|---|---|---|---|---|');
    lines.push(...s.figures.map(figureLine), '');
  }
  return lines;
}

export function formatReport(r: Report): string {
  const m = r.machine;
  const lines = [
    `# Bench results, ${r.startedAt.slice(0, 10)} (${r.mode})`,
    '',
    `Started ${r.startedAt}. Machine: ${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}; ` +
      `engines: ${m.engines.join(', ')}. Other processes may share the machine: compare ratios, not times.`,
    '',
    ...(r.load ? [`Load average (1 min) ${formatNumber(r.load.atStart)} at the start, ${formatNumber(r.load.atEnd)} at the end; the run took ${formatNumber(r.seconds ?? 0)} s.`, ''] : []),
  ];
  if (r.timed.rows.length > 0) {
    lines.push(`## Timed suites (${r.timed.timeMsPerTask} ms per task; "x baseline" is median time / the first task's)`, '');
    lines.push('```', formatTable(r.timed.rows), '```', '');
    if (r.timed.notes.length > 0) lines.push(...r.timed.notes.map((n) => `- ${n}`), '');
  }
  if (r.scenarios.length > 0) {
    lines.push('## Scenarios', '');
    for (const s of r.scenarios) lines.push(...scenarioSection(s));
  }
  return lines.join('\n');
}
