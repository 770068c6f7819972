/**
 * The agent's settings: one JSON file validated by one zod schema, with environment overrides
 * derived from that schema (`screen.port` -> AGENT_SCREEN_PORT), plus the process's LOG_LEVEL;
 * main.ts reads them once (loadAgentSettings) and passes them down. The cell layout is not here:
 * it comes from the cloud (`locker.config` command or snapshot).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MAX_DOWN_MESSAGE_BYTES } from '../../shared/src/protocol.js';
import { parseLogLevel, type LogLevel } from '../../shared/src/redact.js';
import { publicKeyText } from '../../shared/src/release.js';
import { busConfigSchema, scannerConfigSchema } from './hw/config.js';

export const LANGUAGES = ['ru', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const agentConfigSchema = z
  .object({
    /** The locker's id; also its MQTT username and client id. */
    lockerId: z.string().min(1),
    /** Lock buses; cells name a bus by its `name`. */
    buses: z.array(busConfigSchema).min(1),
    /** Serial barcode scanner; without one couriers type barcodes on the screen. */
    scanner: scannerConfigSchema.optional(),
    /** Broker of the locker link; without it the agent serves offline with what it has. */
    mqtt: z
      .object({
        url: z.string().regex(/^mqtts?:\/\/|^wss?:\/\//, 'expected mqtt://, mqtts://, ws:// or wss://'),
        password: z.string().min(1),
        /** MQTT keep-alive, s: a silent broker is noticed within 1.5 times this. */
        keepaliveSec: z.number().int().min(5).max(600).default(30),
        /** First wait before connecting again, ms; doubles (with jitter) up to reconnectMaxMs. */
        reconnectMinMs: z.number().int().min(10).max(60_000).default(1_000),
        reconnectMaxMs: z.number().int().min(10).max(3_600_000).default(60_000),
        /** Events not acked this long after sending (or the last ack progress) are sent again, ms. */
        resendAfterMs: z.number().int().min(100).max(600_000).default(20_000),
        /** Events per `events` message. */
        batchSize: z.number().int().min(1).max(500).default(50),
        /** Events sent and not yet acked at most. */
        windowSize: z.number().int().min(1).max(10_000).default(200),
        /** A health report goes to the cloud this often, s (and soon after a door fault or board error); 0: never. */
        healthReportSeconds: z.number().int().min(0).max(86_400).default(60),
        /** A message from the cloud over this many bytes is ignored before it is parsed (docs/mqtt-interface.md, Message size). */
        maxMessageBytes: z.number().int().min(65_536).max(268_435_455).default(MAX_DOWN_MESSAGE_BYTES),
      })
      .optional(),
    /**
     * Software updates from the cloud (docs/updates.md): where releases are staged, the keys
     * whose signatures are trusted, where artifacts come from. Without it the agent refuses every
     * offer (`not_updatable`); it needs `mqtt` (the download authenticates as the locker).
     */
    updates: z
      .object({
        /** The releases directory: A/B slots, the `current` link the unit starts, state.json. Inside the install root, so the slots find its node_modules. */
        dir: z.string().min(1),
        /** Ed25519 public keys (base64url, 43 characters) whose release signatures the agent accepts. */
        publicKeys: z.array(publicKeyText).min(1).max(8),
        /** Where artifacts are downloaded from (`<url>/updates/artifacts/<sha256>`): the cloud's base URL; https, or http to a loopback address only. */
        url: z
          .string()
          .url()
          .refine((u) => /^https:\/\//.test(u) || /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(u), 'expected https://, or http:// to a loopback address'),
        /** PEM file of extra CAs trusted for the download (a private CA). */
        caFile: z.string().min(1).optional(),
        /** Largest artifact the agent downloads, bytes. */
        maxArtifactBytes: z.number().int().min(1_048_576).max(1_073_741_824).default(67_108_864),
        /** Download bandwidth, bytes per second on average. */
        maxBytesPerSecond: z.number().int().min(1_024).max(1_000_000_000).default(262_144),
        /** Download attempts in a row without progress before the update fails. */
        downloadAttempts: z.number().int().min(1).max(100).default(8),
        /** A new version confirms itself healthy once every check held this long in a row, s. */
        healthyForSeconds: z.number().int().min(1).max(3_600).default(30),
        /** The switch waits until nobody touched the screen for this long (and no door is open), s. */
        quietForSeconds: z.number().int().min(0).max(3_600).default(60),
        /** Starts of a new version the launcher tries before it goes back to the previous one. */
        startAttempts: z.number().int().min(1).max(10).default(3),
      })
      .optional(),
    /** The locker's SQLite file (WAL, synchronous=FULL). */
    dbPath: z.string().min(1).default('data/agent.sqlite'),
    screen: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        /** 0 picks a free port (tests). */
        port: z.number().int().min(0).max(65_535).default(8080),
        languages: z.array(z.enum(LANGUAGES)).min(1).default(['ru', 'en']),
        defaultLanguage: z.enum(LANGUAGES).default('ru'),
        /** A courier or customer screen left untouched this long goes back to the start, ms. */
        idleMs: z.number().int().min(5_000).max(3_600_000).default(120_000),
        /** Connections the screen holds at once (the kiosk browser needs a few); beyond, a new one is closed at once. */
        maxConnections: z.number().int().min(2).max(1_024).default(32),
        /** Largest request body, bytes (the screen's API takes a few dozen); beyond, 413 before it is read. */
        maxBodyBytes: z.number().int().min(1_024).max(1_048_576).default(16_384),
      })
      .prefault({}),
    keypad: z
      .object({
        /** Wrong codes in a row that cost nothing. */
        freeAttempts: z.number().int().min(0).max(20).default(3),
        /** Wait after the first costly wrong code, ms; doubles with each further one. */
        baseDelayMs: z.number().int().min(1_000).max(900_000).default(30_000),
        /** Longest wait, ms (15 minutes). */
        maxDelayMs: z.number().int().min(1_000).max(3_600_000).default(900_000),
        /** Wrong codes of one kind in one locker day that raise `keypad.alarm`. */
        dailyAlarmThreshold: z.number().int().min(1).max(10_000).default(20),
      })
      .prefault({}),
    retention: z
      .object({
        /** Events the cloud acknowledged are kept this long, days (diagnosis; a cloud restored from a backup asks again). */
        ackedEventDays: z.number().int().min(1).max(365).default(7),
        /** Rows one sweep deletes at most. */
        batchSize: z.number().int().min(100).max(1_000_000).default(10_000),
        /** How often the sweep runs, ms. */
        sweepMs: z.number().int().min(1_000).max(86_400_000).default(3_600_000),
      })
      .prefault({}),
    doors: z
      .object({
        /**
         * Pause between two rounds of reading every board, ms. A round on four KR-CU48 boards at
         * 19200 baud is about 4 x (18 bytes x 0.52 ms + the board's answer) = 40-50 ms, so 40 ms
         * sees a closing door within about 90 ms; an unlock waits at most one status frame (the
         * bus queue takes frames in turn). Was 500 before door-to-marketplace latency mattered.
         */
        pollMs: z.number().int().min(20).max(60_000).default(40),
        /** A door open longer than this raises `door.alarm left_open`, ms. */
        leftOpenMs: z.number().int().min(1_000).max(86_400_000).default(180_000),
        /** Cells tried for one parcel when doors fail to open. */
        maxCellsPerParcel: z.number().int().min(1).max(20).default(3),
      })
      .prefault({}),
  })
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    c.buses.forEach((b, i) => {
      if (names.has(b.name)) ctx.addIssue({ code: 'custom', path: ['buses', i, 'name'], message: `bus name ${b.name} appears twice` });
      names.add(b.name);
    });
    if (c.mqtt && c.mqtt.reconnectMaxMs < c.mqtt.reconnectMinMs) {
      ctx.addIssue({ code: 'custom', path: ['mqtt', 'reconnectMaxMs'], message: 'must not be below mqtt.reconnectMinMs' });
    }
    if (c.updates && !c.mqtt) ctx.addIssue({ code: 'custom', path: ['updates'], message: 'needs mqtt (artifacts are downloaded as the locker)' });
    if (!c.screen.languages.includes(c.screen.defaultLanguage)) {
      ctx.addIssue({ code: 'custom', path: ['screen', 'defaultLanguage'], message: 'must be one of screen.languages' });
    }
  });

export type AgentConfig = z.output<typeof agentConfigSchema>;
export type AgentConfigInput = z.input<typeof agentConfigSchema>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Unwraps defaults, optionals and pipes down to the schema that says what the value is. */
function baseOf(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    if ((def.type === 'default' || def.type === 'optional' || def.type === 'prefault' || def.type === 'nullable') && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

function envName(path: string[]): string {
  return ['AGENT', ...path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2'))].join('_').toUpperCase();
}

export interface EnvOverride {
  env: string;
  path: string[];
  kind: 'string' | 'number' | 'boolean' | 'list';
}

/** Every leaf of the schema that an environment variable can set (objects are walked, arrays of buses are not). */
export function envOverrides(schema: z.core.$ZodType = agentConfigSchema, path: string[] = []): EnvOverride[] {
  const base = baseOf(schema);
  const def = base._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType };
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([k, v]) => envOverrides(v, [...path, k]));
    case 'string':
    case 'enum':
      return [{ env: envName(path), path, kind: 'string' }];
    case 'number':
      return [{ env: envName(path), path, kind: 'number' }];
    case 'boolean':
      return [{ env: envName(path), path, kind: 'boolean' }];
    case 'array': {
      const el = def.element ? (baseOf(def.element)._zod.def as { type: string }).type : '';
      return el === 'string' || el === 'enum' ? [{ env: envName(path), path, kind: 'list' }] : [];
    }
    default:
      return [];
  }
}

function parseEnvValue(o: EnvOverride, raw: string): unknown {
  switch (o.kind) {
    case 'string':
      return raw;
    case 'number':
      return raw.trim() === '' ? raw : Number(raw);
    case 'boolean':
      return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
    case 'list':
      return raw.split(',').map((s) => s.trim()).filter(Boolean);
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Validates raw settings plus environment overrides; throws ConfigError naming every bad field. */
export function parseAgentConfig(raw: unknown, env: NodeJS.ProcessEnv = {}): AgentConfig {
  const input: Record<string, unknown> =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? structuredClone(raw as Record<string, unknown>) : {};
  const fromEnv = new Map<string, string>();
  for (const o of envOverrides()) {
    const value = env[o.env];
    if (value === undefined) continue;
    setPath(input, o.path, parseEnvValue(o, value));
    fromEnv.set(o.path.join('.'), o.env);
  }
  const result = agentConfigSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const field = i.path.map(String).join('.') || '(root)';
    const source = fromEnv.get(field);
    return `${field}${source ? ` (from ${source})` : ''}: ${i.message}`;
  });
  throw new ConfigError(`invalid agent config:\n  ${lines.join('\n  ')}`);
}

/** Everything the agent process takes from its command line and environment. */
export interface AgentSettings {
  config: AgentConfig;
  logLevel: LogLevel;
}

/** LOG_LEVEL first (a wrong one is refused before the config file is read), then the config. */
export function loadAgentSettings(argv: readonly string[], env: NodeJS.ProcessEnv): AgentSettings {
  let logLevel: LogLevel;
  try {
    logLevel = parseLogLevel(env.LOG_LEVEL, 'info');
  } catch (err) {
    throw new ConfigError(err instanceof Error ? err.message : String(err));
  }
  return { logLevel, config: loadAgentConfig(argv, env) };
}

/** Reads the config file (`--config PATH` or AGENT_CONFIG) and applies the environment. */
export function loadAgentConfig(argv: readonly string[], env: NodeJS.ProcessEnv): AgentConfig {
  const i = argv.indexOf('--config');
  const path = i >= 0 ? argv[i + 1] : env.AGENT_CONFIG;
  if (!path) throw new ConfigError('no config file: pass --config PATH or set AGENT_CONFIG');
  return parseAgentConfig(readJsonFile(path, 'config'), env);
}

/** A JSON file's content; a file that is missing or not JSON is a ConfigError naming it. */
export function readJsonFile(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read ${what} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
