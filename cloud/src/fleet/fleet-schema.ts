/**
 * The fleet file: every locker with its cells, every marketplace, partner and operator key. The
 * cloud loads it at start and on reload (fleet/provision.ts). docs/fleet.schema.json is generated
 * from this schema (`npx tsx cloud/src/cli.ts fleet-schema`), and a test keeps the two equal.
 */
import { z } from 'zod';
import { BOARD_FAMILIES, CELL_FLAGS } from '../../../shared/src/enums.js';
import { marketplaceRateLimitsSchema, partnerRateLimitsSchema } from '../guard/limits.js';
import { DEFAULT_TIMEZONE, isValidTimezone } from '../lockers/locker-time.js';
import { OPERATOR_ROLES } from '../repositories/operators.js';
import { accessSchema, equipmentSchema, locationSchema, specialDaysSchema, workTimeProfileSchema } from '../lockers/profile.js';

const int32 = z.int().min(1).max(2_147_483_647);
const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'expected a lowercase SHA-256 hex digest')
  .describe('SHA-256 of the key in lowercase hex (`npx tsx cloud/src/cli.ts keygen` prints one)');
const slug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'expected letters, digits, _ . - (max 64)');
const mm = z.int().min(1).max(10_000);

/**
 * The highest cell floor reachable from a wheelchair: the usual upper limit of forward reach
 * (about 1200 mm); a locker may set its own.
 */
export const DEFAULT_ACCESSIBLE_MAX_BOTTOM_MM = 1200;

/** Whether the fleet file makes a cell accessible: its own flag, else its floor within the locker's reach. */
export function cellIsAccessible(cell: Pick<FleetCell, 'accessible' | 'bottomMm'>, locker: Pick<FleetLocker, 'accessibleMaxBottomMm'>): boolean {
  return cell.accessible ?? (cell.bottomMm !== undefined && cell.bottomMm <= locker.accessibleMaxBottomMm);
}

/**
 * Cells per locker: the largest lockers built have a few hundred; the bound keeps the largest
 * `locker.config` and snapshot the cloud sends well inside the agent's message limit
 * (docs/mqtt-interface.md, Message size).
 */
export const MAX_CELLS_PER_LOCKER = 1_000;

export const fleetCellSchema = z.strictObject({
  id: int32.describe('cellId of the API, unique within the locker'),
  width: mm.describe('front opening width, mm'),
  height: mm.describe('front opening height, mm'),
  bus: z.string().min(1).max(128).default('main').describe("name of the agent's bus the board hangs on"),
  board: z.int().min(0).max(255).describe('board address on the bus'),
  lock: z.int().min(1).max(255).describe('lock number on the board, 1-based'),
  segment: z
    .array(slug)
    .optional()
    .describe('marketplaces the cell is reserved for; absent = available to every marketplace'),
  flags: z
    .array(z.enum(CELL_FLAGS))
    .default([])
    .describe('flags set when the fleet is loaded; a reload adds them but never clears one (the operator API does)'),
  bottomMm: z
    .int()
    .min(0)
    .max(10_000)
    .optional()
    .describe("height of the cell's floor above the ground, mm; within the locker's `accessibleMaxBottomMm` the cell counts as accessible"),
  accessible: z
    .boolean()
    .optional()
    .describe('reachable from a wheelchair; overrides what `bottomMm` says (extension: parcels asking `accessible` go only into such cells)'),
});
export type FleetCell = z.infer<typeof fleetCellSchema>;

export const fleetLockerSchema = z.strictObject({
  id: int32.describe('postamatId of the API'),
  name: z.string().min(1),
  timezone: z.string().default(DEFAULT_TIMEZONE).refine(isValidTimezone, 'expected an IANA time zone'),
  depth: mm.describe('inner depth of the cells, mm'),
  active: z.boolean().default(true).describe('inactive lockers take no new orders and are not listed'),
  broken: z.boolean().default(false).describe('broken lockers take no new orders; dayOffs say `broken`'),
  mosRegistryId: z.string().default(''),
  workTime: z.string().default('').describe('short schedule text, e.g. "24/7"'),
  workTimeProfile: workTimeProfileSchema.nullable().default(null),
  specialDays: specialDaysSchema.default({ holidays: [], days: [], daysOfExclusion: [] }),
  find: z.string().default('').describe('how to find the locker'),
  photos: z.array(z.string()).default([]),
  location: locationSchema,
  equipment: equipmentSchema.default({ barcodeScanner: true, heatedCells: false, cooledCells: false }),
  access: accessSchema.default({ privateAccess: false, accessGuide: '' }),
  boardFamily: z.enum(BOARD_FAMILIES).optional(),
  mqttPasswordSha256: sha256Hex.optional().describe("SHA-256 hex of the locker's MQTT password"),
  sandbox: z
    .boolean()
    .default(false)
    .describe('a sandbox locker: the cloud runs it as the hardware simulator behind a real agent; only sandbox marketplaces see it (docs/sandbox.md)'),
  accessibleMaxBottomMm: mm
    .default(DEFAULT_ACCESSIBLE_MAX_BOTTOM_MM)
    .describe('a cell whose `bottomMm` is at most this counts as reachable from a wheelchair (extension)'),
  cells: z.array(fleetCellSchema).min(1).max(MAX_CELLS_PER_LOCKER),
});
export type FleetLocker = z.infer<typeof fleetLockerSchema>;

export const fleetReceiverSchema = z.strictObject({
  url: z.url().describe('{receiver_url}: base address of the notification receiver (HTTPS)'),
  login: z.string(),
  password: z.string(),
  caFile: z.string().optional().describe('PEM file with extra CAs trusted for this receiver'),
  bodyForm: z.enum(['object', 'array']).default('object').describe('notification body: one object or a one-element array'),
  hmacSecret: z.string().min(16).optional().describe('when set, notifications carry an HMAC-SHA256 signature header'),
});

export const fleetMarketplaceSchema = z.strictObject({
  id: slug,
  name: z.string().min(1),
  active: z.boolean().default(true).describe('false: every call answers 401 with resultCode 10'),
  organizationActive: z.boolean().default(true).describe('false: every call answers 401 with resultCode 11'),
  apiKeySha256: z.array(sha256Hex).default([]).describe('hashes of the X-Service-Api-Key values (several allow rotation)'),
  storagePeriodHours: z.int().min(1).max(24 * 365).default(72),
  receiver: fleetReceiverSchema.optional(),
  rateLimits: marketplaceRateLimitsSchema.optional(),
  sandbox: z
    .boolean()
    .default(false)
    .describe('its keys are sandbox keys: it sees only sandbox lockers and may call the sandbox operations (docs/sandbox.md)'),
});
export type FleetMarketplace = z.infer<typeof fleetMarketplaceSchema>;

export const fleetPartnerSchema = z.strictObject({
  id: slug,
  name: z.string().min(1),
  active: z.boolean().default(true),
  apiKeySha256: z.array(sha256Hex).default([]).describe('hashes of the Partner-Api-Key values'),
  marketplaces: z.array(slug).describe('marketplaces the partner delivers for'),
  lockers: z.array(int32).describe('permission profile: lockers its couriers may open'),
  rateLimits: partnerRateLimitsSchema.optional(),
});
export type FleetPartner = z.infer<typeof fleetPartnerSchema>;

export const fleetOperatorSchema = z.strictObject({
  name: slug,
  apiKeySha256: z.array(sha256Hex).min(1).describe('hashes of the X-Operator-Api-Key values'),
  role: z
    .enum(OPERATOR_ROLES)
    .default('operator')
    .describe('viewer: reads only; operator: reads and acts (cell flags, opens, alerts, extensions, redelivery, fleet reload)'),
});

function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const dup = new Set<T>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

export const fleetSchema = z
  .object({
    $schema: z.string().optional(),
    lockers: z.array(fleetLockerSchema),
    marketplaces: z.array(fleetMarketplaceSchema),
    partners: z.array(fleetPartnerSchema).default([]),
    operators: z.array(fleetOperatorSchema).default([]),
  })
  .superRefine((fleet, ctx) => {
    const issue = (path: (string | number)[], message: string): void => ctx.addIssue({ code: 'custom', path, message });
    const lockerIds = new Set(fleet.lockers.map((l) => l.id));
    const marketplaceIds = new Set(fleet.marketplaces.map((m) => m.id));
    for (const id of duplicates(fleet.lockers.map((l) => l.id))) issue(['lockers'], `locker id ${id} appears twice`);
    for (const id of duplicates(fleet.marketplaces.map((m) => m.id))) issue(['marketplaces'], `marketplace id ${id} appears twice`);
    for (const id of duplicates(fleet.partners.map((p) => p.id))) issue(['partners'], `partner id ${id} appears twice`);
    const sandboxMarketplace = new Map(fleet.marketplaces.map((m) => [m.id, m.sandbox]));
    fleet.lockers.forEach((locker, li) => {
      for (const id of duplicates(locker.cells.map((c) => c.id))) issue(['lockers', li, 'cells'], `cell id ${id} appears twice`);
      if (locker.sandbox && locker.mqttPasswordSha256) {
        issue(['lockers', li, 'mqttPasswordSha256'], 'a sandbox locker gets its MQTT password from the cloud that runs it; remove the hash');
      }
      const addresses = locker.cells.map((c) => `${c.bus}/${c.board}/${c.lock}`);
      for (const a of duplicates(addresses)) issue(['lockers', li, 'cells'], `lock address ${a} is used by two cells`);
      locker.cells.forEach((cell, ci) => {
        for (const m of cell.segment ?? []) {
          if (!marketplaceIds.has(m)) issue(['lockers', li, 'cells', ci, 'segment'], `unknown marketplace ${m}`);
          else if (sandboxMarketplace.get(m) !== locker.sandbox) {
            issue(['lockers', li, 'cells', ci, 'segment'], `marketplace ${m} is ${locker.sandbox ? 'not a sandbox' : 'a sandbox'} marketplace and cannot use this locker`);
          }
        }
      });
    });
    fleet.partners.forEach((partner, pi) => {
      for (const m of partner.marketplaces) if (!marketplaceIds.has(m)) issue(['partners', pi, 'marketplaces'], `unknown marketplace ${m}`);
      for (const l of partner.lockers) if (!lockerIds.has(l)) issue(['partners', pi, 'lockers'], `unknown locker ${l}`);
    });
    const keys = [
      ...fleet.marketplaces.flatMap((m) => m.apiKeySha256),
      ...fleet.partners.flatMap((p) => p.apiKeySha256),
      ...fleet.operators.flatMap((o) => o.apiKeySha256),
    ];
    if (duplicates(keys).length > 0) issue([], 'an API key hash is given to more than one owner');
  });
export type Fleet = z.infer<typeof fleetSchema>;
export type FleetInput = z.input<typeof fleetSchema>;

/** The JSON Schema of the fleet file, as published in docs/fleet.schema.json. */
export function fleetJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(fleetSchema, { io: 'input', target: 'draft-2020-12' }),
    $id: 'https://parcel-lockers.example/fleet.schema.json',
    title: 'Parcel-locker fleet file',
  };
}
