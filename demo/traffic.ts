/**
 * Continuous demo traffic, through the same doors a person would use: orders and route sheets
 * through the cloud's HTTP API with the demo keys, couriers and customers at each locker's screen
 * (its JSON API), barcodes scanned and doors closed through the locker's simulator (its control
 * API), pick-up codes read from the demo receiver (what the marketplace was told). Each order gets
 * a fate: picked up by the customer, cancelled after loading and collected back by a courier,
 * cancelled before loading, or left in the locker until its storage ends.
 */
import type { Logger } from 'pino';
import { localDate } from '../cloud/src/lockers/locker-time.js';
import { JsonClient, type JsonAnswer } from './http.js';
import type { ReceivedNotification } from './receiver.js';

export interface TrafficLocker {
  id: number;
  timezone: string;
  screenUrl: string;
  /** The locker simulator's control API. */
  simUrl: string;
  hasScanner: boolean;
  lockOf(cellId: number): { bus: string; board: number; lock: number };
}

export interface TrafficOptions {
  apiUrl: string;
  receiverUrl: string;
  /** The receiver's CA (PEM). */
  caPem: string;
  lockers: TrafficLocker[];
  marketplaces: { id: string; key: string }[];
  partnerKey: string;
  intervalMs: number;
  logger: Logger;
  clock: { now(): number };
  random?: () => number;
}

type Fate = 'pickup' | 'return' | 'cancel' | 'keep';
const FATES: [Fate, number][] = [
  ['pickup', 0.7],
  ['return', 0.15],
  ['cancel', 0.1],
  ['keep', 0.05],
];

interface TrackedOrder {
  externalId: string;
  marketplace: { id: string; key: string };
  lockerId: number;
  barcodes: string[];
  fate: Fate;
  createdAt: number;
  loaded: Set<string>;
  stage: 'new' | 'loaded' | 'cancelled' | 'done';
}

/** Parcel sizes (mm) that fit the example fleet's small and medium cells. */
const SIZES: [number, number, number][] = [
  [300, 200, 80],
  [250, 150, 60],
  [350, 250, 150],
  [400, 300, 120],
];

/**
 * People are slower than the locker link: an order, a route sheet or a pick-up code is used only
 * this long after it was made, so that it has reached the locker.
 */
const SETTLE_MS = 1_500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the screen's state, read loosely
type Screen = any;

class Stopped extends Error {}

export interface TrafficStats {
  created: number;
  loaded: number;
  pickedUp: number;
  cancelledBeforeLoading: number;
  cancelledAfterLoading: number;
  returnsCollected: number;
}

export class Traffic {
  readonly #o: TrafficOptions;
  readonly #random: () => number;
  readonly #http: JsonClient;
  readonly #orders = new Map<string, TrackedOrder>();
  /** Pick-up codes the marketplace was told, and when the traffic saw them. */
  readonly #codes = new Map<string, { code: string; seenAt: number; lockerId: number; marketplace: string }>();
  /** order -> barcode -> event ids the marketplace was told. */
  readonly #events = new Map<string, Map<string, Set<string>>>();
  readonly #courierCodes = new Map<string, { code: string; createdAt: number }>();
  readonly #stats: TrafficStats = { created: 0, loaded: 0, pickedUp: 0, cancelledBeforeLoading: 0, cancelledAfterLoading: 0, returnsCollected: 0 };
  readonly #prefix: string;
  #counter = 0;
  #cursor = 0;
  #refreshing: Promise<void> | undefined;
  /** Ends every wait at once (a visit under way stops where it is). */
  #abort = new AbortController();
  /** Ends the pauses between visits (a visit under way finishes, so no door is left open). */
  #idle = new AbortController();
  #loops: Promise<void>[] = [];
  /** Orders that left the traffic's hands; never taken up again. */
  readonly #finished = new Set<string>();

  constructor(options: TrafficOptions) {
    this.#o = options;
    this.#random = options.random ?? Math.random;
    this.#http = new JsonClient(options.caPem);
    this.#prefix = `TR-${options.clock.now().toString(36).toUpperCase()}`;
  }

  stats(): TrafficStats {
    return { ...this.#stats };
  }

  start(): Promise<void> {
    if (this.#loops.length === 0) {
      this.#abort = new AbortController();
      this.#idle = new AbortController();
      this.#loops = this.#o.lockers.map((l) => this.#loop(l));
    }
    return Promise.resolve();
  }

  /** Lets the visits under way finish (at most `graceMs`), then stops. */
  async stop(graceMs = 10_000): Promise<void> {
    this.#idle.abort();
    const all = Promise.all(this.#loops);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.#abort.abort();
    await all;
    this.#loops = [];
    await this.#http.close();
  }

  async #loop(locker: TrafficLocker): Promise<void> {
    // Lockers start at different moments so their visits do not line up.
    await this.#sleep(this.#o.intervalMs * this.#random(), this.#idle.signal);
    while (!this.#idle.signal.aborted) {
      try {
        await this.round(locker);
      } catch (err) {
        if (err instanceof Stopped) return;
        this.#o.logger.warn({ err, locker: locker.id }, 'traffic: a visit failed');
        await this.#screen(locker, '/api/home').catch(() => undefined);
      }
      await this.#sleep(this.#o.intervalMs * (0.5 + this.#random()), this.#idle.signal);
    }
  }

  /** One visit at a locker: new orders, cancellations, a courier, customers. */
  async round(locker: TrafficLocker): Promise<void> {
    await this.#refresh();
    const here = [...this.#orders.values()].filter((o) => o.lockerId === locker.id);
    for (const o of here) this.#settle(o);

    for (const o of here.filter((x) => x.stage === 'new' && x.fate === 'cancel')) await this.#cancel(o, 'before loading');
    if (here.filter((x) => x.stage === 'new' && x.fate !== 'cancel').length < 2) await this.#createOrder(locker);
    // Cancelled once the marketplace heard the order is loaded (state 3): a courier then takes it back.
    for (const o of here.filter((x) => x.stage === 'loaded' && x.fate === 'return' && this.#told(x, '3'))) await this.#cancel(o, 'after loading');

    const now = this.#o.clock.now();
    const mine = () => [...this.#orders.values()].filter((o) => o.lockerId === locker.id);
    const toLoad = (o: TrackedOrder) => o.stage === 'new' && o.fate !== 'cancel' && now - o.createdAt >= SETTLE_MS;
    if (mine().some((o) => toLoad(o) || o.stage === 'cancelled')) await this.#courierVisit(locker, mine().filter((o) => toLoad(o)));
    await this.#refresh();
    const codeReady = (o: TrackedOrder) => {
      const c = this.#codes.get(o.externalId);
      return c !== undefined && this.#o.clock.now() - c.seenAt >= SETTLE_MS;
    };
    for (const o of mine().filter((x) => x.stage === 'loaded' && x.fate === 'pickup' && codeReady(x))) await this.#pickUp(locker, o);
    for (const [id, o] of this.#orders) {
      if (o.stage !== 'done') continue;
      this.#orders.delete(id);
      this.#finished.add(id);
    }
  }

  /**
   * Orders an earlier run of the traffic left in the lockers (loaded, code sent, nothing since):
   * their customers come now, so the lockers do not fill up over restarts.
   */
  #adopt(): void {
    for (const [id, c] of this.#codes) {
      if (!id.startsWith('TR-') || this.#orders.has(id) || this.#finished.has(id)) continue;
      const marketplace = this.#o.marketplaces.find((m) => m.id === c.marketplace);
      const told = this.#events.get(id) ?? new Map<string, Set<string>>();
      const over = [...told.values()].some((events) => ['2', '4', '7'].some((e) => events.has(e)));
      if (over || !marketplace || !this.#o.lockers.some((l) => l.id === c.lockerId)) {
        this.#finished.add(id);
        continue;
      }
      const barcodes = [...told].filter(([, events]) => events.has('3')).map(([b]) => b);
      this.#orders.set(id, { externalId: id, marketplace, lockerId: c.lockerId, barcodes, fate: 'pickup', createdAt: 0, loaded: new Set(barcodes), stage: 'loaded' });
    }
  }

  /** Whether the marketplace was told `event` for every parcel of the order. */
  #told(o: TrackedOrder, event: string): boolean {
    const told = this.#events.get(o.externalId);
    return o.barcodes.every((b) => told?.get(b)?.has(event));
  }

  #settle(o: TrackedOrder): void {
    if (o.stage === 'loaded' && o.fate === 'keep' && this.#codes.has(o.externalId)) o.stage = 'done';
    if (o.stage === 'cancelled' && this.#told(o, '4')) o.stage = 'done';
  }

  async #createOrder(locker: TrafficLocker): Promise<void> {
    const marketplace = this.#pick(this.#o.marketplaces.map((m) => [m, 1] as [typeof m, number]));
    const externalId = `${this.#prefix}-${++this.#counter}`;
    const count = this.#random() < 0.8 ? 1 : 2;
    const parcels = Array.from({ length: count }, (_, i) => {
      const [length, width, height] = SIZES[Math.floor(this.#random() * SIZES.length)]!;
      return { barcode: `${externalId}-${i + 1}`, dimension: { length, width, height } };
    });
    const items = parcels.map((p) => ({ count: 1, barcode: p.barcode, name: 'Demo item', subjectType: 1, price: 99_900, totalSum: 99_900, taxId: 1, taxSystemId: 1 }));
    const a = await this.#api('PUT', '/api/v4/auth/delivery/smartorder/create', marketplace.key, {
      externalId,
      number: String(this.#counter),
      postamatId: locker.id,
      dateDelivery: localDate(this.#o.clock.now(), locker.timezone),
      parcels,
      clientInvoice: { cart: { items, prePaymentSum: items.length * 99_900 } },
      notification: { emails: ['customer@example.ru'], phones: [`+7916${String(1_000_000 + this.#counter).slice(-7)}`] },
    });
    if (a.status !== 200) {
      this.#o.logger.info({ locker: locker.id, resultCode: a.body?.resultCode }, `traffic: locker ${locker.id} takes no order now (${String(a.body?.message)})`);
      return;
    }
    const rejected: string[] = [...(a.body.permanentlyRejectedItems ?? []), ...(a.body.temporarilyRejectedItems ?? [])];
    const order: TrackedOrder = {
      externalId,
      marketplace,
      lockerId: locker.id,
      barcodes: parcels.map((p) => p.barcode).filter((b) => !rejected.includes(b)),
      fate: this.#pick(FATES),
      createdAt: this.#o.clock.now(),
      loaded: new Set(),
      stage: 'new',
    };
    this.#stats.created++;
    const cells = (a.body.reserved as { cellId: number }[]).map((r) => r.cellId).join(', ') || 'none';
    this.#o.logger.info({ order: externalId, locker: locker.id, marketplace: marketplace.id }, `traffic: ${marketplace.id} ordered ${externalId} into locker ${locker.id} (cells reserved: ${cells})`);
    if (order.barcodes.length === 0) {
      // Nothing fits now: the order is given up.
      for (const b of rejected) await this.#api('PUT', '/api/v4/auth/delivery/order/place/cancel', marketplace.key, { extId: externalId, barcode: b });
      return;
    }
    this.#orders.set(externalId, order);
  }

  async #cancel(o: TrackedOrder, when: 'before loading' | 'after loading'): Promise<void> {
    for (const barcode of o.barcodes) {
      const a = await this.#api('PUT', '/api/v4/auth/delivery/order/place/cancel', o.marketplace.key, { extId: o.externalId, barcode });
      if (a.status !== 200 && a.body?.resultCode !== 208) throw new Error(`cancel of ${barcode}: ${a.status} ${JSON.stringify(a.body)}`);
    }
    o.stage = when === 'before loading' ? 'done' : 'cancelled';
    if (when === 'before loading') this.#stats.cancelledBeforeLoading++;
    else this.#stats.cancelledAfterLoading++;
    this.#o.logger.info({ order: o.externalId }, `traffic: ${o.marketplace.id} cancelled ${o.externalId} ${when}${when === 'after loading' ? ': a courier takes it back' : ''}`);
  }

  async #courierCode(locker: TrafficLocker): Promise<string> {
    const date = localDate(this.#o.clock.now(), locker.timezone);
    const key = `${locker.id}/${date}`;
    const known = this.#courierCodes.get(key);
    if (known) {
      await this.#sleep(known.createdAt + SETTLE_MS - this.#o.clock.now());
      return known.code;
    }
    const a = await this.#api(
      'PUT',
      '/api/v1/auth/couriers/courier-with-route',
      this.#o.partnerKey,
      {
        courier: { externalId: 'CR-TRAFFIC', email: 'traffic@fast-courier.example', phone: '+79035550099' },
        route: { carNumber: 'А001АА77', date, externalId: `RT-TRAFFIC-${locker.id}-${date}`, postamatIds: [locker.id] },
      },
      'Partner-Api-Key',
    );
    if (a.status !== 200) throw new Error(`route sheet for locker ${locker.id}: ${a.status} ${JSON.stringify(a.body)}`);
    const code = a.body.postamatAccessCode as string;
    this.#courierCodes.set(key, { code, createdAt: this.#o.clock.now() });
    await this.#sleep(SETTLE_MS);
    return code;
  }

  async #courierVisit(locker: TrafficLocker, orders: TrackedOrder[]): Promise<void> {
    const code = await this.#courierCode(locker);
    await this.#screen(locker, '/api/home');
    await this.#screen(locker, '/api/choose', { kind: 'courier' });
    const signedIn = await this.#screen(locker, '/api/code', { kind: 'courier', code });
    if (signedIn.view.screen !== 'courier') throw new Error(`courier not signed in at locker ${locker.id}: ${JSON.stringify(signedIn.error)}`);
    for (const o of orders) {
      for (const barcode of o.barcodes.filter((b) => !o.loaded.has(b))) {
        if (await this.#load(locker, barcode)) o.loaded.add(barcode);
      }
      if (o.loaded.size === o.barcodes.length) o.stage = 'loaded';
    }
    const state = await this.#screen(locker, '/api/state');
    if (state.returns > 0) await this.#collectReturns(locker);
    await this.#screen(locker, '/api/home');
  }

  async #load(locker: TrafficLocker, barcode: string): Promise<boolean> {
    let s: Screen;
    if (locker.hasScanner) {
      await this.#sim(locker, '/scan', { barcode });
      s = await this.#until(locker, (x) => !x.busy && ((x.view.screen === 'load_open' && x.view.barcode === barcode) || x.error !== null), `the scan of ${barcode}`);
    } else {
      s = await this.#screen(locker, '/api/scan', { barcode });
    }
    if (s.view.screen !== 'load_open') {
      // E.g. the order has not reached the locker yet: the next visit tries again.
      this.#o.logger.info({ locker: locker.id, barcode, error: s.error?.code }, `traffic: locker ${locker.id} did not open a cell for ${barcode} (${String(s.error?.code)})`);
      return false;
    }
    const cellId = s.view.cellId as number;
    await this.#sleep(200 + 600 * this.#random());
    await this.#sim(locker, '/doors/close', locker.lockOf(cellId));
    await this.#until(locker, (x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded' && x.view.notice.barcode === barcode, `the load of ${barcode}`);
    this.#stats.loaded++;
    this.#o.logger.info({ locker: locker.id, barcode, cell: cellId }, `traffic: the courier put ${barcode} into cell ${cellId} of locker ${locker.id}`);
    return true;
  }

  async #collectReturns(locker: TrafficLocker): Promise<void> {
    const s = await this.#screen(locker, '/api/returns');
    if (s.view.screen !== 'take_open') return;
    const cells = s.view.cells as number[];
    await this.#closeAll(locker, cells);
    await this.#until(locker, (x) => x.view.screen === 'courier' && x.view.notice?.kind === 'returned', 'the returns to be taken');
    this.#stats.returnsCollected += cells.length;
    this.#o.logger.info({ locker: locker.id, cells }, `traffic: the courier took returns out of cells ${cells.join(', ')} of locker ${locker.id}`);
  }

  async #pickUp(locker: TrafficLocker, o: TrackedOrder): Promise<void> {
    await this.#screen(locker, '/api/home');
    await this.#screen(locker, '/api/choose', { kind: 'customer' });
    const s = await this.#screen(locker, '/api/code', { kind: 'customer', code: this.#codes.get(o.externalId)!.code });
    if (s.view.screen !== 'take_open') {
      this.#o.logger.info({ locker: locker.id, order: o.externalId, error: s.error?.code }, `traffic: no cell opened for the customer of ${o.externalId} (${String(s.error?.code)})`);
      await this.#screen(locker, '/api/home');
      return;
    }
    await this.#closeAll(locker, s.view.cells as number[]);
    await this.#until(locker, (x) => x.view.screen === 'start', `the customer of ${o.externalId} to finish`);
    o.stage = 'done';
    this.#stats.pickedUp++;
    this.#o.logger.info({ locker: locker.id, order: o.externalId }, `traffic: the customer took ${o.externalId} out of locker ${locker.id}`);
  }

  async #closeAll(locker: TrafficLocker, cells: number[]): Promise<void> {
    await this.#sleep(200 + 600 * this.#random());
    for (const cellId of cells) await this.#sim(locker, '/doors/close', locker.lockOf(cellId));
  }

  /** New notifications from the receiver: pick-up codes and the statuses each parcel was given. */
  #refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const a = await this.#http.call('GET', `${this.#o.receiverUrl}/api/notifications?after=${this.#cursor}`);
        if (a.status !== 200) throw new Error(`receiver answered ${a.status}`);
        for (const n of a.body as ReceivedNotification[]) {
          this.#cursor = Math.max(this.#cursor, n.seq);
          const id = String(n.body.id);
          if (n.kind === 'user-access-code') {
            this.#codes.set(id, { code: String(n.body.access_code), seenAt: this.#o.clock.now(), lockerId: Number(n.body.postamat_id), marketplace: n.marketplace });
          }
          if (n.kind === 'order-status') {
            const perOrder = this.#events.get(id) ?? new Map<string, Set<string>>();
            this.#events.set(id, perOrder);
            const barcode = String(n.body.barcode);
            perOrder.set(barcode, new Set([...(perOrder.get(barcode) ?? []), String(n.body.event_id)]));
          }
        }
        this.#adopt();
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  #api(method: 'PUT' | 'POST', path: string, key: string, body: unknown, header = 'X-Service-Api-Key'): Promise<JsonAnswer> {
    this.#check();
    return this.#http.call(method, `${this.#o.apiUrl}${path}`, body, { [header]: key });
  }

  async #screen(locker: TrafficLocker, path: string, body?: unknown): Promise<Screen> {
    this.#check();
    const a = path === '/api/state' ? await this.#http.call('GET', `${locker.screenUrl}${path}`) : await this.#http.call('POST', `${locker.screenUrl}${path}`, body);
    if (a.status !== 200) throw new Error(`screen of locker ${locker.id} ${path}: ${a.status} ${JSON.stringify(a.body)}`);
    return a.body;
  }

  async #sim(locker: TrafficLocker, path: string, body: unknown): Promise<void> {
    this.#check();
    const a = await this.#http.call('POST', `${locker.simUrl}${path}`, body);
    if (a.status !== 200) throw new Error(`simulator of locker ${locker.id} ${path}: ${a.status} ${JSON.stringify(a.body)}`);
  }

  /** Polls the screen until `done`; bounded so that a stuck locker ends the visit, not the traffic. */
  async #until(locker: TrafficLocker, done: (s: Screen) => boolean, what: string): Promise<Screen> {
    const until = this.#o.clock.now() + 15_000;
    for (;;) {
      const s = await this.#screen(locker, '/api/state');
      if (done(s)) return s;
      if (this.#o.clock.now() > until) throw new Error(`locker ${locker.id}: gave up waiting for ${what}`);
      await this.#sleep(100);
    }
  }

  #check(): void {
    if (this.#abort.signal.aborted) throw new Stopped();
  }

  /** Waits `ms`, or less when the traffic stops (or `also` aborts). */
  #sleep(ms: number, also?: AbortSignal): Promise<void> {
    const signals = [this.#abort.signal, ...(also ? [also] : [])];
    if (signals.some((s) => s.aborted) || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      for (const s of signals) s.addEventListener('abort', done);
    });
  }

  #pick<T>(weighted: [T, number][]): T {
    const total = weighted.reduce((s, [, w]) => s + w, 0);
    let r = this.#random() * total;
    for (const [value, w] of weighted) {
      r -= w;
      if (r < 0) return value;
    }
    return weighted.at(-1)![0];
  }
}
