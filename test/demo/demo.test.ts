/**
 * `npm start` in-process on free ports and a throwaway data folder: one order end to end through
 * the demo's public interfaces only (the cloud's HTTP API with the documented demo keys, a
 * locker's screen API, its simulator's control API, the demo receiver's HTTPS JSON API), then a
 * restart on the same folder with traffic on, and the port checks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings, type DemoSettingsInput } from '../../demo/config.js';
import { startDemo, type DemoLocker, type RunningDemo } from '../../demo/demo.js';
import { loggerOptions } from '../../shared/src/redact.js';
import BetterSqlite3 from 'better-sqlite3';
import { eventually } from '../helpers/eventually.js';

const SHOP = { 'X-Service-Api-Key': 'demo-shop-one-key' };
const PARTNER = { 'Partner-Api-Key': 'demo-fast-courier-key' };
const LOCKER = 102;

/** Everything the demo logged, one parsed line each. */
class LogSink extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
}


interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read loosely
  body: any;
}

function client(caFile: string) {
  const dispatcher = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await request(url, {
      method,
      dispatcher,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : null };
  };
  return { call, close: () => dispatcher.close() };
}

/** The locker's day in Moscow (the example fleet's locker 102). */
function moscowToday(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

const FREE_PORTS: DemoSettingsInput = { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent' };

describe('the demo (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'demo-'));
  const sink = new LogSink();
  const logger = pino(loggerOptions('demo', 'info'), sink);
  let demo: RunningDemo;
  let http: ReturnType<typeof client>;
  let pickupCode = '';

  beforeAll(async () => {
    demo = await startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir }), { logger });
    http = client(demo.caFile);
  });
  afterAll(async () => {
    await http?.close();
    await demo?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const locker = (): DemoLocker => demo.lockers.find((l) => l.id === LOCKER)!;
  const screen = async (path: string, body?: unknown): Promise<Answer['body']> => {
    const a = body === undefined && path === '/api/state' ? await http.call('GET', `${locker().screenUrl}${path}`) : await http.call('POST', `${locker().screenUrl}${path}`, body ?? {});
    expect(a.status).toBe(200);
    return a.body;
  };
  const sim = async (path: string, body: unknown): Promise<void> => {
    expect((await http.call('POST', `${locker().simUrl}${path}`, body)).status).toBe(200);
  };
  const screenUntil = (pred: (s: Answer['body']) => boolean, what: string) => eventually(async () => {
    const s = await screen('/api/state');
    return pred(s) ? s : null;
  }, what);
  /**
   * Until the locker has applied every command the cloud wrote for it so far (a courier's grant,
   * an order with its pick-up code): read from the cloud's database, so the test waits for the
   * sync itself rather than retrying a code on a timer.
   */
  const lockerCaughtUp = () =>
    eventually(() => {
      const db = new BetterSqlite3(join(dataDir, 'cloud.sqlite'), { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare('select next_cseq, applied_cseq from lockers where id = ?').get(LOCKER) as { next_cseq: number; applied_cseq: number };
        return row.applied_cseq >= row.next_cseq - 1;
      } finally {
        db.close();
      }
    }, `locker ${LOCKER} to apply every command of the cloud`);
  /** Enters a code once the locker has it; `screenName` must show. */
  const enterCode = async (kind: 'courier' | 'customer', code: string, screenName: string): Promise<Answer['body']> => {
    await lockerCaughtUp();
    await screen('/api/home');
    await screen('/api/choose', { kind });
    const s = await screen('/api/code', { kind, code });
    if (s.view.screen !== screenName) throw new Error(`${kind} code not taken: ${JSON.stringify(s.error)}`);
    return s;
  };
  const told = async (order: string): Promise<Answer['body'][]> => {
    const a = await http.call('GET', `${demo.receiverUrl}/api/notifications?order=${order}`);
    expect(a.status).toBe(200);
    return a.body;
  };

  it('runs the example fleet: every locker with a screen and a simulator, the cloud with the example lockers', async () => {
    expect(demo.lockers.map((l) => l.id)).toEqual([101, 102, 103]);
    expect(demo.keys.marketplaces.get('shop-one')).toBe('demo-shop-one-key');
    // The sandbox locker is the cloud's to run; its marketplace's key is printed with the others.
    expect(demo.keys.marketplaces.get('sandbox-shop')).toBe('demo-sandbox-shop-key');
    expect(demo.sandboxMarketplaces).toEqual(['sandbox-shop']);
    expect(demo.sandboxLockers).toMatchObject([{ id: 901, screenUrl: expect.stringMatching(/^http:/) as unknown }]);
    const list = await http.call('GET', `${demo.apiUrl}/api/v4/auth/postamat/available`, undefined, SHOP);
    expect(list.status).toBe(200);
    expect(list.body.postamats.map((p: { id: number }) => p.id)).toContain(LOCKER);
  });

  it('takes one order end to end: reserved, loaded at the locker, code to the receiver, picked up, statuses 3 and 2', async () => {
    const today = moscowToday();
    const created = await http.call(
      'PUT',
      `${demo.apiUrl}/api/v4/auth/delivery/smartorder/create`,
      {
        externalId: 'DEMO-E2E-1',
        postamatId: LOCKER,
        dateDelivery: today,
        parcels: [{ barcode: 'DEMO-E2E-1-P1', dimension: { length: 300, width: 200, height: 80 } }],
        clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
        notification: { emails: [], phones: ['+79160000001'] },
      },
      SHOP,
    );
    expect(created.status).toBe(200);
    expect(created.body.reserved).toHaveLength(1);
    const cellId: number = created.body.reserved[0].cellId;

    const route = await http.call(
      'PUT',
      `${demo.apiUrl}/api/v1/auth/couriers/courier-with-route`,
      {
        courier: { externalId: 'CR-E2E', email: 'e2e@fast-courier.example', phone: '+79035550123' },
        route: { carNumber: 'A123BC77', date: today, externalId: 'RT-E2E', postamatIds: [LOCKER] },
      },
      PARTNER,
    );
    expect(route.status).toBe(200);
    const courierCode: string = route.body.postamatAccessCode;

    // The grant travels to the locker over MQTT: the code is entered once the locker applied it.
    await enterCode('courier', courierCode, 'courier');

    // The locker's scanner reads the barcode; the reserved cell opens; the courier shuts it.
    await sim('/scan', { barcode: 'DEMO-E2E-1-P1' });
    const open = await screenUntil((s) => s.view.screen === 'load_open', 'the reserved cell to open');
    expect(open.view.cellId).toBe(cellId);
    await sim('/doors/close', locker().lockOf(cellId));
    await screenUntil((s) => s.view.notice?.kind === 'loaded', 'the load to be recorded');
    await screen('/api/home');

    const code = await eventually(async () => (await told('DEMO-E2E-1')).find((n) => n.kind === 'user-access-code'), 'the pick-up code at the receiver');
    expect(code.marketplace).toBe('shop-one');
    expect(code.body).toMatchObject({ id: 'DEMO-E2E-1', postamat_id: String(LOCKER) });
    pickupCode = code.body.access_code;
    expect(pickupCode).toMatch(/^\d{6,8}$/);

    const taking = await enterCode('customer', pickupCode, 'take_open');
    expect(taking.view.cells).toEqual([cellId]);
    await sim('/doors/close', locker().lockOf(cellId));
    await screenUntil((s) => s.view.screen === 'start', 'the screen to go back to the start');

    const statuses = await eventually(async () => {
      const events = (await told('DEMO-E2E-1')).filter((n) => n.kind === 'order-status').map((n) => n.body);
      return events.length >= 2 ? events : null;
    }, 'statuses 3 and 2 at the receiver');
    expect(statuses.map((b) => b.event_id)).toEqual(['3', '2']);
    expect(statuses[0]).toMatchObject({ postamat_id: String(LOCKER), cell_id: cellId, barcode: 'DEMO-E2E-1-P1' });

    const detail = await http.call('POST', `${demo.apiUrl}/api/v4/auth/delivery/order/detail`, { barcode: 'DEMO-E2E-1-P1', courierExternalId: 'CR-E2E' }, SHOP);
    expect(detail.body.state).toBe(2);
  });

  it("logs what the marketplace was told, never the pick-up code", () => {
    expect(pickupCode).not.toBe('');
    const receiverLines = sink.lines.filter((l) => l.includes('"part":"receiver"'));
    expect(receiverLines.some((l) => l.includes('DEMO-E2E-1') && l.includes('pick-up code'))).toBe(true);
    expect(receiverLines.some((l) => l.includes('DEMO-E2E-1-P1') && l.includes('status 2'))).toBe(true);
    // The code standing alone (not a run of digits inside a timestamp or a port).
    const code = new RegExp(`(?<!\\d)${pickupCode}(?!\\d)`);
    expect(sink.lines.filter((l) => code.test(l))).toEqual([]);
  });

  it('keeps its state across a restart, and its traffic takes orders through to the customer', async () => {
    await demo.stop();
    demo = await startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir, traffic: true, trafficIntervalMs: 300 }), { logger });
    await http.close();
    http = client(demo.caFile);

    const detail = await http.call('POST', `${demo.apiUrl}/api/v4/auth/delivery/order/detail`, { barcode: 'DEMO-E2E-1-P1', courierExternalId: 'CR-E2E' }, SHOP);
    expect(detail.body.state).toBe(2);
    expect((await told('DEMO-E2E-1')).map((n) => n.kind)).toEqual(['order-status', 'user-access-code', 'expiration-date-changes', 'order-status']);

    const received = await eventually(
      async () => {
        const a = await http.call('GET', `${demo.receiverUrl}/api/notifications`);
        return (a.body as Answer['body'][]).find((n) => n.kind === 'order-status' && n.body.event_id === '2' && String(n.body.id).startsWith('TR-'));
      },
      'a traffic order picked up',
      30_000,
    );
    const life = (await told(received.body.id)).filter((n) => n.kind === 'order-status' && n.body.barcode === received.body.barcode);
    expect(life.map((n) => n.body.event_id)).toEqual(['3', '2']);
  }, 60_000);
});

describe('the demo refuses taken ports', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['httpPort', 'PORT'],
    ['brokerPort', 'MQTT_BROKER_PORT'],
    ['receiverPort', 'DEMO_RECEIVER_PORT'],
    ['screenPort', 'DEMO_SCREEN_PORT'],
    ['hardwarePort', 'DEMO_HARDWARE_PORT'],
    ['sandboxPort', 'SANDBOX_FIRST_PORT'],
  ] as const)('a taken %s stops the start with an error naming %s, before anything starts', async (key, setting) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'demo-port-'));
    try {
      const start = startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir, [key]: port }), { logger: pino({ level: 'silent' }) });
      await expect(start).rejects.toThrow(new RegExp(`port ${port} .*is in use: set ${setting} to another port`));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
