/**
 * "Service code for a technician" on the console's locker page, in headless Chromium against
 * `npm start`'s demo network (the cloud, lockers each a simulator plus its agent). The operator
 * issues a code after the reason dialog; the page shows it once; the locker's screen accepts it
 * and opens the service menu. axe-core finds no serious or critical violation on the page, in the
 * dialog and with the code shown, at 1366 and 390 px, in English and Russian; a viewer is offered
 * no such action and the API refuses one. Screenshots go to artifacts/screens/console-service-code-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings, type DemoSettingsInput } from '../../demo/config.js';
import { startDemo, type DemoLocker, type RunningDemo } from '../../demo/demo.js';
import { eventually } from '../helpers/eventually.js';
import { fleetWithViewer } from './demo-console.js';
import { NARROW, WIDE, noSidewaysScroll } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const VIEWER_KEY = 'demo-watch-key';
const LOCKER = 102;
const FREE_PORTS: DemoSettingsInput = { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent' };
const WAIT = { timeout: 30_000 };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Serious and critical axe-core violations outside the locker page's tabs: their lists belong to
 * the locker page and are judged by console-a11y.test.ts (a long Russian order list at 390 px is a
 * scrollable region of its own there).
 */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate<{ id: string; impact: string; nodes: { target: string[] }[] }[]>(
    `axe.run({ exclude: [['[data-tab-content]']] }, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe.runIf(requires('chromium'))("a technician's service code from the console (Chromium against the demo network)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'service-code-screen-'));
  let demo: RunningDemo;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const op = async (path: string) => (await call('GET', `${demo.apiUrl}/operator${path}`, { 'x-operator-api-key': OPERATOR_KEY })).body;
  const locker = (): DemoLocker => demo.lockers.find((l) => l.id === LOCKER)!;
  const screen = async (path: string, body?: unknown) => (await call(body === undefined ? 'GET' : 'POST', `${locker().screenUrl}${path}`, {}, body)).body;
  const signIn = async (key: string) => {
    await page.goto(`${demo.apiUrl}/`);
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await page.fill('#operator-key', key);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('header .who', WAIT);
  };
  const goLocker = async () => {
    await page.evaluate(`location.hash = ${JSON.stringify(`#/lockers/${LOCKER}`)}`);
    await page.waitForSelector(`main[data-screen="locker"] .locker-head`, WAIT);
  };
  const check = async (what: string) => {
    // Let the page's data arrive (its "loading" gives way) before judging it.
    await page.waitForSelector('[data-loading="true"]', { state: 'detached', ...WAIT });
    expect(await axeViolations(page), what).toEqual([]);
    expect(await noSidewaysScroll(page), what).toBe(true);
  };

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
    // The locker's agent has said hello (and so announced service.code).
    await eventually(async () => (await op(`/lockers/${LOCKER}`)).online === true || null, `locker ${LOCKER} online`);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers the action; no serious accessibility violation on the page or in its dialog, at 1366 and 390 px, in English and Russian', async () => {
    await signIn(OPERATOR_KEY);
    await goLocker();
    for (const [lang, label] of [['en', 'Service code for a technician'], ['ru', 'Сервисный код для техника']] as const) {
      await page.click(`header [data-lang="${lang}"]`);
      await page.waitForSelector(`html[lang="${lang}"]`, WAIT);
      for (const size of [WIDE, NARROW]) {
        await page.setViewportSize(size);
        const button = await page.waitForSelector('[data-action="service-code"]', WAIT);
        expect((await button.textContent())?.trim()).toBe(label);
        await check(`locker ${lang} ${size.width}`);
        await button.click();
        await page.waitForSelector('[data-dialog="reason"] input[name="minutes"]', WAIT);
        await check(`dialog ${lang} ${size.width}`);
        await page.screenshot({ path: join(SHOTS, `console-service-code-dialog-${lang}-${size.width}.png`), fullPage: true });
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
      }
    }
    // Nothing was sent.
    expect((await op(`/audit?lockerId=${LOCKER}&action=service.code`)).total).toBe(0);
    await page.click('header [data-lang="en"]');
    await page.waitForSelector('html[lang="en"]', WAIT);
    await page.setViewportSize(WIDE);
  });

  it('issues the code after the reason, shows it once, and the locker opens its service menu with it', async () => {
    await page.click('[data-action="service-code"]');
    await page.fill('[data-dialog="reason"] input[name="minutes"]', '30');
    await page.fill('[data-dialog="reason"] textarea[name="reason"]', 'inventory after a power cut');
    await page.click('[data-dialog="reason"] [data-action="confirm"]');
    const shown = await page.waitForSelector('[data-service-code]', WAIT);
    const code = (await shown.getAttribute('data-service-code'))!;
    expect(code).toMatch(/^\d{8}$/);
    expect(await shown.textContent()).toContain(code);
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size);
      await check(`code shown ${size.width}`);
      await page.screenshot({ path: join(SHOTS, `console-service-code-shown-${size.width}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDE);
    const audit = await op(`/audit?lockerId=${LOCKER}&action=service.code`);
    expect(audit.items).toMatchObject([{ operator: 'ops', reason: 'inventory after a power cut', target: `locker:${LOCKER}` }]);
    expect(JSON.stringify(audit)).not.toContain(code);
    // The locker gets the code's hash; its screen takes the code.
    const menu = await eventually(async () => {
      await screen('/api/home', {});
      await screen('/api/choose', { kind: 'service' });
      const s = await screen('/api/code', { kind: 'service', code });
      return s.view.screen === 'service' ? s : null;
    }, 'the service code at the locker');
    expect(menu.view.cells).toEqual(expect.any(Array));
    await screen('/api/home', {});
    await page.click('[data-action="hide-service-code"]');
    await page.waitForSelector('[data-service-code]', { state: 'detached', ...WAIT });
  });

  it('a viewer is offered no service code, and the API refuses one', async () => {
    await page.click('[data-action="sign-out"]');
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await signIn(VIEWER_KEY);
    await goLocker();
    expect(await page.$('[data-action="service-code"]')).toBeNull();
    const refused = await call('POST', `${demo.apiUrl}/operator/lockers/${LOCKER}/service-codes`, { 'x-operator-api-key': VIEWER_KEY }, { minutes: 30 });
    expect(refused).toMatchObject({ status: 403, body: { resultCode: 5 } });
  });

  it('the page reported no script error, refused resource or policy violation', () => {
    expect(problems).toEqual([]);
  });
});
