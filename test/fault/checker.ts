/**
 * The checker of a fault-suite run, in the manner of a Jepsen queue checker: a pure function of
 * what the run left behind (the cloud's database, every agent's store and applied-commands
 * record, the receiver's calls, and what the history believes it did), read after quiescence.
 *
 * - Up stream: every event in an agent's outbox is in the cloud's inbox exactly once, with the
 *   same fact, under a contiguous dseq, applied in dseq order (received_at and the operators'
 *   alert rows never go back).
 * - Down stream: every command of the cloud's log was applied by its agent exactly once, in cseq
 *   order, with the content the cloud wrote; both ends agree on the position.
 * - Agreement: each order's intent at the agent equals the one the cloud would send now (state,
 *   pick-up code, deadline, every parcel's state and cell); each parcel's place (in which cell,
 *   received, returned); each cell's occupancy and flags.
 * - Marketplace: each physical fact (load, pick-up, return) gave exactly one order-status, each
 *   order at most one pick-up code (exactly one when every parcel went in and none was
 *   cancelled), the deadline notifications match the code and the extensions; effects are told
 *   apart by content, deliveries by X-Notification-Id, so a redelivery (same id again) is
 *   counted apart from a duplicated effect (two ids, one content). Per order, notifications
 *   arrive in the order the cloud wrote them, and none is left undelivered.
 */
import type { StoredOrder, ParcelFact, Cell } from '../../agent/src/store/index.js';
import { commandSchema, type LockerEvent, type OrderIntent } from '../../shared/src/protocol.js';
import { type AppliedLine, canonical, digest } from './child-support.js';

export interface CloudEventRow {
  dseq: number;
  type: string;
  body: string;
  occurred_at: number;
  received_at: number;
}

export interface CloudParcel {
  order_id: string;
  barcode: string;
  state: string;
  cell_id: number | null;
}

export interface LockerRecord {
  lockerId: number;
  cloud: {
    nextCseq: number;
    appliedCseq: number;
    ackedDseq: number;
    /** locker_commands rows: cseq, the command body (JSON) and when it was written. */
    commands: { cseq: number; body: string; created_at: number }[];
    inbox: CloudEventRow[];
    /** locker_alerts rows raised by events, in id order. */
    alerts: { id: number; dseq: number }[];
    /** The intent the cloud would send now, per order placed at this locker. */
    intents: OrderIntent[];
    parcels: CloudParcel[];
    cellFlags: Map<number, string[]>;
  };
  agent: {
    outbox: LockerEvent[];
    ackedDseq: number;
    appliedCseq: number;
    orders: StoredOrder[];
    parcels: ParcelFact[];
    cells: Cell[];
    applied: AppliedLine[];
  };
}

export interface ReceivedNotification {
  path: string;
  uid: string | undefined;
  body: unknown;
}

export interface RunRecord {
  lockers: LockerRecord[];
  /** Every call the receiver got, in arrival order. */
  calls: ReceivedNotification[];
  /** The cloud's notification rows. */
  notifications: { id: number; uid: string; order_id: string; delivered_at: number | null }[];
  /** Platform order id -> external id (notification bodies name orders by their external id). */
  externalIds: Map<string, string>;
  /** What the history believes, per external id: accepted cancellations and extensions. */
  history: Map<string, { barcodes: string[]; cancelled: Set<string>; extensions: { ok: number; unknown: number } }>;
}

export interface Counts {
  events: number;
  commands: number;
  snapshots: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  disagreements: number;
  notifications: number;
  calls: number;
  redeliveries: number;
  effectsExpected: number;
  effectsMissing: number;
  effectsDuplicated: number;
  effectsUnexplained: number;
  notificationsOutOfOrder: number;
  undelivered: number;
}

export interface CheckResult {
  counts: Counts;
  /** One line per anomaly (the first ones of each kind are enough to start from). */
  anomalies: string[];
}

const IN_CELL = new Set(['loaded', 'awaiting_return']);

export function anomalyTotal(c: Counts): number {
  return (
    c.lost + c.duplicated + c.outOfOrder + c.disagreements + c.effectsMissing + c.effectsDuplicated + c.effectsUnexplained + c.notificationsOutOfOrder + c.undelivered
  );
}

export function check(run: RunRecord): CheckResult {
  const counts: Counts = {
    events: 0,
    commands: 0,
    snapshots: 0,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
    disagreements: 0,
    notifications: 0,
    calls: 0,
    redeliveries: 0,
    effectsExpected: 0,
    effectsMissing: 0,
    effectsDuplicated: 0,
    effectsUnexplained: 0,
    notificationsOutOfOrder: 0,
    undelivered: 0,
  };
  const anomalies: string[] = [];
  const flag = (key: keyof Counts, text: string): void => {
    counts[key]++;
    anomalies.push(text);
  };

  for (const l of run.lockers) {
    checkEvents(l, counts, flag);
    checkCommands(l, counts, flag);
    checkAgreement(l, flag);
  }
  checkNotifications(run, counts, flag);
  return { counts, anomalies };
}

type Flag = (key: keyof Counts, text: string) => void;

function checkEvents(l: LockerRecord, counts: Counts, flag: Flag): void {
  const id = l.lockerId;
  const outbox = [...l.agent.outbox].sort((a, b) => a.dseq - b.dseq);
  const inbox = new Map(l.cloud.inbox.map((r) => [r.dseq, r]));
  counts.events += outbox.length;
  outbox.forEach((e, i) => {
    if (e.dseq !== i + 1) flag('outOfOrder', `locker ${id}: the agent's events are not numbered 1..n (dseq ${e.dseq} at position ${i + 1})`);
    const row = inbox.get(e.dseq);
    const { dseq: _d, at, ...fact } = e;
    if (!row) flag('lost', `locker ${id}: event ${e.dseq} (${e.type}) never reached the cloud`);
    else if (canonical(JSON.parse(row.body)) !== canonical(fact) || row.occurred_at !== at) {
      flag('lost', `locker ${id}: the cloud holds another fact under dseq ${e.dseq} (${row.type}, agent: ${e.type})`);
    }
  });
  const known = new Set(outbox.map((e) => e.dseq));
  for (const r of l.cloud.inbox) if (!known.has(r.dseq)) flag('duplicated', `locker ${id}: the cloud applied event ${r.dseq} (${r.type}) the agent never recorded`);
  const byDseq = [...l.cloud.inbox].sort((a, b) => a.dseq - b.dseq);
  byDseq.forEach((r, i) => {
    if (r.dseq !== i + 1) flag('outOfOrder', `locker ${id}: the cloud's inbox skips to dseq ${r.dseq} at position ${i + 1}`);
    const prev = byDseq[i - 1];
    if (prev && r.received_at < prev.received_at) flag('outOfOrder', `locker ${id}: event ${r.dseq} was applied before event ${prev.dseq}`);
  });
  for (let i = 1; i < l.cloud.alerts.length; i++) {
    const [a, b] = [l.cloud.alerts[i - 1]!, l.cloud.alerts[i]!];
    if (b.dseq < a.dseq) flag('outOfOrder', `locker ${id}: the effect of event ${b.dseq} was written after that of event ${a.dseq}`);
  }
  const last = outbox.at(-1)?.dseq ?? 0;
  if (l.cloud.ackedDseq !== last) flag('disagreements', `locker ${id}: the cloud acked dseq ${l.cloud.ackedDseq}, the agent's last event is ${last}`);
  if (l.agent.ackedDseq !== last) flag('disagreements', `locker ${id}: the agent holds the cloud's ack as ${l.agent.ackedDseq}, its last event is ${last}`);
}

function checkCommands(l: LockerRecord, counts: Counts, flag: Flag): void {
  const id = l.lockerId;
  const log = [...l.cloud.commands].sort((a, b) => a.cseq - b.cseq);
  const last = l.cloud.nextCseq - 1;
  counts.commands += log.length;
  log.forEach((c, i) => {
    if (c.cseq !== i + 1) flag('outOfOrder', `locker ${id}: the cloud's command log skips to cseq ${c.cseq}`);
  });
  const digests = new Map(log.map((c) => [c.cseq, digest(commandSchema.parse({ ...(JSON.parse(c.body) as object), cseq: c.cseq, at: c.created_at }))]));
  const applications = new Map<number, number>();
  let cursor = 0;
  let snapshotUpTo = 0;
  for (const line of l.agent.applied) {
    if (line.status !== 'applied') continue;
    if (line.kind === 'snapshot') {
      counts.snapshots++;
      cursor = line.cseq;
      snapshotUpTo = Math.max(snapshotUpTo, line.cseq);
      continue;
    }
    applications.set(line.cseq, (applications.get(line.cseq) ?? 0) + 1);
    if (line.cseq !== cursor + 1) flag('outOfOrder', `locker ${id}: command ${line.cseq} applied after ${cursor}`);
    cursor = line.cseq;
    const expected = digests.get(line.cseq);
    if (expected !== undefined && expected !== line.digest) flag('disagreements', `locker ${id}: command ${line.cseq} applied with other content than the cloud wrote`);
  }
  for (const c of log) {
    const n = applications.get(c.cseq) ?? 0;
    if (n === 0 && c.cseq > snapshotUpTo) flag('lost', `locker ${id}: command ${c.cseq} (${JSON.parse(c.body).type as string}) was never applied`);
    if (n > 1) flag('duplicated', `locker ${id}: command ${c.cseq} was applied ${n} times`);
  }
  for (const cseq of applications.keys()) if (!digests.has(cseq)) flag('duplicated', `locker ${id}: the agent applied command ${cseq} the cloud never wrote`);
  if (l.agent.appliedCseq !== last) flag('disagreements', `locker ${id}: the agent applied up to ${l.agent.appliedCseq}, the cloud's last command is ${last}`);
  if (l.cloud.appliedCseq !== last) flag('disagreements', `locker ${id}: the cloud holds the agent's ack as ${l.cloud.appliedCseq}, its last command is ${last}`);
}

function checkAgreement(l: LockerRecord, flag: Flag): void {
  const id = l.lockerId;
  const agentOrders = new Map(l.agent.orders.map((o) => [o.intent.orderId, o]));
  const cloudOrders = new Set(l.cloud.intents.map((i) => i.orderId));
  for (const intent of l.cloud.intents) {
    const held = agentOrders.get(intent.orderId);
    if (!held) flag('disagreements', `locker ${id}: order ${intent.externalId} (state ${intent.state}) is not at the agent`);
    else if (held.removed || canonical(held.intent) !== canonical(intent)) {
      flag('disagreements', `locker ${id}: order ${intent.externalId}: the agent holds state ${held.intent.state}${held.removed ? ' (removed)' : ''}, the cloud ${intent.state}, or their parcels differ`);
    }
  }
  const facts = new Map(l.agent.parcels.map((f) => [`${f.orderId}/${f.barcode}`, f]));
  for (const o of l.agent.orders) {
    const inCell = l.agent.parcels.some((f) => f.orderId === o.intent.orderId && f.state === 'in_cell');
    if (!cloudOrders.has(o.intent.orderId) && !(o.removed && inCell)) flag('disagreements', `locker ${id}: the agent holds order ${o.intent.externalId} the cloud does not place there`);
  }
  const cloudCells = new Map<number, Set<string>>();
  for (const p of l.cloud.parcels) {
    const key = `${p.order_id}/${p.barcode}`;
    const fact = facts.get(key);
    facts.delete(key);
    const expected = IN_CELL.has(p.state) ? `in_cell@${p.cell_id}` : p.state === 'received' || p.state === 'returned' ? p.state : 'none';
    const actual = fact ? (fact.state === 'in_cell' ? `in_cell@${fact.cellId}` : fact.state) : 'none';
    if (expected !== actual) flag('disagreements', `locker ${id}: parcel ${p.barcode}: the cloud says ${p.state}${p.cell_id !== null ? ` (cell ${p.cell_id})` : ''}, the agent ${actual}`);
    if (IN_CELL.has(p.state) && p.cell_id !== null) cloudCells.set(p.cell_id, new Set([...(cloudCells.get(p.cell_id) ?? []), key]));
  }
  for (const [key, f] of facts) flag('disagreements', `locker ${id}: the agent has parcel ${key} (${f.state}) the cloud does not know at this locker`);
  const agentCells = new Map<number, Set<string>>();
  for (const f of l.agent.parcels) if (f.state === 'in_cell') agentCells.set(f.cellId, new Set([...(agentCells.get(f.cellId) ?? []), `${f.orderId}/${f.barcode}`]));
  for (const cell of l.agent.cells) {
    const a = [...(agentCells.get(cell.id) ?? [])].sort().join(',');
    const c = [...(cloudCells.get(cell.id) ?? [])].sort().join(',');
    if (a !== c) flag('disagreements', `locker ${id}: cell ${cell.id} holds [${a}] at the agent, [${c}] at the cloud`);
    const cloudFlags = [...(l.cloud.cellFlags.get(cell.id) ?? [])].sort().join(',');
    if ([...cell.cloudFlags].sort().join(',') !== cloudFlags) flag('disagreements', `locker ${id}: cell ${cell.id} flags [${cell.cloudFlags.join(',')}] at the agent, [${cloudFlags}] at the cloud`);
  }
  if (l.agent.cells.length !== l.cloud.cellFlags.size) flag('disagreements', `locker ${id}: ${l.agent.cells.length} cells at the agent, ${l.cloud.cellFlags.size} at the cloud`);
}

/** The effect a notification has on the marketplace, whatever its delivery id. */
function effectKey(path: string, body: unknown): string {
  const b = body as Record<string, unknown>;
  switch (path) {
    case '/order-status':
      return `status ${String(b.id)} ${String(b.barcode)} ${String(b.event_id)}`;
    case '/user-access-code':
      return `code ${String(b.id)}`;
    case '/expiration-date-changes':
      return `deadline ${String(b.id)} ${String(b.expire_dt)}`;
    default:
      return `unknown ${path}`;
  }
}

const FACT_STATUS: Partial<Record<LockerEvent['type'], string>> = { 'parcel.loaded': '3', 'parcel.received': '2', 'parcel.returned': '4' };

function checkNotifications(run: RunRecord, counts: Counts, flag: Flag): void {
  counts.calls = run.calls.length;
  const byUid = new Map<string, ReceivedNotification>();
  for (const c of run.calls) {
    if (!c.uid) {
      flag('effectsUnexplained', `a notification came without X-Notification-Id (${c.path})`);
      continue;
    }
    if (!byUid.has(c.uid)) byUid.set(c.uid, c);
  }
  counts.notifications = byUid.size;
  counts.redeliveries = run.calls.filter((c) => c.uid).length - byUid.size;

  const uidsByEffect = new Map<string, string[]>();
  for (const [uid, c] of byUid) {
    const key = effectKey(c.path, c.body);
    uidsByEffect.set(key, [...(uidsByEffect.get(key) ?? []), uid]);
  }
  for (const [key, uids] of uidsByEffect) if (uids.length > 1) flag('effectsDuplicated', `the marketplace was told "${key}" ${uids.length} times under different ids`);

  // What the physical facts owe the marketplace.
  const expected = new Set<string>();
  const loadedParcels = new Set<string>();
  for (const l of run.lockers) {
    for (const e of l.agent.outbox) {
      const status = FACT_STATUS[e.type];
      if (!status || !('orderId' in e) || !('barcode' in e) || e.orderId === null || e.barcode === null) continue;
      const ext = run.externalIds.get(e.orderId) ?? `unknown order ${e.orderId}`;
      const key = `status ${ext} ${e.barcode} ${status}`;
      if (expected.has(key)) flag('duplicated', `locker ${l.lockerId}: the fact "${key}" was recorded twice`);
      expected.add(key);
      if (status === '3') loadedParcels.add(`${ext} ${e.barcode}`);
    }
  }
  counts.effectsExpected = expected.size;
  for (const key of expected) if (!uidsByEffect.has(key)) flag('effectsMissing', `no notification for the fact "${key}"`);
  for (const key of uidsByEffect.keys()) {
    const status = /^status \S+ \S+ ([234])$/.exec(key);
    if (status && !expected.has(key)) flag('effectsUnexplained', `the marketplace was told "${key}" without such a fact at a locker`);
  }

  // Pick-up codes and deadlines, per order of the history.
  for (const [ext, order] of run.history) {
    const codes = uidsByEffect.has(`code ${ext}`) ? 1 : 0;
    const allIn = order.barcodes.every((b) => loadedParcels.has(`${ext} ${b}`));
    if (order.cancelled.size === 0 && allIn && codes === 0) flag('effectsMissing', `order ${ext}: every parcel went in, no pick-up code was sent`);
    if (codes === 1 && !order.barcodes.every((b) => loadedParcels.has(`${ext} ${b}`) || order.cancelled.has(b))) {
      flag('effectsUnexplained', `order ${ext}: a pick-up code was sent before all its parcels were in`);
    }
    const deadlines = [...uidsByEffect.keys()].filter((k) => k.startsWith(`deadline ${ext} `)).length;
    const least = codes + order.extensions.ok;
    if (deadlines < least || deadlines > least + order.extensions.unknown) {
      flag(deadlines < least ? 'effectsMissing' : 'effectsUnexplained', `order ${ext}: ${deadlines} deadline notifications for a code and ${order.extensions.ok} extensions (+${order.extensions.unknown} unknown)`);
    }
  }

  // Per order, first arrivals follow the order the cloud wrote the notifications in.
  const rowByUid = new Map(run.notifications.map((n) => [n.uid, n]));
  const lastIdByOrder = new Map<string, number>();
  for (const [uid] of byUid) {
    const row = rowByUid.get(uid);
    if (!row) {
      flag('effectsUnexplained', `notification ${uid} is not in the cloud's outbox`);
      continue;
    }
    const before = lastIdByOrder.get(row.order_id) ?? 0;
    if (row.id < before) flag('notificationsOutOfOrder', `order ${run.externalIds.get(row.order_id) ?? row.order_id}: notification ${row.id} arrived after ${before}`);
    lastIdByOrder.set(row.order_id, Math.max(before, row.id));
  }
  for (const n of run.notifications) {
    if (n.delivered_at === null) flag('undelivered', `notification ${n.id} of order ${run.externalIds.get(n.order_id) ?? n.order_id} is still undelivered`);
    else if (!byUid.has(n.uid)) flag('effectsMissing', `notification ${n.id} is marked delivered but never reached the receiver`);
  }
}
