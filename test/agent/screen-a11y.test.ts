/**
 * The locker page for everyone who meets it: at a desktop and a phone width, in Russian and
 * English, each screen a courier or a customer walks through has no serious axe-core violation and
 * no sideways scroll. The locker here has a cloud link that cannot connect, so staff see the
 * discreet offline mark while the courier and the customer carry on.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NARROW, WIDE, axeViolations, noSidewaysScroll } from '../helpers/axe.js';
import { freePort } from '../helpers/free-port.js';
import { launchChromium } from '../helpers/chromium.js';
import { requires } from '../helpers/requirements.js';
import { NOON, cell, grant, lockerConfig, order, parcel } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const LANGS = [
  { lang: 'ru', offline: 'нет связи', welcome: 'Здравствуйте!' },
  { lang: 'en', offline: 'offline', welcome: 'Hello!' },
] as const;

describe.runIf(requires('chromium'))('the locker page: accessible at every width, in both languages, offline mark for staff', () => {
  let h: Harness;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A broker port nobody listens on: the link is configured and down.
    const port = await freePort();
    h = await startHarness({ config: { screen: { port: 0, defaultLanguage: 'ru' }, mqtt: { url: `mqtt://127.0.0.1:${port}`, password: 'locker-password', reconnectMinMs: 60_000, reconnectMaxMs: 60_000 } } });
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3_600_000) },
      { type: 'order.upsert', order: order('o1', [parcel('B1')]) },
    );
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  async function check(page: Page, what: string): Promise<void> {
    expect(await axeViolations(page), what).toEqual([]);
    expect(await noSidewaysScroll(page), `${what}: no sideways scroll`).toBe(true);
  }

  for (const size of [WIDE, NARROW]) {
    for (const l of LANGS) {
      it(`${size.width} px, ${l.lang}: start, code, courier screens`, async () => {
        await h.post('/api/home');
        await h.post('/api/lang', { lang: l.lang });
        const page = await browser.newPage({ viewport: size });
        try {
          await page.goto(h.agent.screenUrl);
          await page.waitForSelector(`html[lang="${l.lang}"] #app[data-screen="start"]`);
          await expect(page.textContent('h1')).resolves.toBe(l.welcome);
          // The mark says it in words (not by colour alone) and stays out of the customer's way.
          await page.waitForSelector('#offline:not([hidden])');
          await expect(page.textContent('#offline')).resolves.toBe(l.offline);
          await check(page, `start ${size.width} ${l.lang}`);
          await page.screenshot({ path: join(SHOTS, `20-start-offline-${l.lang}-${size.width}.png`) });

          await page.click('[data-action="customer"]');
          await page.waitForSelector('#app[data-screen="code"]');
          await check(page, `customer code ${size.width} ${l.lang}`);

          await page.click('[data-action="home"]');
          await page.waitForSelector('#app[data-screen="start"]');
          await page.click('[data-action="courier"]');
          await page.waitForSelector('#app[data-screen="code"]');
          for (const d of '111111') await page.click(`[data-key="${d}"]`);
          await page.click('[data-action="submit"]');
          // Signed in offline, with what the locker knows.
          await page.waitForSelector('#app[data-screen="courier"]');
          await check(page, `courier ${size.width} ${l.lang}`);
          await page.screenshot({ path: join(SHOTS, `21-courier-offline-${l.lang}-${size.width}.png`) });
        } finally {
          await page.close();
          await h.post('/api/home');
        }
      });
    }
  }
});
