/**
 * The fleet at a glance in Chromium against `npm start`'s demo network on free ports, signed in as
 * a viewer: the map has a marker per real locker (the API's /operator/fleet/map), each a link to
 * its locker reachable by keyboard, the sandbox locker kept off it in its own group, the fill rate
 * on the list; the "blocked cells" tile leads to the list naming the locker and the cell (with who
 * blocked it and why), whose cell link opens that cell on its locker's page. At 1366 and 390 px,
 * in Russian and English: axe-core finds no serious or critical violation and nothing scrolls
 * sideways. Screenshots: artifacts/screens/fleet-map-*.png.
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
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';
import { fleetWithViewer } from './demo-console.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const VIEWER_KEY = 'demo-map-viewer-key';
const BLOCKED = { lockerId: 101, cellId: 2 };
const WAIT = { timeout: 30_000 };

interface MapLocker {
  lockerId: number;
  name: string;
  sandbox: boolean;
}

describe.runIf(requires('chromium'))('the fleet map and the tiles that drill down (Chromium, demo network)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-map-'));
  let demo: RunningDemo;
  let browser: Browser;
  let lockers: MapLocker[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(
      loadDemoSettings({}, { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent', dataDir: join(dir, 'data'), fleetFile: fleetWithViewer(dir, VIEWER_KEY) }),
      { logger: pino({ level: 'silent' }) },
    );
    const headers = { 'x-operator-api-key': OPERATOR_KEY, 'content-type': 'application/json' };
    const blocked = await fetch(`${demo.apiUrl}/operator/postamats/${BLOCKED.lockerId}/cells/${BLOCKED.cellId}/flags`, { method: 'PUT', headers, body: JSON.stringify({ blocked: true, reason: 'hinge loose' }) });
    expect(blocked.status).toBe(200);
    const map = await fetch(`${demo.apiUrl}/operator/fleet/map`, { headers });
    lockers = ((await map.json()) as { items: MapLocker[] }).items;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function judge(page: Page, what: string, problems: string[]): Promise<void> {
    await page.waitForSelector('[data-loading="true"]', { state: 'detached', ...WAIT });
    for (const v of await axeViolations(page)) problems.push(`${what}: ${v}`);
    if (!(await noSidewaysScroll(page))) problems.push(`${what}: scrolls sideways`);
  }

  it('the demo has real lockers and a sandbox one to show', () => {
    expect(lockers.filter((l) => !l.sandbox).length).toBeGreaterThan(1);
    expect(lockers.filter((l) => l.sandbox).length).toBeGreaterThan(0);
  });

  for (const lang of ['ru', 'en'] as const) {
    for (const size of [WIDE, NARROW]) {
      it(`${lang}, ${size.width} px: markers link to the real lockers, the sandbox apart; the blocked tile names the locker and cell`, async () => {
        const context = await browser.newContext({ viewport: size, locale: lang === 'ru' ? 'ru-RU' : 'en-GB' });
        await context.addInitScript(`localStorage.setItem('console.lang', ${JSON.stringify(lang)})`);
        const page = await context.newPage();
        const problems: string[] = [];
        try {
          await page.goto(`${demo.apiUrl}/`);
          await page.waitForSelector(`html[lang="${lang}"] main[data-screen="signin"]`, WAIT);
          await page.fill('#operator-key', VIEWER_KEY);
          await page.click('[data-action="sign-in"]');
          await page.waitForSelector('[data-map-svg] [data-marker]', WAIT);
          await judge(page, `fleet ${lang} ${size.width}`, problems);
          await page.screenshot({ path: join(SHOTS, `fleet-map-fleet-${lang}-${size.width}.png`), fullPage: true });

          // A marker per real locker, each a link to its locker; the sandbox locker only in its own group.
          const real = lockers.filter((l) => !l.sandbox);
          const sandbox = lockers.filter((l) => l.sandbox);
          const markers = await page.$$eval('[data-map-svg] a[data-marker]', (els) => els.map((e) => [e.getAttribute('data-marker'), e.getAttribute('href'), e.getAttribute('aria-label')]));
          expect(markers.map(([id, href]) => [Number(id), href])).toEqual(real.map((l) => [l.lockerId, `#/lockers/${l.lockerId}`]));
          for (const [id, , label] of markers) expect(label).toContain(real.find((l) => l.lockerId === Number(id))!.name);
          // Every marker inside the drawing (the bounding box fitted into it).
          const outside = await page.$eval('[data-map-svg]', (svg) => {
            const [, , w, h] = svg.getAttribute('viewBox')!.split(' ').map(Number);
            return [...svg.querySelectorAll('circle')].filter((c) => {
              const [x, y] = [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];
              return !(x > 0 && x < w! && y > 0 && y < h!);
            }).length;
          });
          expect(outside).toBe(0);
          expect(await page.$$eval('[data-map-list] [data-map-item]', (els) => els.map((e) => Number(e.getAttribute('data-map-item'))))).toEqual(real.map((l) => l.lockerId));
          expect(await page.$$eval('[data-map-sandbox] [data-map-item]', (els) => els.map((e) => Number(e.getAttribute('data-map-item'))))).toEqual(sandbox.map((l) => l.lockerId));
          // The fill rate on the list, as the API gives it.
          expect(await page.getAttribute(`tr[data-locker-id="${real[0]!.lockerId}"] td[data-fill]`, 'data-fill')).toMatch(/^\d+$/);

          // By keyboard: a marker takes the focus and Enter opens its locker.
          const first = real[0]!.lockerId;
          await page.focus(`[data-marker="${first}"]`);
          expect(await page.evaluate('document.activeElement?.getAttribute("data-marker")')).toBe(String(first));
          await page.keyboard.press('Enter');
          await page.waitForFunction(`location.hash === '#/lockers/${first}'`, undefined, WAIT);

          // The blocked cells tile: the list says where, with who and why; its cell link opens the cell.
          await page.evaluate(`location.hash = '#/fleet'`);
          await page.click('[data-tile="blocked"]');
          await page.waitForSelector(`main[data-screen="cells"] [data-flagged-cell="${BLOCKED.lockerId}:${BLOCKED.cellId}"]`, WAIT);
          expect(await page.evaluate('location.hash')).toBe('#/cells?flag=blocked');
          const row = (await page.textContent(`[data-flagged-cell="${BLOCKED.lockerId}:${BLOCKED.cellId}"]`)) ?? '';
          const name = lockers.find((l) => l.lockerId === BLOCKED.lockerId)!.name;
          expect(row).toContain(name);
          expect(row).toContain(lang === 'ru' ? `Ячейка ${BLOCKED.cellId}` : `Cell ${BLOCKED.cellId}`);
          expect(row).toContain('hinge loose');
          expect(row).toContain('ops');
          await judge(page, `cells ${lang} ${size.width}`, problems);
          await page.screenshot({ path: join(SHOTS, `fleet-map-cells-${lang}-${size.width}.png`), fullPage: true });
          await page.click(`[data-flagged-cell="${BLOCKED.lockerId}:${BLOCKED.cellId}"] [data-cell-link]`);
          await page.waitForFunction(`location.hash === '#/lockers/${BLOCKED.lockerId}?cell=${BLOCKED.cellId}'`, undefined, WAIT);

          // The offline tile opens the list filtered to offline lockers.
          await page.evaluate(`location.hash = '#/fleet'`);
          await page.click('[data-tile="offline"]');
          await page.waitForFunction(`location.hash === '#/fleet?status=offline'`, undefined, WAIT);
          await page.waitForSelector('#fleet-status', WAIT);
          expect(await page.inputValue('#fleet-status')).toBe('offline');
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
