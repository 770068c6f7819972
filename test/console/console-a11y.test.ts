/**
 * Every console screen for everyone who uses it: at a desktop (1366 px) and a phone (390 px)
 * width, in Russian and English, axe-core finds no serious or critical violation, nothing scrolls
 * sideways, and the reason dialog takes the focus and closes on Esc, giving the focus back. Runs
 * against `npm start`'s demo network on free ports with one order placed, so that the order and
 * locker screens have something to show. Screenshots: artifacts/screens/console-a11y-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings } from '../../demo/config.js';
import { startDemo, type RunningDemo } from '../../demo/demo.js';
import { NARROW, WIDE, axeViolations, noSidewaysScroll } from '../helpers/axe.js';
import { moscowToday } from './demo-console.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const SHOP = 'demo-shop-one-key';
const LOCKER = 102;
const WAIT = { timeout: 30_000 };


describe.runIf(requires('chromium'))('every console screen: axe, phone width, both languages, dialogs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-a11y-'));
  let demo: RunningDemo;
  let browser: Browser;
  let orderId = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(
      loadDemoSettings({}, { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent', dataDir: join(dir, 'data') }),
      { logger: pino({ level: 'silent' }) },
    );
    const created = await fetch(`${demo.apiUrl}/api/v4/auth/delivery/smartorder/create`, {
      method: 'PUT',
      headers: { 'x-service-api-key': SHOP, 'content-type': 'application/json' },
      body: JSON.stringify({
        externalId: 'A11Y-1',
        postamatId: LOCKER,
        dateDelivery: moscowToday(),
        parcels: [{ barcode: 'A11Y-1-P1', dimension: { length: 300, width: 200, height: 80 } }],
        clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
        notification: { emails: [], phones: ['+79161234567'] },
      }),
    });
    expect(created.status).toBe(200);
    const found = await fetch(`${demo.apiUrl}/operator/orders?query=A11Y-1`, { headers: { 'x-operator-api-key': OPERATOR_KEY } });
    orderId = ((await found.json()) as { items: { orderId: string }[] }).items[0]!.orderId;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const screens = (): [string, string, string][] => [
    ['fleet', '#/fleet', '[data-screen="fleet"] table'],
    ['cells', '#/cells?flag=blocked', '[data-screen="cells"] table'],
    ['locker', `#/lockers/${LOCKER}`, '[data-view-shown] [data-cell-id]'],
    ['orders', '#/orders?query=A11Y-1', '[data-screen="orders"] table'],
    ['order', `#/orders/${orderId}`, '[data-summary="state"]'],
    ['notifications', '#/notifications', 'main[data-screen="notifications"]'],
    ['alerts', '#/alerts', 'main[data-screen="alerts"]'],
    ['audit', '#/audit', 'main[data-screen="audit"]'],
    ['updates', '#/updates', 'main[data-screen="updates"]'],
    ['reports', '#/reports', '[data-chart="events"] canvas'],
  ];

  /** What is wrong on the page as shown, each line naming the screen (all screens are judged before the test fails). */
  async function check(page: Page, what: string, problems: string[]): Promise<void> {
    // Let a screen's data arrive (its "loading" gives way) before judging it.
    await page.waitForSelector('[data-loading="true"]', { state: 'detached', ...WAIT });
    for (const v of await axeViolations(page)) problems.push(`${what}: ${v}`);
    if (!(await noSidewaysScroll(page))) problems.push(`${what}: scrolls sideways`);
  }

  for (const lang of ['ru', 'en'] as const) {
    for (const size of [WIDE, NARROW]) {
      it(`${lang}, ${size.width} px: sign-in, every screen and the reason dialog`, async () => {
        const context = await browser.newContext({ viewport: size, locale: lang === 'ru' ? 'ru-RU' : 'en-GB' });
        await context.addInitScript(`localStorage.setItem('console.lang', ${JSON.stringify(lang)})`);
        const page = await context.newPage();
        const problems: string[] = [];
        try {
          await page.goto(`${demo.apiUrl}/`);
          await page.waitForSelector(`html[lang="${lang}"] main[data-screen="signin"]`, WAIT);
          await check(page, `signin ${lang} ${size.width}`, problems);
          await page.fill('#operator-key', OPERATOR_KEY);
          await page.click('[data-action="sign-in"]');
          await page.waitForSelector('main[data-screen="fleet"]', WAIT);
          for (const [name, hash, ready] of screens()) {
            await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
            await page.waitForSelector(ready, WAIT);
            await check(page, `${name} ${lang} ${size.width}`, problems);
            await page.screenshot({ path: join(SHOTS, `console-a11y-${name}-${lang}-${size.width}.png`), fullPage: true });
          }

          // The order's raw history reads in the operator's language too (no engine identifiers).
          await page.evaluate(`location.hash = ${JSON.stringify(`#/orders/${orderId}`)}`);
          await page.click('[data-action="toggle-timeline"]');
          await page.waitForSelector('ol.timeline .timeline-entry', WAIT);
          // Each entry's line is named in words; its structured detail below keeps the identifiers.
          const lines = (await page.$$eval('ol.timeline .timeline-what > strong', (els) => els.map((e) => e.textContent ?? ''))).join('\n');
          expect(lines).toContain(lang === 'ru' ? 'заказ создан' : 'order created');
          expect(lines).not.toContain('order.create');
          await check(page, `timeline ${lang} ${size.width}`, problems);

          // The reason dialog (here: blocking a free cell) takes the focus, passes axe, and Esc
          // closes it, giving the focus back to the button that opened it.
          await page.evaluate(`location.hash = ${JSON.stringify(`#/lockers/${LOCKER}`)}`);
          // The list view (a phone opens "by position", whose own dialog technician-view.test.ts checks).
          await page.click('[data-view="list"]');
          await page.click('[data-grid] [data-cell-id][data-state="free"]');
          await page.waitForSelector('[data-action="block"]', WAIT);
          await page.focus('[data-action="block"]');
          await page.click('[data-action="block"]');
          // The focus moves in once the dialog has rendered.
          await page.waitForSelector('[role="dialog"] :focus', WAIT);
          await check(page, `dialog ${lang} ${size.width}`, problems);
          await page.keyboard.press('Escape');
          await page.waitForSelector('[role="dialog"]', { state: 'detached', ...WAIT });
          await page.waitForSelector('[data-action="block"]:focus', WAIT);
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
