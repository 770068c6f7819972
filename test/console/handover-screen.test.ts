/**
 * "Open the cell for the customer" on the console's order page, in headless Chromium against
 * `npm start`'s demo network (the cloud, the demo receiver, lockers each a simulator plus its
 * agent). A courier loads an order at locker 102; the operator opens the order's page, where the
 * action asks for a note in a dialog that takes and keeps the focus and closes on Esc (nothing
 * sent); confirmed, the page shows the command sent, the locker opens the cell, the customer
 * closes it and the page says the order was handed over (Client received), and the audit keeps
 * the note. axe-core finds no serious or critical violation on the page and in the dialog at 1366
 * and 390 px, in English and Russian; a viewer is offered no action. Screenshots go to
 * artifacts/screens/console-handover-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings, type DemoSettingsInput } from '../../demo/config.js';
import { startDemo, type DemoLocker, type RunningDemo } from '../../demo/demo.js';
import { eventually } from '../helpers/eventually.js';
import { fleetWithViewer, moscowToday } from './demo-console.js';
import { NARROW, WIDE, axeViolations as axeOf, noSidewaysScroll as sidewaysFree } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const VIEWER_KEY = 'demo-watch-key';
const SHOP = 'demo-shop-one-key';
const LOCKER = 102;
const EXTERNAL_ID = 'HANDOVER-1';
const FREE_PORTS: DemoSettingsInput = { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent' };
const WAIT = { timeout: 30_000 };
const NOTE = 'customer at the locker, code refused; identity checked by phone';




describe.runIf(requires('chromium'))('opening the cell for the customer from the console (Chromium against the demo network)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'handover-screen-'));
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  let orderId: string;
  let cellId: number;
  const problems: string[] = [];

  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const op = async (path: string) => (await call('GET', `${demo.apiUrl}/operator${path}`, { 'x-operator-api-key': OPERATOR_KEY })).body;
  const locker = (): DemoLocker => demo.lockers.find((l) => l.id === LOCKER)!;
  const sim = (path: string, body: unknown) => call('POST', `${locker().simUrl}${path}`, {}, body);
  const screen = async (path: string, body?: unknown) => (await call(body === undefined ? 'GET' : 'POST', `${locker().screenUrl}${path}`, {}, body)).body;
  const go = async (hash: string, name: string) => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await page.waitForSelector(`main[data-screen="${name}"]`, WAIT);
  };
  const signIn = async (key: string) => {
    await page.goto(`${demo.apiUrl}/`);
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await page.fill('#operator-key', key);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('header .who', WAIT);
  };
  const axeViolations = () => axeOf(page);
  const noSidewaysScroll = () => sidewaysFree(page);

  /** A courier loads the order at the locker (its screen and simulator), as the demo traffic does. */
  async function loadOrder(): Promise<void> {
    const created = await call('PUT', `${demo.apiUrl}/api/v4/auth/delivery/smartorder/create`, { 'x-service-api-key': SHOP }, {
      externalId: EXTERNAL_ID,
      postamatId: LOCKER,
      dateDelivery: moscowToday(),
      parcels: [{ barcode: `${EXTERNAL_ID}-P1`, dimension: { length: 300, width: 200, height: 80 } }],
      clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
      notification: { emails: [], phones: ['+79161234567'] },
    });
    expect(created.status).toBe(200);
    const [partnerKey] = [...demo.keys.partners.values()];
    const route = await call('PUT', `${demo.apiUrl}/api/v1/auth/couriers/courier-with-route`, { 'partner-api-key': partnerKey! }, {
      courier: { externalId: 'CR-HANDOVER', email: 'handover@courier.example', phone: '+79035550097' },
      route: { carNumber: 'А003АА77', date: moscowToday(), externalId: 'RT-HANDOVER', postamatIds: [LOCKER] },
    });
    expect(route.status, JSON.stringify(route.body)).toBe(200);
    await eventually(async () => {
      await screen('/api/home', {});
      await screen('/api/choose', { kind: 'courier' });
      return (await screen('/api/code', { kind: 'courier', code: route.body.postamatAccessCode })).view.screen === 'courier' || null;
    }, 'the courier code at the locker');
    const scanned = locker().hasScanner
      ? (await sim('/scan', { barcode: `${EXTERNAL_ID}-P1` }), await eventually(async () => {
          const st = await screen('/api/state');
          return st.view.screen === 'load_open' ? st : null;
        }, 'the cell opened for the load'))
      : await screen('/api/scan', { barcode: `${EXTERNAL_ID}-P1` });
    expect(scanned.view.screen).toBe('load_open');
    cellId = scanned.view.cellId;
    expect((await sim('/doors/close', locker().lockOf(cellId))).status).toBe(200);
    orderId = (await op(`/orders?query=${EXTERNAL_ID}`)).items[0].orderId;
    await eventually(async () => ((await op(`/orders/${orderId}`)).state === 3) || null, `${EXTERNAL_ID} loaded`);
    await screen('/api/home', {});
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir: join(dir, 'data'), fleetFile: fleetWithViewer(dir, VIEWER_KEY) }), { logger: pino({ level: 'silent' }) });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: WIDE, locale: 'en-GB' })).newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
    });
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (res.status() >= 400 && !(res.status() === 401 && path === '/operator/session')) problems.push(`HTTP ${res.status()} ${res.request().method()} ${path}`);
    });
    await loadOrder();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers the action on a loaded order; no serious accessibility violation on the page or in its dialog, at 1366 and 390 px, in English and Russian', async () => {
    await signIn(OPERATOR_KEY);
    await go(`#/orders/${encodeURIComponent(orderId)}`, 'order');
    for (const [lang, label] of [['en', 'Open the cell for the customer'], ['ru', 'Открыть ячейку для клиента']] as const) {
      await page.click(`header [data-lang="${lang}"]`);
      await page.waitForSelector(`html[lang="${lang}"]`, WAIT);
      for (const size of [WIDE, NARROW]) {
        await page.setViewportSize(size);
        const button = await page.waitForSelector('[data-action="hand-over"]', WAIT);
        expect((await button.textContent())?.trim()).toBe(label);
        expect(await axeViolations(), `order ${lang} ${size.width}`).toEqual([]);
        expect(await noSidewaysScroll(), `order ${lang} ${size.width}`).toBe(true);
        await page.screenshot({ path: join(SHOTS, `console-handover-order-${lang}-${size.width}.png`), fullPage: true });
        await button.click();
        await page.waitForSelector('[data-dialog="reason"]', WAIT);
        expect(await axeViolations(), `dialog ${lang} ${size.width}`).toEqual([]);
        expect(await noSidewaysScroll(), `dialog ${lang} ${size.width}`).toBe(true);
        await page.screenshot({ path: join(SHOTS, `console-handover-dialog-${lang}-${size.width}.png`), fullPage: true });
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
      }
    }
    await page.click('header [data-lang="en"]');
    await page.waitForSelector('html[lang="en"]', WAIT);
    await page.setViewportSize(WIDE);
  });

  it('asks for the note in a dialog that keeps the focus and closes on Esc; confirmed, the cell opens and the page shows the order handed over', async () => {
    await page.click('[data-action="hand-over"]');
    const dialog = await page.waitForSelector('[data-dialog="reason"][role="dialog"][aria-labelledby]', WAIT);
    // The dialog moves the focus to its note once it has rendered.
    await page.waitForSelector('[data-dialog="reason"] textarea[name="reason"]:focus', WAIT);
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement))).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
    // Nothing was sent.
    expect((await op(`/audit?orderId=${orderId}&action=order.handover`)).total).toBe(0);

    await page.click('[data-action="hand-over"]');
    await page.fill('[data-dialog="reason"] textarea[name="reason"]', NOTE);
    await page.click('[data-dialog="reason"] [data-action="confirm"]');
    await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
    await page.waitForSelector('[data-handover-result]', WAIT);
    // The locker opens the cell (the parcel counts as taken at the confirmed open); the customer closes it.
    await eventually(async () => ((await op(`/orders/${orderId}`)).state === 2) || null, 'the order Client received');
    expect((await sim('/doors/close', locker().lockOf(cellId))).status).toBe(200);
    await page.waitForSelector('[data-handover-result="received"]', WAIT);
    await page.waitForSelector('[data-summary="state"]:has-text("Client received")', WAIT);
    expect(await page.$('[data-action="hand-over"]')).toBeNull();
    await page.screenshot({ path: join(SHOTS, 'console-handover-done.png'), fullPage: true });

    const audit = await op(`/audit?orderId=${orderId}&action=order.handover`);
    expect(audit.items).toMatchObject([{ operator: 'ops', reason: 'customer_handover', note: NOTE, detail: { rule: 'HO1' } }]);
    const told = await eventually(async () => {
      const s = await op(`/orders/${orderId}`);
      const two = s.marketplace.filter((n: { kind: string; said: string | null }) => n.kind === 'order-status' && n.said === '2');
      return two.length > 0 ? two : null;
    }, 'order-status 2 recorded');
    expect(told).toHaveLength(1);
    // The audit page shows the action with its purpose and the note.
    await go(`#/audit?orderId=${encodeURIComponent(orderId)}`, 'audit');
    await page.waitForSelector(`text=${NOTE}`, WAIT);
    expect(await page.textContent('main[data-screen="audit"]')).toContain('hand-over to the customer');
  });

  it('a viewer is offered no action on a loaded order', async () => {
    await page.click('[data-action="sign-out"]');
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await signIn(VIEWER_KEY);
    // Another loaded order of the demo traffic is not needed: the viewer's page has no actions at all.
    await go(`#/orders/${encodeURIComponent(orderId)}`, 'order');
    await page.waitForSelector('[data-order-summary]', WAIT);
    expect(await page.$$('[data-action="hand-over"], [data-action="new-code"]')).toEqual([]);
    const refused = await call('POST', `${demo.apiUrl}/operator/orders/${orderId}/handover`, { 'x-operator-api-key': VIEWER_KEY }, { note: 'viewer tries' });
    expect(refused).toMatchObject({ status: 403, body: { resultCode: 5 } });
  });

  it('the page reported no script error, refused resource or policy violation', () => {
    expect(problems).toEqual([]);
  });
});
