/**
 * The technician's service menu at the locker page, against the simulator: the service code typed
 * on the page's keypad, the flagged cell opened, the parcel's barcode read by the simulated
 * scanner, the door closed, the finding recorded. At a desktop and a phone width, in Russian and
 * English, each of these screens has no serious axe-core violation and no sideways scroll.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeHash } from '../../shared/src/codes.js';
import { NARROW, WIDE, axeViolations, noSidewaysScroll } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';
import { LOCKER_ID, NOON, cell, eventBodies, lockerConfig, order, parcel } from './fixtures.js';
import { simCell, startHarness, type Harness } from './harness.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const CODE = '24681357';
const LANGS = [
  { lang: 'ru', title: 'Ячейки для проверки', recorded: 'Ячейка 2 записана пустой' },
  { lang: 'en', title: 'Cells to check', recorded: 'Cell 2 recorded empty' },
] as const;

describe('the service menu at the locker (simulator, scanner)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { screen: { port: 0, defaultLanguage: 'ru' } } });
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L', { flags: ['faulty'] })]) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
      { type: 'service.code', codeId: 'svc-1', codeHash: codeHash('service', LOCKER_ID, CODE), validUntil: NOON + 3_600_000 },
    );
  });
  afterAll(async () => h?.stop());

  it('records the scanned parcel in the cell: the flag leaves, the parcel is in the cell as loaded, the events go out', async () => {
    h.send({ type: 'cell.flags', cellId: 2, flags: ['needs_inventory'] });
    await h.post('/api/choose', { kind: 'service' });
    const menu = await h.post('/api/code', { kind: 'service', code: CODE });
    expect(menu.view).toEqual({ screen: 'service', notice: null, cells: [{ cellId: 2, flags: ['needs_inventory'] }, { cellId: 3, flags: ['faulty'] }] });
    expect((await h.post('/api/inventory/open', { cellId: 2 })).view).toEqual({ screen: 'inventory', cellId: 2, doorOpen: true, barcode: null });
    await h.sim.scan('B1');
    await h.until((s) => s.view.screen === 'inventory' && s.view.barcode === 'B1', 'the scan on the screen');
    h.sim.closeDoor(simCell(2));
    await h.until((s) => s.view.screen === 'inventory' && !s.view.doorOpen, 'the door closed');
    const done = await h.post('/api/inventory/record', { outcome: 'found' });
    expect(done.view).toEqual({ screen: 'service', cells: [{ cellId: 3, flags: ['faulty'] }], notice: { kind: 'inventoried', cellId: 2, outcome: 'found', barcode: 'B1', placed: true } });
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 2, state: 'in_cell', loadedBy: 'service:svc-1' });
    expect(h.agent.store.cells.get(2)?.flags).toEqual([]);
    expect(eventBodies(h.agent.store).filter((e) => ['cell.inventoried', 'service.attempt'].includes((e as { type: string }).type))).toEqual([
      { type: 'service.attempt', outcome: 'accepted', codeId: 'svc-1' },
      { type: 'cell.inventoried', cellId: 2, outcome: 'found', barcode: 'B1', orderId: 'o1', codeId: 'svc-1' },
    ]);
    // The session ends with the code: the door rounds or the next action sign the technician out,
    // whichever comes first, and nothing opens.
    h.clock.advance(3_600_000);
    expect((await h.post('/api/inventory/open', { cellId: 3 })).view).toEqual({ screen: 'start' });
    expect(h.sim.isOpen(simCell(3))).toBe(false);
    // A new code for the pages below.
    h.send({ type: 'service.code', codeId: 'svc-2', codeHash: codeHash('service', LOCKER_ID, CODE), validUntil: NOON + 3 * 3_600_000 });
    await h.post('/api/home');
  });

  describe.runIf(requires('chromium'))('the pages: accessible at every width, in both languages', () => {
    let browser: Browser;
    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      browser = await launchChromium();
    });
    afterAll(async () => browser?.close());

    async function check(page: Page, what: string): Promise<void> {
      expect(await axeViolations(page), what).toEqual([]);
      expect(await noSidewaysScroll(page), `${what}: no sideways scroll`).toBe(true);
    }

    for (const size of [WIDE, NARROW]) {
      for (const l of LANGS) {
        it(`${size.width} px, ${l.lang}: service code, menu, open cell, finding`, async () => {
          h.send({ type: 'cell.flags', cellId: 2, flags: ['needs_inventory'] });
          await h.post('/api/home');
          await h.post('/api/lang', { lang: l.lang });
          const page = await browser.newPage({ viewport: size });
          try {
            await page.goto(h.agent.screenUrl);
            await page.waitForSelector(`html[lang="${l.lang}"] #app[data-screen="start"]`);
            await page.click('[data-action="service"]');
            await page.waitForSelector('#app[data-screen="code"]');
            await check(page, `service code ${size.width} ${l.lang}`);
            for (const d of CODE) await page.click(`[data-key="${d}"]`);
            await page.click('[data-action="submit"]');
            await page.waitForSelector('#app[data-screen="service"]');
            await expect(page.textContent('h1')).resolves.toBe(l.title);
            await check(page, `service menu ${size.width} ${l.lang}`);
            await page.screenshot({ path: join(SHOTS, `30-service-${l.lang}-${size.width}.png`) });

            await page.click('[data-action="open-cell"][data-cell="2"]');
            await page.waitForSelector('#app[data-screen="inventory"] [data-cell="2"]');
            await check(page, `cell open ${size.width} ${l.lang}`);
            h.sim.closeDoor(simCell(2));
            await page.waitForSelector('[data-action="record-empty"]');
            await check(page, `finding ${size.width} ${l.lang}`);
            await page.screenshot({ path: join(SHOTS, `31-inventory-${l.lang}-${size.width}.png`) });
            await page.click('[data-action="record-empty"]');
            await page.waitForSelector('#app[data-screen="service"] [data-notice="inventoried"]');
            await expect(page.textContent('[data-notice="inventoried"]')).resolves.toBe(l.recorded);
            await check(page, `recorded ${size.width} ${l.lang}`);
          } finally {
            await page.close();
            await h.post('/api/home');
          }
        });
      }
    }
  });
});
