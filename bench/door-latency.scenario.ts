/**
 * From a door closing to the marketplace holding the order-status notification, end to end with
 * the real parts (bench/door-chain-rig.ts): simulator and agent, broker (embedded, and Mosquitto
 * at MQTT_URL), the cloud applying the event and delivering (SQLite, and PostgreSQL at
 * DATABASE_URL; there also with the delivery in another cloud process woken over LISTEN/NOTIFY),
 * the HTTPS receiver answering at once. Per case, p50 and p99 of: (a) door closed -> the agent
 * committed it; (b) agent committed -> receiver holds it, beside the transport alone (a raw MQTT
 * round trip plus a bare HTTPS round trip to the receiver, measured in the same rig); the total.
 * The simulator adds no wire time: the bus time computed from the baud rate is reported beside (a).
 */
import { agentConfigSchema } from '../agent/src/config.js';
import type { Engine } from '../cloud/src/db/database.js';
import { testEngines } from '../test/helpers/cloud-db.js';
import { externalBrokerUrl } from '../test/helpers/requirements.js';
import { BOARDS, startChainRig, type ChainSample } from './door-chain-rig.js';
import type { Cleanup } from './link-rig.js';
import type { Figure, Scenario } from './scenario.js';

interface Case {
  engine: Engine;
  mqttUrl: string | undefined;
  crossProcess: boolean;
  name: string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b);
const p50 = (xs: readonly number[]) => percentile(sorted(xs), 50);

function pair(name: string, samples: readonly number[], goal?: { ms: number; words: string }, baseline?: { name: string; value: number }): Figure[] {
  const s = sorted(samples);
  const at50 = percentile(s, 50);
  const at99 = percentile(s, 99);
  const base = baseline ? { baseline: { ...baseline, value: round(baseline.value), unit: 'ms' } } : {};
  return [
    { name: `${name}, p50`, value: round(at50), unit: 'ms', note: `${s.length} samples`, ...base, ...(baseline ? { ratio: round(at50 / baseline.value) } : {}) },
    { name: `${name}, p99`, value: round(at99), unit: 'ms', ...(goal ? { goal: goal.words, met: at99 < goal.ms } : {}) },
  ];
}

async function measureCase(c: Case, samples: number, wireMs: number, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const rig = await startChainRig({ engine: c.engine, mqttUrl: c.mqttUrl, crossProcess: c.crossProcess }, cleanups);
    log(`${c.name}: ${samples} door closes...`);
    const got: ChainSample[] = [];
    for (let i = 0; i < samples; i++) got.push(await rig.sample());
    const mqtt: number[] = [];
    const https: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < Math.max(16, samples); i++) {
      mqtt.push(await rig.rawMqttRoundTrip());
      https.push(await rig.rawHttpsRoundTrip());
      if (i < 10) cold.push(await rig.rawHttpsColdRoundTrip());
    }
    const leg = (from: keyof ChainSample, to: keyof ChainSample) => got.map((s) => s[to] - s[from]);
    const transport = p50(mqtt) + p50(https);
    const figures = [
      ...pair(`${c.name}: (a) door closed -> agent committed`, leg('closed', 'committed'), { ms: 100 - wireMs, words: `with the bus time (${round(wireMs)} ms) added, < 100 ms` }),
      ...pair(`${c.name}: (b) agent committed -> receiver holds`, leg('committed', 'held'), { ms: 50, words: 'p99 < 50 ms' }, {
        name: `raw MQTT round trip p50 ${round(p50(mqtt))} ms + bare HTTPS round trip p50 ${round(p50(https))} ms`,
        value: transport,
      }),
      ...pair(`${c.name}: total, door closed -> receiver holds`, leg('closed', 'held')),
    ];
    // Where (b) goes, at the median of each step.
    const steps = [
      ['publish', leg('committed', 'published')],
      ['broker', leg('published', 'received')],
      ['apply', leg('received', 'applied')],
      ['deliver', leg('applied', 'held')],
    ] as const;
    figures[2]!.note = `${figures[2]!.note}; p50 of its steps: ${steps.map(([n, xs]) => `${n} ${round(p50(xs))} ms`).join(', ')}`;
    // The chain's samples come a fraction of a second apart, so the dispatcher's connection stays
    // open; a receiver whose keep-alive lapsed between two notifications costs the handshakes.
    figures[3]!.note = `a bare HTTPS round trip on a new connection (TCP + TLS) is ${round(p50(cold))} ms at the median`;
    return figures;
  } finally {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => undefined);
  }
}

export const scenario: Scenario = {
  title: 'door to marketplace latency',
  async run({ quick, log }) {
    const n = quick ? 16 : 150;
    const out: Figure[] = [];
    const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;
    // 8N1: 10 bits a byte; a CU48 status read is 6 bytes out and 12 back.
    const wireMs = (BOARDS * 18 * 10 * 1000) / 19200;
    out.push({ name: `bus time of one round, ${BOARDS} x KR-CU48 at 19200 baud (computed, board answer time not included)`, value: round(wireMs), unit: 'ms', note: `door poll pause ${pollMs} ms` });
    const mqttUrl = externalBrokerUrl();
    const engines = testEngines();
    const cases: Case[] = [];
    for (const engine of engines) {
      const db = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
      cases.push({ engine, mqttUrl: undefined, crossProcess: false, name: `${db}, embedded broker` });
      if (mqttUrl) cases.push({ engine, mqttUrl, crossProcess: false, name: `${db}, Mosquitto` });
    }
    if (engines.includes('postgres')) cases.push({ engine: 'postgres', mqttUrl: undefined, crossProcess: true, name: 'PostgreSQL, embedded broker, delivered by another cloud process' });
    for (const c of cases) out.push(...(await measureCase(c, n, wireMs, log)));
    if (!mqttUrl) out.push({ name: 'Mosquitto', value: 0, unit: 'ms', note: 'skipped: MQTT_URL not set' });
    if (!engines.includes('postgres')) out.push({ name: 'PostgreSQL, same and another process', value: 0, unit: 'ms', note: 'skipped: DATABASE_URL not set' });
    return out;
  },
};

// Run on its own: npx tsx bench/door-latency.scenario.ts [--quick]
if (process.argv[1]?.endsWith('door-latency.scenario.ts')) {
  const figs = await scenario.run({ quick: process.argv.includes('--quick'), log: (l) => console.error(l) });
  for (const f of figs) console.log(`${f.name}: ${f.value} ${f.unit}${f.goal ? ` (goal ${f.goal}: ${f.met ? 'met' : 'not met'})` : ''}${f.note ? ` [${f.note}]` : ''}`);
}
