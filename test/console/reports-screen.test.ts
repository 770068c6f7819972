/**
 * The console's Reports screen in headless Chromium against the demo network (real lockers on the
 * simulator, their links up): the per-locker table shows what GET /operator/reports/lockers
 * answers, both trend charts are drawn (uPlot's canvas) with their data as a table for screen
 * readers, day and week, and the CSV link downloads the file (BOM, header in the screen's
 * language). axe-core finds no serious or critical violation and the page never scrolls sideways,
 * at 1366 and 390 px, in Russian and English. Screenshots go to artifacts/screens/console-reports-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings } from '../../demo/config.js';
import { startDemo, type RunningDemo } from '../../demo/demo.js';
import { NARROW, WIDE, axeViolations, noSidewaysScroll } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';
import { moscowToday } from './demo-console.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const WAIT = { timeout: 30_000 };

const plusDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe.runIf(requires('chromium'))('the console Reports screen (Chromium)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reports-screen-'));
  let demo: RunningDemo;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(
      loadDemoSettings({}, { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent', dataDir: join(dir, 'data') }),
      { logger: pino({ level: 'silent' }) },
    );
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function reportOfLastWeek(): Promise<{ lockers: { lockerId: number; deliveries: number }[] }> {
    const today = moscowToday();
    const res = await fetch(`${demo.apiUrl}/operator/reports/lockers?from=${plusDays(today, -6)}&to=${plusDays(today, 1)}`, { headers: { 'x-operator-api-key': OPERATOR_KEY } });
    expect(res.status).toBe(200);
    return (await res.json()) as { lockers: { lockerId: number; deliveries: number }[] };
  }

  async function check(page: Page, what: string, problems: string[]): Promise<void> {
    await page.waitForSelector('[data-loading="true"]', { state: 'detached', ...WAIT });
    for (const v of await axeViolations(page)) problems.push(`${what}: ${v}`);
    if (!(await noSidewaysScroll(page))) {
      const wide = await page.evaluate<string[]>(
        `[...document.querySelectorAll('body *')].filter((e) => !e.closest('.table-scroll, .visually-hidden') && e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
      );
      problems.push(`${what}: scrolls sideways (${wide.join('; ')})`);
    }
  }

  for (const lang of ['ru', 'en'] as const) {
    for (const size of [WIDE, NARROW]) {
      it(`${lang}, ${size.width} px: the table, both charts day and week, the CSV download`, async () => {
        const context = await browser.newContext({ viewport: size, locale: lang === 'ru' ? 'ru-RU' : 'en-GB', acceptDownloads: true });
        await context.addInitScript(`localStorage.setItem('console.lang', ${JSON.stringify(lang)})`);
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
        try {
          await page.goto(`${demo.apiUrl}/`);
          await page.waitForSelector('main[data-screen="signin"]', WAIT);
          await page.fill('#operator-key', OPERATOR_KEY);
          await page.click('[data-action="sign-in"]');
          await page.waitForSelector('main[data-screen="fleet"]', WAIT);
          await page.click('[data-nav="reports"]');
          await page.waitForSelector('main[data-screen="reports"] [data-report-rows]', WAIT);
          await page.waitForSelector('[data-chart="events"] canvas', WAIT);

          const api = await reportOfLastWeek();
          const ids = await page.$$eval('[data-locker-id]', (rows) => rows.map((r) => Number(r.getAttribute('data-locker-id'))));
          expect(ids).toEqual(api.lockers.map((l) => l.lockerId));
          const deliveries = await page.$$eval('[data-locker-id] [data-col="deliveries"]', (cells) => cells.map((c) => Number(c.textContent)));
          expect(deliveries).toEqual(api.lockers.map((l) => l.deliveries));
          expect(await page.$$eval('[data-chart] canvas', (c) => c.length)).toBe(2);
          expect(await page.$$eval('[data-chart-table="occupancy"] tbody tr', (r) => r.length)).toBe(24);
          await check(page, `reports day ${lang} ${size.width}`, problems);
          await page.screenshot({ path: join(SHOTS, `console-reports-day-${lang}-${size.width}.png`), fullPage: true });

          await page.click('[data-span="week"]');
          await page.waitForSelector('[data-trend-span="week"] [data-chart="occupancy"] canvas', WAIT);
          expect(await page.$$eval('[data-chart-table="events"] tbody tr', (r) => r.length)).toBe(7);
          await page.selectOption('[data-trend-locker]', String(api.lockers[0]!.lockerId));
          await page.waitForSelector('[data-trend-span="week"] [data-chart="events"] canvas', WAIT);
          await check(page, `reports week ${lang} ${size.width}`, problems);
          await page.screenshot({ path: join(SHOTS, `console-reports-week-${lang}-${size.width}.png`), fullPage: true });

          const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="download-csv"]')]);
          expect(download.suggestedFilename()).toBe(`lockers-report_${plusDays(moscowToday(), -6)}_${moscowToday()}.csv`);
          const file = readFileSync(await download.path());
          expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
          const header = file.subarray(3).toString('utf8').split('\r\n')[0];
          expect(header?.startsWith(lang === 'ru' ? 'Постамат,Название' : 'Locker,Name')).toBe(true);
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      }, 120_000);
    }
  }
});
