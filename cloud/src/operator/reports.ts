/**
 * The duty console's reports (docs/operations.md, "Reports"): per locker and for the network,
 * over a period [from, to): uptime from the link history, and deliveries, pick-ups, returns,
 * failed deliveries, dwell time and the storage-period SLA from the order transitions; and the
 * trends of the last day (hourly) and week (daily). Sandbox lockers are never in the network's
 * figures: they have their own totals.
 */
import { OrderState } from '../../../shared/src/enums.js';
import { invalidRequest } from '../errors.js';
import { addDays, DEFAULT_TIMEZONE, localDate, startOfLocalDay } from '../lockers/locker-time.js';
import { calendarOf } from '../lockers/working-days.js';
import { storageDeadline } from '../orders/deadline.js';
import { allLockers, type Locker } from '../repositories/lockers.js';
import {
  linkChangesBetween,
  linkStatesBefore,
  orderOutcomesBetween,
  parcelMovesSince,
  parcelsInLockers,
  storagePeriods,
  type LinkChange,
  type OrderOutcome,
} from '../repositories/reports.js';
import type { ServiceDeps } from '../services.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest period a report covers. */
export const MAX_REPORT_DAYS = 366;

export interface OrderFigures {
  /** Orders that entered Courier loaded (3). */
  deliveries: number;
  /** Orders that entered Client received (2). */
  pickUps: number;
  /** Orders that entered Courier picked up (4): what was to return collected. */
  returns: number;
  /** Orders that left Courier loaded (3) for Return initiated (6). */
  failed: number;
  failedByCause: { storageExpired: number; cancelled: number; operatorReturn: number; other: number };
  /** failed / (pickUps + failed); null without either. */
  failedRate: number | null;
  /** Load to pick-up, seconds, nearest rank; null without a pick-up of a loaded order. */
  dwellMedianSeconds: number | null;
  dwellP90Seconds: number | null;
  /** Pick-ups within the storage period first given at load. */
  pickedUpInTime: number;
  /** pickedUpInTime / (pick-ups of loaded orders + failed); null without either. */
  sla: number | null;
}

export interface UptimeFigures {
  /** onlineSeconds / observedSeconds; null when no part of the period has passed. */
  uptime: number | null;
  onlineSeconds: number;
  /** The part of the period that has passed (it may end in the future). */
  observedSeconds: number;
}

export interface LockerReport extends OrderFigures, UptimeFigures {
  lockerId: number;
  name: string;
  sandbox: boolean;
  active: boolean;
}

export interface ReportTotals extends OrderFigures, UptimeFigures {
  lockers: number;
}

export interface LockersReport {
  from: number;
  to: number;
  lockers: LockerReport[];
  /** Real lockers only. */
  network: ReportTotals;
  sandbox: ReportTotals;
}

/** A fraction to four places (0.1234 = 12.34 %). */
const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** Nearest-rank percentile: the smallest value with at least p of the values at or below it. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

function failedCause(event: string): keyof OrderFigures['failedByCause'] {
  if (event === 'storage.expired') return 'storageExpired';
  if (event === 'position.cancel') return 'cancelled';
  if (event === 'return.start') return 'operatorReturn';
  return 'other';
}

/** Which outcome an order change is; null for none the reports count. */
function outcomeKind(o: OrderOutcome): 'deliveries' | 'pickUps' | 'returns' | 'failed' {
  if (o.fromState === OrderState.CourierLoaded && o.toState === OrderState.ReturnInitiated) return 'failed';
  if (o.toState === OrderState.CourierLoaded) return 'deliveries';
  return o.toState === OrderState.ClientReceived ? 'pickUps' : 'returns';
}

interface Sla {
  periods: ReadonlyMap<string, number>;
  lockers: ReadonlyMap<number, Locker>;
}

/** The order figures of a set of changes (one locker's, or a whole section's). */
function orderFigures(outcomes: readonly OrderOutcome[], sla: Sla): OrderFigures {
  const f: OrderFigures = {
    deliveries: 0,
    pickUps: 0,
    returns: 0,
    failed: 0,
    failedByCause: { storageExpired: 0, cancelled: 0, operatorReturn: 0, other: 0 },
    failedRate: null,
    dwellMedianSeconds: null,
    dwellP90Seconds: null,
    pickedUpInTime: 0,
    sla: null,
  };
  const dwells: number[] = [];
  for (const o of outcomes) {
    const kind = outcomeKind(o);
    f[kind]++;
    if (kind === 'failed') f.failedByCause[failedCause(o.event)]++;
    if (kind !== 'pickUps' || o.loadedAt === null) continue;
    dwells.push(o.at - o.loadedAt);
    const locker = sla.lockers.get(o.lockerId);
    const hours = sla.periods.get(o.marketplaceId);
    if (locker && hours !== undefined && o.at <= storageDeadline(o.loadedAt, hours, calendarOf(locker))) f.pickedUpInTime++;
  }
  dwells.sort((a, b) => a - b);
  const median = percentile(dwells, 0.5);
  const p90 = percentile(dwells, 0.9);
  f.dwellMedianSeconds = median === null ? null : median / 1000;
  f.dwellP90Seconds = p90 === null ? null : p90 / 1000;
  f.failedRate = ratio(f.failed, f.pickUps + f.failed);
  f.sla = ratio(f.pickedUpInTime, dwells.length + f.failed);
  return f;
}

/** Milliseconds online in [from, end) from the state before `from` (never seen: offline) and the changes in it. */
function onlineMs(before: boolean, changes: readonly LinkChange[], from: number, end: number): number {
  let online = before;
  let since = from;
  let total = 0;
  for (const c of changes) {
    if (c.at >= end) break;
    if (online) total += c.at - since;
    online = c.online;
    since = c.at;
  }
  if (online && end > since) total += end - since;
  return total;
}

function uptimeOf(online: number, observed: number): UptimeFigures {
  return { uptime: ratio(online, observed), onlineSeconds: online / 1000, observedSeconds: observed / 1000 };
}

function groupBy<T>(items: readonly T[], key: (t: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = out.get(k);
    if (list) list.push(it);
    else out.set(k, [it]);
  }
  return out;
}

/** The period's figures for every locker, the network's totals and the sandbox's apart. */
export async function lockersReport(deps: ServiceDeps, from: number, to: number): Promise<LockersReport> {
  const db = deps.cdb.db;
  const end = Math.max(from, Math.min(to, deps.clock.now()));
  const lockers = await allLockers(db);
  const before = await linkStatesBefore(db, from);
  const changes = groupBy(await linkChangesBetween(db, from, end), (c) => c.lockerId);
  const outcomes = await orderOutcomesBetween(db, from, to);
  const byLocker = groupBy(outcomes, (o) => o.lockerId);
  const sla: Sla = { periods: await storagePeriods(db), lockers: new Map(lockers.map((l) => [l.id, l])) };
  const observed = end - from;

  const rows: LockerReport[] = [];
  const sections = { network: { online: 0, observed: 0, lockers: 0, outcomes: [] as OrderOutcome[] }, sandbox: { online: 0, observed: 0, lockers: 0, outcomes: [] as OrderOutcome[] } };
  for (const l of lockers) {
    const online = onlineMs(before.get(l.id) ?? false, changes.get(l.id) ?? [], from, end);
    const own = byLocker.get(l.id) ?? [];
    rows.push({ lockerId: l.id, name: l.name, sandbox: l.sandbox, active: l.active, ...uptimeOf(online, observed), ...orderFigures(own, sla) });
    const s = l.sandbox ? sections.sandbox : sections.network;
    s.online += online;
    s.observed += observed;
    s.lockers++;
    s.outcomes.push(...own);
  }
  rows.sort((a, b) => Number(a.sandbox) - Number(b.sandbox) || a.lockerId - b.lockerId);
  const totals = (s: typeof sections.network): ReportTotals => ({ lockers: s.lockers, ...uptimeOf(s.online, s.observed), ...orderFigures(s.outcomes, sla) });
  return { from, to, lockers: rows, network: totals(sections.network), sandbox: totals(sections.sandbox) };
}

/** A period of a report, checked: from before to, at most MAX_REPORT_DAYS long. */
export function reportPeriod(fromText: string, toText: string): { from: number; to: number } {
  const from = periodBound(fromText);
  const to = periodBound(toText);
  if (!(from < to)) throw invalidRequest({ ru: '`from` должен быть раньше `to`', en: '`from` must be before `to`' });
  if (to - from > MAX_REPORT_DAYS * DAY_MS) throw invalidRequest({ ru: `период длиннее ${MAX_REPORT_DAYS} дней`, en: `the period is longer than ${MAX_REPORT_DAYS} days` });
  return { from, to };
}

/** An instant with an offset, or a calendar date: its start in Europe/Moscow (the console's days). */
function periodBound(text: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? startOfLocalDay(text, DEFAULT_TIMEZONE) : Date.parse(text);
}


export type TrendSpan = 'day' | 'week';

export interface TrendBucket {
  from: number;
  to: number;
  /** Parcels in the cells at the bucket's end (now, for the current one). */
  occupancy: number;
  loads: number;
  pickUps: number;
  returns: number;
  failed: number;
}

export interface Trend {
  span: TrendSpan;
  /** The zone of the week's days: the locker's, or Europe/Moscow for the network. */
  timezone: string;
  lockerId: number | null;
  buckets: TrendBucket[];
}

/** Bucket bounds: the last 24 whole hours (the current one included), or the last 7 local days (today included). */
function bucketBounds(span: TrendSpan, now: number, zone: string): { from: number; to: number }[] {
  if (span === 'day') {
    const hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    return Array.from({ length: 24 }, (_, i) => ({ from: hour - (23 - i) * HOUR_MS, to: hour - (22 - i) * HOUR_MS }));
  }
  const today = localDate(now, zone);
  return Array.from({ length: 7 }, (_, i) => {
    const day = addDays(today, i - 6);
    return { from: startOfLocalDay(day, zone), to: startOfLocalDay(addDays(day, 1), zone) };
  });
}

/** The trend of one locker, or of the network (real lockers) without `lockerId`. */
export async function trend(deps: ServiceDeps, span: TrendSpan, lockerId?: number): Promise<Trend> {
  const db = deps.cdb.db;
  const now = deps.clock.now();
  const lockers = await allLockers(db);
  const locker = lockerId === undefined ? undefined : lockers.find((l) => l.id === lockerId);
  if (lockerId !== undefined && !locker) throw invalidRequest({ ru: `постамат ${lockerId} не найден`, en: `locker ${lockerId} not found` });
  const counted = new Set(lockers.filter((l) => (locker ? l.id === locker.id : !l.sandbox)).map((l) => l.id));
  const zone = locker?.timezone ?? DEFAULT_TIMEZONE;
  const bounds = bucketBounds(span, now, zone);
  const start = bounds[0]!.from;
  const outcomes = (await orderOutcomesBetween(db, start, bounds.at(-1)!.to, lockerId)).filter((o) => counted.has(o.lockerId));
  const moves = (await parcelMovesSince(db, start, lockerId)).filter((m) => counted.has(m.lockerId));
  let inLockers = 0;
  for (const [id, n] of await parcelsInLockers(db)) if (counted.has(id)) inLockers += n;

  const buckets = bounds.map((b) => {
    const bucket: TrendBucket = { ...b, occupancy: inLockers, loads: 0, pickUps: 0, returns: 0, failed: 0 };
    // What is in the cells now, less what came in since the bucket ended, plus what went out since.
    for (const m of moves) if (m.at >= b.to) bucket.occupancy -= m.delta;
    for (const o of outcomes) {
      if (o.at < b.from || o.at >= b.to) continue;
      const kind = outcomeKind(o);
      bucket[kind === 'deliveries' ? 'loads' : kind]++;
    }
    return bucket;
  });
  return { span, timezone: zone, lockerId: locker?.id ?? null, buckets };
}
