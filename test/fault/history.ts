/**
 * The generated, seeded history of a run: concurrent clients doing what the platform's users do.
 * - a marketplace: orders with reservation (one or two parcels) at random lockers, position
 *   cancellations, storage extensions;
 * - a logistics partner: route sheets (a courier code valid at every locker today);
 * - at every locker, one person at a time (the kiosk has one session): couriers signing in,
 *   loading the parcels meant for that locker and collecting returns, customers picking up with
 *   the codes the receiver got.
 * The seed decides every choice; the interleaving comes from real concurrency and the faults.
 * Each operation and its outcome is logged: `ok`, a refusal, or `unknown` when a crash cut the
 * answer off (Jepsen's indeterminate operation). The checker does not trust these beliefs: the
 * stores and the receiver are the record; the history only says what may have happened.
 */
import type { Random } from '../../sim/src/random.js';
import type { TestReceiver } from '../helpers/test-receiver.js';
import { KEYS, MARKETPLACES, TODAY, type FaultWorld, type LockerRig, type MarketplaceId } from './fault-world.js';
import { KioskClient } from './kiosk-client.js';

export interface OrderModel {
  externalId: string;
  marketplace: MarketplaceId;
  lockerId: number;
  barcodes: string[];
  /** Kept out of the random visits: a scenario of the run uses it. */
  scripted: boolean;
  /** Parcels the courier saw go in, and the order picked up, as the screen said. */
  loaded: Set<string>;
  pickedUp: boolean;
  /** Cancellations the cloud accepted (200, or 208 on a retry after an unknown outcome). */
  cancelled: Set<string>;
  extensions: { ok: number; unknown: number };
}

/** 'ok', 'unknown' (the answer was cut off), 'down', or the refusal the client got. */
export type Outcome = string;

export interface Op {
  kind: string;
  lockerId?: number;
  outcome: Outcome;
}

type Answer = { kind: 'answer'; status: number; body: unknown } | { kind: 'down' } | { kind: 'unknown'; error: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A cloud that does not answer for this long is not coming back: the step fails. */
const GIVE_UP_MS = 90_000;

/** A mutex per locker: one person at the kiosk at a time. */
class Turn {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

export class History {
  readonly orders = new Map<string, OrderModel>();
  readonly ops: Op[] = [];
  readonly courierCodes: string[] = [];
  readonly #turns = new Map<number, Turn>();
  readonly #kiosks = new Map<number, KioskClient>();
  #running = false;
  #workers: Promise<void>[] = [];
  #n = 0;

  constructor(
    private readonly world: FaultWorld,
    private readonly random: Random,
  ) {
    for (const l of world.lockers) {
      this.#turns.set(l.id, new Turn());
      this.#kiosks.set(l.id, new KioskClient(() => l.agent.url, l.sim));
    }
  }

  get receiver(): TestReceiver {
    return this.world.receiver;
  }

  // --- the run ----------------------------------------------------------------------------------

  /** Route sheets first (couriers need grants), then every worker until stop(). */
  async start(): Promise<void> {
    for (let i = 0; i < 2; i++) await this.createRoute();
    this.#running = true;
    this.#workers = [
      // Two marketplace clients at once, so that API calls race on the same lockers.
      this.#loop('marketplace 1', () => this.#marketplaceStep(), 400, 1_600),
      this.#loop('marketplace 2', () => this.#marketplaceStep(), 400, 1_600),
      this.#loop('partner', () => this.createRoute().then(() => undefined), 15_000, 25_000),
      ...this.world.lockers.map((l) => this.#loop(`locker ${l.id}`, () => this.#visit(l), 300, 1_200)),
    ];
  }

  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
  }

  /** Operations by kind and outcome, for the run's report. */
  summary(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const op of this.ops) {
      const byKind = (out[op.kind] ??= {});
      byKind[op.outcome] = (byKind[op.outcome] ?? 0) + 1;
    }
    return out;
  }

  async #loop(name: string, step: () => Promise<void>, minMs: number, maxMs: number): Promise<void> {
    while (this.#running) {
      try {
        await step();
      } catch (err) {
        this.ops.push({ kind: `${name} step`, outcome: `error: ${err instanceof Error ? err.message.slice(0, 80) : String(err)}` });
      }
      await sleep(minMs + Math.floor(this.random() * (maxMs - minMs)));
    }
  }

  // --- marketplace and partner --------------------------------------------------------------------

  async #marketplaceStep(): Promise<void> {
    const r = this.random();
    if (r < 0.55) {
      const locker = this.world.lockers[Math.floor(this.random() * this.world.lockers.length)]!;
      await this.createOrder(locker.id, this.random() < 0.25 ? 2 : 1, false);
    } else if (r < 0.72) {
      const candidates = [...this.orders.values()].filter((o) => !o.scripted && o.cancelled.size < o.barcodes.length);
      const order = this.#pick(candidates);
      if (order) await this.cancel(order, this.#pick(order.barcodes.filter((b) => !order.cancelled.has(b)))!);
    } else if (r < 0.9) {
      const order = this.#pick([...this.orders.values()].filter((o) => !o.scripted && this.codeOf(o) !== undefined && !o.pickedUp));
      if (order) await this.extend(order);
    }
  }

  /** smartorder/create until the cloud answers (an identical request is a replay). Returns the order, or null when refused. */
  async createOrder(lockerId: number, parcels: number, scripted: boolean, marketplace: MarketplaceId = 'shop-a'): Promise<OrderModel | null> {
    const externalId = `ord-${++this.#n}-${Math.floor(this.random() * 1e6)}`;
    const barcodes = Array.from({ length: parcels }, (_, i) => `${externalId}-P${i + 1}`);
    const body = {
      externalId,
      number: `N-${externalId}`,
      postamatId: lockerId,
      dateDelivery: TODAY,
      parcels: barcodes.map((barcode) => ({ barcode, dimension: { length: 300, width: 200, height: 80 } })),
      clientInvoice: {
        cart: {
          items: barcodes.map((barcode) => ({ count: 1, barcode, name: 'Kettle', subjectType: 1, price: 1000, totalSum: 1000, taxId: 1, taxSystemId: 1 })),
          prePaymentSum: 1000 * parcels,
        },
      },
      notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
    };
    const a = await this.#definite('PUT', '/api/v4/auth/delivery/smartorder/create', body, MARKETPLACES[marketplace]);
    const ok = a.status === 200;
    this.ops.push({ kind: 'create order', lockerId, outcome: ok ? 'ok' : `refused ${(a.body as { resultCode?: number } | null)?.resultCode ?? a.status}` });
    if (!ok) return null;
    const order: OrderModel = { externalId, marketplace, lockerId, barcodes, scripted, loaded: new Set(), pickedUp: false, cancelled: new Set(), extensions: { ok: 0, unknown: 0 } };
    this.orders.set(externalId, order);
    return order;
  }

  /** order/place/cancel until the cloud answers; 208 after an unknown outcome means the first try went through. */
  async cancel(order: OrderModel, barcode: string): Promise<Outcome> {
    let retried = false;
    for (const deadline = Date.now() + GIVE_UP_MS; Date.now() < deadline; ) {
      const a = await this.#call('PUT', '/api/v4/auth/delivery/order/place/cancel', { extId: order.externalId, barcode }, MARKETPLACES[order.marketplace]);
      if (a.kind === 'answer') {
        const code = (a.body as { resultCode?: number } | null)?.resultCode;
        const ok = a.status === 200 || (retried && code === 208);
        if (ok) order.cancelled.add(barcode);
        const outcome = ok ? 'ok' : `refused ${code ?? a.status}`;
        this.ops.push({ kind: 'cancel position', lockerId: order.lockerId, outcome });
        return outcome;
      }
      if (a.kind === 'unknown') retried = true;
      await sleep(500);
    }
    throw new Error(`the cloud did not answer the cancellation of ${barcode} for ${GIVE_UP_MS / 1000} s`);
  }

  /** order/extension: not idempotent, so an answer lost to a crash stays unknown. */
  async extend(order: OrderModel): Promise<void> {
    for (const deadline = Date.now() + GIVE_UP_MS; Date.now() < deadline; ) {
      const a = await this.#call('POST', '/api/v4/auth/delivery/order/extension', { extId: order.externalId }, MARKETPLACES[order.marketplace]);
      if (a.kind === 'down') {
        await sleep(500);
        continue;
      }
      if (a.kind === 'unknown') order.extensions.unknown++;
      else if (a.status === 200) order.extensions.ok++;
      this.ops.push({ kind: 'extend storage', lockerId: order.lockerId, outcome: a.kind === 'unknown' ? 'unknown' : a.status === 200 ? 'ok' : `refused ${(a.body as { resultCode?: number } | null)?.resultCode ?? a.status}` });
      return;
    }
    this.ops.push({ kind: 'extend storage', lockerId: order.lockerId, outcome: 'down' });
  }

  /** A route sheet for today over every locker; keeps the courier's code. */
  async createRoute(): Promise<void> {
    const n = ++this.#n;
    const body = {
      courier: { externalId: `courier-${n}`, email: `courier-${n}@example.ru`, inn: '7701234567', phone: `+7999${String(n).padStart(7, '0')}` },
      route: { carNumber: 'А123ВС77', date: TODAY, externalId: `route-${n}`, postamatIds: this.world.lockers.map((l) => l.id) },
    };
    const a = await this.#call('PUT', '/api/v1/auth/couriers/courier-with-route', body, 'partner');
    const code = a.kind === 'answer' && a.status === 200 ? (a.body as { postamatAccessCode?: string }).postamatAccessCode : undefined;
    if (code) this.courierCodes.push(code);
    this.ops.push({ kind: 'route sheet', outcome: code ? 'ok' : a.kind === 'answer' ? `refused ${a.status}` : a.kind });
  }

  /** The pick-up code the receiver got for an order (first user-access-code call). */
  codeOf(order: OrderModel): string | undefined {
    const call = this.receiver.calls.find((c) => c.path === '/user-access-code' && (c.body as { id?: string }).id === order.externalId);
    return call ? (call.body as { access_code: string }).access_code : undefined;
  }

  // --- at the lockers -----------------------------------------------------------------------------

  kiosk(lockerId: number): KioskClient {
    return this.#kiosks.get(lockerId)!;
  }

  /** Runs a visit when the locker's kiosk is free. */
  atLocker<T>(lockerId: number, fn: (k: KioskClient) => Promise<T>): Promise<T> {
    return this.#turns.get(lockerId)!.run(() => fn(this.kiosk(lockerId)));
  }

  /**
   * A courier signs in (with `code`, or the code of any route sheet) and loads `barcodes`
   * (recording what the screen said); optionally collects returns.
   */
  async courierVisit(lockerId: number, barcodes: string[], collect: boolean, code?: string): Promise<{ loads: string[]; returns: string }> {
    return this.atLocker(lockerId, async (k) => {
      code ??= this.#pick(this.courierCodes);
      if (!code) return { loads: [], returns: 'no courier' };
      const signIn = await k.signIn(code);
      this.ops.push({ kind: 'courier sign-in', lockerId, outcome: signIn.ok ? 'ok' : (signIn.error ?? 'refused') });
      if (!signIn.ok) return { loads: [], returns: 'not signed in' };
      const loads: string[] = [];
      for (const barcode of barcodes) {
        const r = await k.load(barcode);
        const outcome = r.kind === 'loaded' ? 'ok' : r.error;
        this.ops.push({ kind: 'load', lockerId, outcome });
        loads.push(outcome);
        if (r.kind === 'loaded') this.#orderOf(barcode)?.loaded.add(barcode);
      }
      let returns = 'skipped';
      if (collect) {
        const r = await k.collectReturns();
        returns = r.kind === 'taken' ? 'ok' : r.error;
        this.ops.push({ kind: 'collect returns', lockerId, outcome: returns });
      }
      await k.post('/api/home');
      return { loads, returns };
    });
  }

  /** A customer picks the order up with the code the receiver got. */
  async customerVisit(order: OrderModel): Promise<Outcome> {
    const code = this.codeOf(order);
    if (!code) return 'no code';
    return this.atLocker(order.lockerId, async (k) => {
      const r = await k.pickUp(code);
      const outcome = r.kind === 'taken' ? 'ok' : r.error;
      if (r.kind === 'taken') order.pickedUp = true;
      this.ops.push({ kind: 'pick up', lockerId: order.lockerId, outcome });
      return outcome;
    });
  }

  async #visit(locker: LockerRig): Promise<void> {
    if (!locker.agent.up) {
      await locker.agent.whenUp();
      return;
    }
    const mine = [...this.orders.values()].filter((o) => o.lockerId === locker.id && !o.scripted && !o.pickedUp);
    try {
      if (this.random() < 0.55) {
        const toLoad = mine.flatMap((o) => o.barcodes.filter((b) => !o.loaded.has(b)));
        const chosen = this.#shuffle(toLoad).slice(0, 1 + Math.floor(this.random() * 3));
        await this.courierVisit(locker.id, chosen, this.random() < 0.35);
      } else {
        const order = this.#pick(mine.filter((o) => this.codeOf(o) !== undefined));
        if (order) await this.customerVisit(order);
      }
    } catch (err) {
      // The agent died under the visit (a crash point) or its answer was cut off.
      this.ops.push({ kind: 'visit', lockerId: locker.id, outcome: `interrupted: ${err instanceof Error ? err.message.slice(0, 60) : String(err)}` });
    }
  }

  #orderOf(barcode: string): OrderModel | undefined {
    return this.orders.get(barcode.replace(/-P\d+$/, ''));
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[Math.floor(this.random() * items.length)];
  }

  #shuffle<T>(items: readonly T[]): T[] {
    const a = [...items];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  }

  // --- HTTP to the cloud ---------------------------------------------------------------------------

  /** Repeats an idempotent request until the cloud answers it. */
  async #definite(method: string, path: string, body: unknown, key: keyof typeof KEYS): Promise<{ status: number; body: unknown }> {
    for (const deadline = Date.now() + GIVE_UP_MS; Date.now() < deadline; ) {
      const a = await this.#call(method, path, body, key);
      if (a.kind === 'answer') return a;
      await sleep(500);
    }
    throw new Error(`the cloud did not answer ${path} for ${GIVE_UP_MS / 1000} s`);
  }

  async #call(method: string, path: string, body: unknown, key: keyof typeof KEYS): Promise<Answer> {
    if (!this.world.cloud.up) return { kind: 'down' };
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    headers[key === 'partner' ? 'Partner-Api-Key' : 'X-Service-Api-Key'] = KEYS[key];
    try {
      const res = await fetch(`${this.world.cloud.url}${path}`, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      return { kind: 'answer', status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      // Refused: nothing reached the cloud. Anything else: it may have been applied.
      return code === 'ECONNREFUSED' ? { kind: 'down' } : { kind: 'unknown', error: code ?? String(err) };
    }
  }
}
