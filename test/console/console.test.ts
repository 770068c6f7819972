/**
 * The operator console in headless Chromium against a running network: `npm start`'s demo on free
 * ports (the cloud, the demo receiver, three lockers each a simulator plus its agent). Each screen
 * is driven through the page and checked against the /operator JSON API it reads; actions go
 * through the reason dialog and land in the audit log; a door opened on a simulator reaches the
 * open page over the live stream without a reload. A screenshot per screen goes to
 * artifacts/screens/console-<screen>.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings, type DemoSettingsInput } from '../../demo/config.js';
import { startDemo, type DemoLocker, type RunningDemo } from '../../demo/demo.js';
import { AUDIT_ACTIONS } from '../../cloud/src/operator/audit.js';
import { eventually } from '../helpers/eventually.js';
import { fleetWithViewer, moscowToday } from './demo-console.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const VIEWER_KEY = 'demo-watch-key';
const SHOP = 'demo-shop-one-key';
const LOCKER = 102;
const PHONE = '+79161234567';
const FREE_PORTS: DemoSettingsInput = { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent' };
const WAIT = { timeout: 30_000 };




describe.runIf(requires('chromium'))('the operator console (Chromium against the demo network)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-'));
  let demo: RunningDemo;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** What the page reported as broken: script errors, refused resources, CSP violations. */
  const problems: string[] = [];

  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  /** The JSON API itself, with the operator key (what each screen is checked against). */
  const op = async (path: string) => {
    const a = await call('GET', `${demo.apiUrl}/operator${path}`, { 'x-operator-api-key': OPERATOR_KEY });
    expect(a.status, path).toBe(200);
    return a.body;
  };
  const locker = (): DemoLocker => demo.lockers.find((l) => l.id === LOCKER)!;
  const sim = (path: string, body: unknown) => call('POST', `${locker().simUrl}${path}`, {}, body);
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `console-${name}.png`), fullPage: true });
  const go = async (hash: string, screen: string) => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await page.waitForSelector(`main[data-screen="${screen}"]`, WAIT);
  };
  const giveReason = async (reason: string) => {
    await page.fill('[data-dialog="reason"] textarea[name="reason"]', reason);
    await page.click('[data-dialog="reason"] [data-action="confirm"]');
    await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir: join(dir, 'data'), fleetFile: fleetWithViewer(dir, VIEWER_KEY) }), { logger: pino({ level: 'silent' }) });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    // Failed requests are judged by their URL below; any other console error (a policy violation) is a problem.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
    });
    // Expected refusals: "who am I" and the wrong key before signing in (401), a locker without a health report (404).
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      const expected = (res.status() === 401 && path === '/operator/session') || (res.status() === 404 && path.endsWith('/health'));
      if (res.status() >= 400 && !expected) problems.push(`HTTP ${res.status()} ${res.request().method()} ${path}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('signs in with the operator key into an HttpOnly, SameSite=Strict session; a wrong key is refused', async () => {
    await page.goto(`${demo.apiUrl}/`);
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await shot('signin');
    await page.fill('#operator-key', 'not-a-key');
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('main[data-screen="signin"] [role="alert"]', WAIT);
    await page.fill('#operator-key', OPERATOR_KEY);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('main[data-screen="fleet"]', WAIT);
    expect(await page.textContent('.who')).toContain('ops');
    const cookie = (await context.cookies()).find((c) => c.name === 'operator_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    // The CSRF token lives in the page's memory only.
    expect(await page.evaluate('JSON.stringify(localStorage) + document.cookie')).not.toMatch(/csrf/i);
  });

  it('Fleet: every locker as the API lists it, with the overview, filtered by search', async () => {
    const [list, overview] = await Promise.all([op('/lockers?pageSize=50'), op('/overview')]);
    await page.waitForSelector(`table[data-total="${list.total}"]`, WAIT);
    const rows = await page.$$eval('tr[data-locker-id]', (trs) => trs.map((tr) => ({ id: Number(tr.getAttribute('data-locker-id')), online: tr.getAttribute('data-online') })));
    expect(rows).toEqual(list.items.map((l: { lockerId: number; online: boolean }) => ({ id: l.lockerId, online: String(l.online) })));
    expect(await page.textContent('[data-tile="lockers"] .tile-value')).toBe(String(overview.lockers.total));
    for (const item of list.items) {
      for (const [size, n] of Object.entries(item.freeToday as Record<string, number>)) {
        expect(await page.textContent(`tr[data-locker-id="${item.lockerId}"] [data-size="${size}"] b`)).toBe(String(n));
      }
    }
    await shot('fleet');
    const name: string = list.items.find((l: { lockerId: number }) => l.lockerId === 103).name;
    await page.fill('#fleet-search', name);
    const found = await op(`/lockers?query=${encodeURIComponent(name)}`);
    await page.waitForSelector(`table[data-total="${found.total}"]`, WAIT);
    expect(await page.$$eval('tr[data-locker-id]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-locker-id'))))).toEqual(found.items.map((l: { lockerId: number }) => l.lockerId));
    await page.fill('#fleet-search', '');
  });

  let reservedCell = 0;
  let spareCell = 0;

  it('Locker: the cell grid as the API reports it; a door opened at the locker shows up live', async () => {
    const created = await call('PUT', `${demo.apiUrl}/api/v4/auth/delivery/smartorder/create`, { 'x-service-api-key': SHOP }, {
      externalId: 'CONSOLE-1',
      postamatId: LOCKER,
      dateDelivery: moscowToday(),
      parcels: [{ barcode: 'CONSOLE-1-P1', dimension: { length: 300, width: 200, height: 80 } }],
      clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
      notification: { emails: [], phones: [PHONE] },
    });
    expect(created.status).toBe(200);
    reservedCell = created.body.reserved[0].cellId;

    await page.click(`tr[data-locker-id="${LOCKER}"] a`);
    await page.waitForSelector(`main[data-screen="locker"][data-locker-id="${LOCKER}"] [data-grid]`, WAIT);
    const detail = await op(`/lockers/${LOCKER}`);
    const grid = detail.grid as { cellId: number; state: string; doorOpen: boolean }[];
    expect(grid.find((c) => c.cellId === reservedCell)?.state).toBe('reserved');
    const shown = () => page.$$eval('[data-cell-id]', (els) => els.map((e) => ({ cellId: Number(e.getAttribute('data-cell-id')), state: e.getAttribute('data-state'), door: e.getAttribute('data-door') })));
    expect((await shown()).sort((a, b) => a.cellId - b.cellId)).toEqual(grid.map((c) => ({ cellId: c.cellId, state: c.state, door: c.doorOpen ? 'open' : 'closed' })).sort((a, b) => a.cellId - b.cellId));

    // Live: a door pulled open on the simulator reaches this page through the stream, without a reload.
    spareCell = grid.find((c) => c.state === 'free' && c.cellId !== reservedCell)!.cellId;
    await page.evaluate('window.stayed = true');
    await page.waitForSelector('[data-live="on"]', WAIT);
    expect((await sim('/doors/open', locker().lockOf(spareCell))).status).toBe(200);
    await page.waitForSelector(`[data-cell-id="${spareCell}"][data-door="open"]`, WAIT);
    expect(await page.evaluate('window.stayed')).toBe(true);
    await shot('locker');
    expect((await sim('/doors/close', locker().lockOf(spareCell))).status).toBe(200);
    await page.waitForSelector(`[data-cell-id="${spareCell}"][data-door="closed"]`, WAIT);

    // The tabs: the locker's orders, its command queue, the agent's health.
    await page.waitForSelector(`[data-tab-content="orders"] tr[data-order-id]`, WAIT);
    await page.click('[data-tab="commands"]');
    await page.click('[data-command-status="acked"]');
    const acked = await op(`/lockers/${LOCKER}/commands?status=acked`);
    expect(acked.items.length).toBeGreaterThan(0);
    await page.waitForSelector('[data-tab-content="commands"] tr[data-cseq]', WAIT);
    await page.click('[data-tab="health"]');
    const health = await call('GET', `${demo.apiUrl}/operator/lockers/${LOCKER}/health`, { 'x-operator-api-key': OPERATOR_KEY });
    const hasReport = health.status === 200 && health.body?.report != null;
    await page.waitForSelector(`[data-tab-content="health"][data-health="${hasReport ? 'report' : 'none'}"]`, WAIT);
  });

  it('Actions: blocking a cell asks why, changes the grid and is written to the audit log', async () => {
    await page.click(`[data-cell-id="${spareCell}"]`);
    await page.click('[data-cell-panel] [data-action="block"]');
    await giveReason('glass cracked, console test');
    await page.waitForSelector(`[data-cell-id="${spareCell}"][data-state="blocked"]`, WAIT);
    const grid = (await op(`/lockers/${LOCKER}`)).grid as { cellId: number; state: string; flags: string[] }[];
    expect(grid.find((c) => c.cellId === spareCell)).toMatchObject({ state: 'blocked', flagMarks: [{ flag: 'blocked', setBy: 'ops', reason: 'glass cracked, console test' }] });
    // The panel says who blocked the cell and why.
    await page.waitForSelector('[data-cell-panel] [data-flag="blocked"] [data-flag-mark="ops"]', WAIT);
    expect(await page.textContent('[data-cell-panel] [data-flag="blocked"]')).toContain('glass cracked, console test');

    await go('#/audit', 'audit');
    const audit = await op('/audit');
    const entry = audit.items.find((e: { reason?: string }) => e.reason === 'glass cracked, console test');
    expect(entry).toMatchObject({ operator: 'ops' });
    await page.waitForSelector('td:has-text("glass cracked, console test")', WAIT);
    await shot('audit');

    // Unblocked again, so the rest of the network is as it was.
    await go(`#/lockers/${LOCKER}`, 'locker');
    await page.click(`[data-cell-id="${spareCell}"]`);
    await page.click('[data-cell-panel] [data-action="unblock"]');
    await giveReason('replaced');
    await page.waitForSelector(`[data-cell-id="${spareCell}"]:not([data-state="blocked"])`, WAIT);
  });

  it('Actions: a remote open keeps its purpose and the note typed beside it; the audit filters by action and links to the cell', async () => {
    await page.click(`[data-cell-id="${spareCell}"]`);
    await page.click('[data-cell-panel] [data-action="open-cell"]');
    await page.selectOption('[data-dialog="reason"] select[name="purpose"]', 'customer_support');
    await giveReason('code not accepted, customer at the locker');
    const opened = await eventually(async () => {
      const a = await op(`/audit?action=cell.open&lockerId=${LOCKER}`);
      return a.items.length > 0 ? a.items[0] : null;
    }, 'the cell open in the audit');
    expect(opened).toMatchObject({ operator: 'ops', target: `locker:${LOCKER}/cell:${spareCell}`, reason: 'customer_support', note: 'code not accepted, customer at the locker', lockerId: LOCKER });
    // The locker reports the door opened; it is shut again at the locker, so the network is as it was.
    await eventually(async () => {
      const facts = (await op(`/lockers/${LOCKER}/alerts?include=history`)).items as { kind: string; cellId: number | null; detail: { outcome?: string } }[];
      return facts.some((f) => f.kind === 'cell.open' && f.cellId === spareCell && f.detail?.outcome === 'opened') || null;
    }, 'the locker reporting the door opened');
    expect((await sim('/doors/close', locker().lockOf(spareCell))).status).toBe(200);
    await page.waitForSelector(`[data-cell-id="${spareCell}"][data-door="closed"]`, WAIT);

    // The cell's own history, then the filters: by action through the form.
    await page.click('[data-cell-panel] [data-link="cell-audit"]');
    await page.waitForSelector(`main[data-screen="audit"] [data-audit-id="${opened.id}"]`, WAIT);
    const forCell = await op(`/audit?target=${encodeURIComponent(`locker:${LOCKER}/cell:${spareCell}`)}`);
    await page.waitForSelector(`table[data-total="${forCell.total}"]`, WAIT);
    await go('#/audit', 'audit');
    await page.selectOption('[data-audit-filters] select[name="action"]', 'cell.open');
    await page.fill('[data-audit-filters] input[name="lockerId"]', String(LOCKER));
    await page.click('[data-action="filter-audit"]');
    const filtered = await op(`/audit?action=cell.open&lockerId=${LOCKER}`);
    await page.waitForSelector(`table[data-total="${filtered.total}"]`, WAIT);
    expect(await page.$$eval('tr[data-audit-action]', (trs) => [...new Set(trs.map((tr) => tr.getAttribute('data-audit-action')))])).toEqual(['cell.open']);
    const row = `tr[data-audit-id="${opened.id}"]`;
    expect(await page.textContent(`${row} [data-audit-what]`)).toBe('cell opened');
    expect(await page.textContent(`${row} [data-audit-reason]`)).toBe('customer support');
    expect(await page.textContent(`${row} [data-audit-note]`)).toBe('code not accepted, customer at the locker');
    await shot('audit-filtered');
    // The target links to the cell, chosen on its locker's page.
    await page.click(`${row} [data-audit-target-link]`);
    await page.waitForSelector(`main[data-screen="locker"][data-locker-id="${LOCKER}"] [data-cell-panel="${spareCell}"]`, WAIT);
  });

  it('Alerts: the open alerts as the API lists them; assigned, noted, and acknowledging one asks why and moves it on', async () => {
    // A door pulled open at the locker is an alert until it is shut again.
    expect((await sim('/doors/open', locker().lockOf(spareCell))).status).toBe(200);
    const open = await eventually(async () => {
      const a = await op('/alerts?status=open');
      return a.alerts.length > 0 ? a.alerts : null;
    }, 'an open alert');
    await go('#/alerts', 'alerts');
    await page.waitForSelector(`tr[data-alert-id="${open[0].id}"]`, WAIT);
    // Who is on it, and a note: kept with the alert and shown in its row.
    await page.click(`tr[data-alert-id="${open[0].id}"] [data-action="assign"]`);
    expect(await page.inputValue('[data-dialog="reason"] input[name="assignee"]')).toBe('ops');
    await page.fill('[data-dialog="reason"] input[name="assignee"]', 'field-tech-3');
    await giveReason('on site by noon');
    await page.waitForSelector(`tr[data-alert-id="${open[0].id}"] [data-assignee]:has-text("field-tech-3")`, WAIT);
    await page.click(`tr[data-alert-id="${open[0].id}"] [data-action="add-note"]`);
    await giveReason('door would not close');
    await page.waitForSelector(`tr[data-alert-id="${open[0].id}"] [data-notes="1"]`, WAIT);
    expect((await op('/alerts?status=open')).alerts.find((a: { id: number }) => a.id === open[0].id)).toMatchObject({
      assignee: 'field-tech-3',
      notes: [{ operator: 'ops', text: 'door would not close' }],
    });
    await shot('alerts');
    await page.click(`tr[data-alert-id="${open[0].id}"] [data-action="acknowledge"]`);
    await giveReason('looking into it');
    await page.waitForSelector(`tr[data-alert-id="${open[0].id}"]`, { state: 'detached', ...WAIT });
    const after = await op('/alerts?status=acknowledged');
    expect(after.alerts.map((a: { id: number }) => a.id)).toContain(open[0].id);
    expect((await sim('/doors/close', locker().lockOf(spareCell))).status).toBe(200);
  });

  it("Orders: found by externalId with the phone masked; the order's timeline as the API has it", async () => {
    await go('#/orders', 'orders');
    await page.fill('#order-search', 'CONSOLE-1');
    await page.click('[data-action="find-orders"]');
    const row = await page.waitForSelector('tr[data-order-id]', WAIT);
    const phone = (await row.$eval('.phone', (td) => td.textContent)) ?? '';
    expect(phone).toMatch(/\*{4,}/);
    expect(phone).not.toContain(PHONE.slice(2));
    expect(await page.textContent('body')).not.toContain(PHONE);
    const orderId = await row.getAttribute('data-order-id');
    const found = await op('/orders?query=CONSOLE-1');
    expect(found.items.map((o: { orderId: string }) => o.orderId)).toEqual([orderId]);

    // The order page opens with the plain summary; the raw timeline is one click further.
    await (await row.$('a'))!.click();
    await page.waitForSelector(`main[data-screen="order"] [data-order-summary]`, WAIT);
    const summary = await op(`/orders/${orderId}`);
    expect(summary).toMatchObject({ state: 0, code: { active: false, sentAt: null } }); // created, not yet loaded
    expect(await page.textContent('[data-summary="state"]')).toContain('0 New');
    expect(await page.$$eval('[data-summary="parcels"] [data-parcel]', (els) => els.map((e) => e.getAttribute('data-parcel')))).toEqual(summary.parcels.map((p: { barcode: string }) => p.barcode));
    expect(await page.$$eval('[data-summary="marketplace"] li[data-notification-id]', (els) => els.map((e) => Number(e.getAttribute('data-notification-id'))))).toEqual(
      summary.marketplace.map((n: { notificationId: number }) => n.notificationId),
    );
    expect(await page.textContent('[data-summary="code"]')).toBe('none');
    expect(await page.textContent('[data-order-summary]')).not.toContain(PHONE.slice(2));
    expect(await page.$('ol.timeline')).toBeNull();
    await shot('order');
    await page.click('[data-action="toggle-timeline"]');
    const timeline = await op(`/orders/${orderId}/timeline`);
    await page.waitForSelector(`ol.timeline[data-entries="${timeline.entries.length}"]`, WAIT);
    await shot('timeline');
    await go('#/orders?query=CONSOLE-1', 'orders');
    await page.waitForSelector('tr[data-order-id]', WAIT);
    await shot('orders');
  });

  it('Order care: a loaded order offers a new pick-up code and the early return, each asking why; the summary follows', async () => {
    // A courier loads CONSOLE-2 at the locker (its screen and simulator), as the demo traffic does.
    const created = await call('PUT', `${demo.apiUrl}/api/v4/auth/delivery/smartorder/create`, { 'x-service-api-key': SHOP }, {
      externalId: 'CONSOLE-2',
      postamatId: LOCKER,
      dateDelivery: moscowToday(),
      parcels: [{ barcode: 'CONSOLE-2-P1', dimension: { length: 300, width: 200, height: 80 } }],
      clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
      notification: { emails: [], phones: [PHONE] },
    });
    expect(created.status).toBe(200);
    const [partnerKey] = [...demo.keys.partners.values()];
    const route = await call('PUT', `${demo.apiUrl}/api/v1/auth/couriers/courier-with-route`, { 'partner-api-key': partnerKey! }, {
      courier: { externalId: 'CR-CONSOLE', email: 'console@courier.example', phone: '+79035550098' },
      route: { carNumber: 'А002АА77', date: moscowToday(), externalId: 'RT-CONSOLE', postamatIds: [LOCKER] },
    });
    expect(route.status, JSON.stringify(route.body)).toBe(200);
    const screen = async (path: string, body?: unknown) => (await call(body === undefined ? 'GET' : 'POST', `${locker().screenUrl}${path}`, {}, body)).body;
    await eventually(async () => {
      await screen('/api/home', {});
      await screen('/api/choose', { kind: 'courier' });
      return (await screen('/api/code', { kind: 'courier', code: route.body.postamatAccessCode })).view.screen === 'courier' || null;
    }, 'the courier code at the locker');
    const scanned = locker().hasScanner
      ? (await sim('/scan', { barcode: 'CONSOLE-2-P1' }), await eventually(async () => {
          const st = await screen('/api/state');
          return st.view.screen === 'load_open' ? st : null;
        }, 'the cell opened for the load'))
      : await screen('/api/scan', { barcode: 'CONSOLE-2-P1' });
    expect(scanned.view.screen).toBe('load_open');
    expect((await sim('/doors/close', locker().lockOf(scanned.view.cellId))).status).toBe(200);
    const found = await op('/orders?query=CONSOLE-2');
    const orderId: string = found.items[0].orderId;
    await eventually(async () => ((await op(`/orders/${orderId}`)).state === 3) || null, 'CONSOLE-2 loaded');
    await screen('/api/home', {});

    await go(`#/orders/${encodeURIComponent(orderId)}`, 'order');
    await page.waitForSelector('[data-summary="code"]:has-text("active")', WAIT);
    await page.click('[data-action="new-code"]');
    await giveReason('customer lost the SMS');
    const issued = await eventually(async () => {
      const a = await op(`/audit?orderId=${orderId}&action=order.code`);
      return a.items[0] ?? null;
    }, 'the new code in the audit');
    expect(issued).toMatchObject({ operator: 'ops', reason: 'customer lost the SMS', detail: { rule: 'CR1' } });
    const codes = (await op(`/orders/${orderId}`)).marketplace.filter((n: { kind: string }) => n.kind === 'user-access-code');
    expect(codes.length).toBe(2);
    await page.waitForSelector(`[data-summary="marketplace"] li[data-notification-id="${codes[0].notificationId}"]`, WAIT);
    await shot('order-loaded');

    await page.click('[data-action="start-return"]');
    await giveReason('refused by the customer');
    await page.waitForSelector('[data-summary="state"]:has-text("Return initiated"), [data-summary="state"]:has-text("Awaiting return")', WAIT);
    expect((await op(`/orders/${orderId}`)).state).toBeGreaterThanOrEqual(6);
    expect(await page.$('[data-action="start-return"]')).toBeNull();
  });

  it('Notifications: each receiver and its state, and the failing deliveries, as the API lists them', async () => {
    await go('#/notifications', 'notifications');
    const failing = await op('/notifications?status=failing');
    await page.waitForSelector(`table[data-failing="${failing.notifications.length}"]`, WAIT);
    // Each receiver with its state now (failing from its first failed attempt), as the API has it.
    const receivers = (await op('/notifications/receivers')).receivers as { marketplaceId: string; state: string }[];
    await page.waitForSelector(`table[data-receivers="${receivers.length}"]`, WAIT);
    expect(await page.$$eval('tr[data-receiver-state]', (trs) => trs.map((tr) => [tr.getAttribute('data-marketplace'), tr.getAttribute('data-receiver-state')]))).toEqual(
      receivers.map((r) => [r.marketplaceId, r.state]),
    );
    await shot('notifications');
  });

  it('speaks Russian or English, remembered across a reload; both dictionaries have the same keys', async () => {
    await page.click('header [data-lang="ru"]');
    await page.waitForSelector('html[lang="ru"]', WAIT);
    expect(await page.textContent('[data-nav="fleet"]')).toBe('Постаматы');
    await page.reload();
    await page.waitForSelector('main[data-screen="notifications"]', WAIT);
    expect(await page.textContent('[data-nav="alerts"]')).toBe('Тревоги');
    const keys = await page.evaluate<Record<string, string[]>>(`import('/console/i18n.js').then(({ DICTIONARIES }) => {
      const paths = (o, prefix = '') => Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' ? paths(v, prefix + k + '.') : [prefix + k])).sort();
      return Object.fromEntries(Object.entries(DICTIONARIES).map(([lang, d]) => [lang, paths(d)]));
    })`);
    expect(keys.ru).toEqual(keys.en);
    // Every action the audit keeps has a name (and is offered by the audit's filter), no other.
    const named = keys.en!.filter((k) => k.startsWith('auditActions.')).map((k) => k.slice('auditActions.'.length));
    expect(named.sort()).toEqual([...AUDIT_ACTIONS].sort());
    await page.click('header [data-lang="en"]');
  });

  it('signs out; a viewer signs in and sees no actions', async () => {
    await page.click('[data-action="sign-out"]');
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await page.reload();
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await page.fill('#operator-key', VIEWER_KEY);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('.who[data-role="viewer"]', WAIT);
    await go(`#/lockers/${LOCKER}`, 'locker');
    await page.click(`[data-cell-id="${spareCell}"]`);
    await page.waitForSelector('[data-cell-panel]', WAIT);
    expect(await page.$$('[data-cell-panel] [data-action]')).toEqual([]);
    await go('#/alerts', 'alerts');
    await page.waitForSelector('table[data-alerts]', WAIT);
    expect(await page.$$('[data-action="acknowledge"], [data-action="resolve"]')).toEqual([]);
  });

  it('the page reported no script error, refused resource or policy violation', () => {
    expect(problems).toEqual([]);
  });
});
