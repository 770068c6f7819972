/**
 * The locker's page in a real browser: a courier load and a customer pick-up walked through the
 * touchscreen, with a screenshot of each screen kept under artifacts/screens/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';
import { NOON, cell, grant, lockerConfig, order, parcel, pickupHash } from './fixtures.js';
import { simCell, startHarness, type Harness } from './harness.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');

describe.runIf(requires('chromium'))('the locker page in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  async function screen(name: string): Promise<void> {
    await page.waitForSelector(`#app[data-screen="${name}"]`);
  }

  async function typeCode(code: string): Promise<void> {
    for (const d of code) await page.click(`[data-key="${d}"]`);
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ config: { screen: { port: 0, defaultLanguage: 'ru' } } });
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3_600_000) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 }), parcel('B2', { cellId: 3 })]) },
      { type: 'order.upsert', order: order('o2', [parcel('C1')], { dateDelivery: '2030-03-12' }) },
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('walks a courier load, with its errors, in Russian and English', async () => {
    await page.goto(h.agent.screenUrl);
    await screen('start');
    await expect(page.textContent('h1')).resolves.toBe('Здравствуйте!');
    await shot('01-start-ru');
    await page.click('[data-lang="en"]');
    await page.waitForSelector('html[lang="en"]');
    await shot('02-start-en');

    await page.click('[data-action="courier"]');
    await screen('code');
    await typeCode('999999');
    await page.click('[data-action="submit"]');
    await page.waitForSelector('[data-error="wrong_code"]');
    await shot('03-courier-wrong-code');
    await typeCode('111111');
    await shot('04-courier-code');
    await page.click('[data-action="submit"]');
    await screen('courier');
    await shot('05-courier-scan');

    await page.fill('#barcode', 'C1');
    await page.click('[data-action="scan"]');
    await page.waitForSelector('[data-error="not_deliverable_yet"]');
    await shot('06-error-not-deliverable-yet');

    await page.fill('#barcode', 'B1');
    await page.click('[data-action="scan"]');
    await screen('load_open');
    await expect(page.textContent('.cell-badge')).resolves.toBe('2');
    await shot('07-cell-open');
    h.sim.closeDoor(simCell(2));
    await page.waitForSelector('[data-notice="loaded"]');
    await shot('08-courier-loaded');
    expect(h.agent.store.parcels.get('o1', 'B1')?.cellId).toBe(2);

    // B2's reserved cell jams: the cell is flagged and the smallest free fitting cell opens instead
    h.sim.setFault({ kind: 'jammed', bus: 'main', board: 0, lock: 3 });
    await page.fill('#barcode', 'B2');
    await page.click('[data-action="scan"]');
    await page.waitForSelector('[data-error="door_fault"]');
    await expect(page.textContent('.cell-badge')).resolves.toBe('1');
    await shot('09-door-fault-other-cell');
    h.sim.closeDoor(simCell(1));
    await page.waitForSelector('[data-notice="loaded"]');
    expect(h.agent.store.cells.get(3)?.flags).toEqual(['faulty']);

    // nothing fits any more
    h.send({ type: 'order.upsert', order: order('o3', [parcel('D1', { dimension: { length: 390, width: 290, height: 290 } })]) });
    await page.fill('#barcode', 'D1');
    await page.click('[data-action="scan"]');
    await page.waitForSelector('[data-error="no_free_cell"]');
    await shot('10-error-no-free-cell');
    await page.click('[data-action="home"]');
    await screen('start');
  });

  it('walks a customer pick-up', async () => {
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { state: 'loaded', cellId: 2 }), parcel('B2', { state: 'loaded', cellId: 1 })], { state: 3, pickupCodeHash: pickupHash('2468024') }) });
    await page.goto(h.agent.screenUrl);
    await screen('start');
    await page.click('[data-lang="en"]');
    await page.click('[data-action="customer"]');
    await screen('code');
    await typeCode('2468024');
    await shot('11-customer-code');
    await page.click('[data-action="submit"]');
    await screen('take_open');
    await shot('12-customer-take-parcels');
    await expect(page.$$eval('.cell-badge', (els) => els.map((e) => e.textContent))).resolves.toEqual(['1', '2']);
    expect(h.agent.store.parcels.ofOrder('o1').map((p) => p.state)).toEqual(['received', 'received']);
    h.sim.closeDoor(simCell(1));
    h.sim.closeDoor(simCell(2));
    await screen('start');
    await page.click('[data-lang="ru"]');
    await page.click('[data-action="customer"]');
    await typeCode('2468024');
    await page.click('[data-action="submit"]');
    await page.waitForSelector('[data-error="nothing_to_pick_up"]');
    await shot('13-error-already-collected-ru');
  });

  it('fills a portrait screen (1080 × 1920) instead of a small keypad in its middle third', async () => {
    const portrait = await browser.newPage({ viewport: { width: 1080, height: 1920 } });
    try {
      await portrait.goto(h.agent.screenUrl);
      await portrait.waitForSelector('#app[data-screen="start"]');
      await portrait.click('[data-action="customer"]');
      await portrait.waitForSelector('#app[data-screen="code"]');
      await portrait.screenshot({ path: join(SHOTS, '14-portrait-code.png') });
      const keypad = await portrait.$eval('.keypad', (e) => ({ width: e.getBoundingClientRect().width }));
      const content = await portrait.$eval('#app', (e) => {
        const boxes = [...e.querySelectorAll('h1, .code-display, .keypad, .btn')].map((x) => x.getBoundingClientRect());
        return { top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom)) };
      });
      expect(keypad.width).toBeGreaterThan(1080 * 0.7);
      expect(content.bottom - content.top).toBeGreaterThan(1920 * 0.6);
    } finally {
      await portrait.close();
    }
  });

  it('has an icon', async () => {
    const res = await fetch(new URL('/favicon.ico', h.agent.screenUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
  });
});
