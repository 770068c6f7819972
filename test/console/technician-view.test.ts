/**
 * The locker page's "by position" view, made for a technician at the locker with a phone, in
 * headless Chromium against `npm start`'s demo network. Locker 102's sixteen cells hang here on
 * three boards (cells 1-6, 7-12, 13-16), so its front has three columns: the page draws each cell
 * in its column and row (cell 9 is column 2, row 3), with its state in colour and in words. At 390
 * px the view is the default; at 1366 px it is one tap away. A tap on a cell opens one dialog:
 * the cell's facts and its actions, each confirmed with a purpose from the preset list and an
 * optional note; the dialog keeps the focus and closes on Esc. An open sends the purpose and the
 * note (the audit keeps both) and the door's opening and closing reach the page live; a block
 * shows who, why and when on the cell; clearing a fault flag after inspection; a viewer sees no
 * action. axe-core finds no serious or critical violation, nothing scrolls sideways, in English
 * and Russian at 1366 and 390 px. Screenshots: artifacts/screens/console-technician-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoSettings, type DemoSettingsInput } from '../../demo/config.js';
import { startDemo, type DemoLocker, type RunningDemo } from '../../demo/demo.js';
import { NARROW, WIDE, axeViolations, noSidewaysScroll } from '../helpers/axe.js';
import { launchChromium } from '../helpers/chromium.js';
import { eventually } from '../helpers/eventually.js';
import { requires } from '../helpers/requirements.js';
import { fleetWithViewer } from './demo-console.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const OPERATOR_KEY = 'demo-operator-key';
const VIEWER_KEY = 'demo-watch-key';
const LOCKER = 102;
const FREE_PORTS: DemoSettingsInput = { httpPort: 0, brokerPort: 0, receiverPort: 0, screenPort: 0, simPort: 0, hardwarePort: 0, sandboxPort: 0, logLevel: 'silent' };
const WAIT = { timeout: 30_000 };
/** Board per cell of locker 102: its column on the front (boards in address order); the lock is its row. */
const BOARDS: [number, number[]][] = [
  [0, [1, 2, 3, 4, 5, 6]],
  [1, [7, 8, 9, 10, 11, 12]],
  [2, [13, 14, 15, 16]],
];
const COLUMN_2_ROW_3 = 9;
const TEXTS = {
  en: { blocked: 'blocked', faulty: 'faulty', purposes: ['maintenance', 'inventory', 'customer support', 'courier support', 'other'], positions: 'By position' },
  ru: { blocked: 'заблокирована', faulty: 'неисправна', purposes: ['обслуживание', 'инвентаризация', 'помощь клиенту', 'помощь курьеру', 'другое'], positions: 'По расположению' },
};

/** The example fleet with a viewer, locker 102's cells spread over three boards. */
function threeColumnFleet(dir: string): string {
  const path = fleetWithViewer(dir, VIEWER_KEY);
  const fleet = JSON.parse(readFileSync(path, 'utf8'));
  const locker = fleet.lockers.find((l: { id: number }) => l.id === LOCKER);
  for (const cell of locker.cells as { id: number; board: number; lock: number }[]) {
    const [board, ids] = BOARDS.find(([, ids]) => ids.includes(cell.id))!;
    cell.board = board;
    cell.lock = ids.indexOf(cell.id) + 1;
  }
  writeFileSync(path, JSON.stringify(fleet));
  return path;
}

describe.runIf(requires('chromium'))('the technician view of a locker: cells by position (Chromium against the demo network)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'technician-view-'));
  let demo: RunningDemo;
  let browser: Browser;
  const problems: string[] = [];

  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(url, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const op = async (path: string) => (await call('GET', `${demo.apiUrl}/operator${path}`, { 'x-operator-api-key': OPERATOR_KEY })).body;
  const locker = (): DemoLocker => demo.lockers.find((l) => l.id === LOCKER)!;
  const sim = (path: string, body: unknown) => call('POST', `${locker().simUrl}${path}`, {}, body);

  /** A signed-in page on locker 102 at `size`, in `lang` (a phone width taps, as a finger does). */
  async function lockerPage(key: string, lang: 'en' | 'ru', size: typeof WIDE): Promise<Page> {
    const phone = size.width === NARROW.width;
    const context = await browser.newContext({ viewport: size, locale: lang === 'ru' ? 'ru-RU' : 'en-GB', hasTouch: phone, isMobile: phone });
    await context.addInitScript(`localStorage.setItem('console.lang', ${JSON.stringify(lang)})`);
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
    });
    // Expected refusals: "who am I" before signing in (401), a locker without a health report (404).
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (res.status() >= 400 && !(res.status() === 401 && path === '/operator/session') && !(res.status() === 404 && path.endsWith('/health'))) {
        problems.push(`HTTP ${res.status()} ${res.request().method()} ${path}`);
      }
    });
    await page.goto(`${demo.apiUrl}/`);
    await page.waitForSelector(`html[lang="${lang}"] main[data-screen="signin"]`, WAIT);
    await page.fill('#operator-key', key);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('main[data-screen="fleet"]', WAIT);
    await page.evaluate(`location.hash = ${JSON.stringify(`#/lockers/${LOCKER}`)}`);
    await page.waitForSelector('main[data-screen="locker"] [data-view-shown]', WAIT);
    return page;
  }
  const press = (page: Page, selector: string) => (page.viewportSize()?.width === NARROW.width ? page.tap(selector) : page.click(selector));
  const tile = (cellId: number) => `[data-positions] [data-cell-id="${cellId}"]`;
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `console-technician-${name}.png`), fullPage: true });

  /** Choose a purpose and confirm; the dialog closes. */
  async function confirmWith(page: Page, purpose: string, note?: string): Promise<void> {
    await press(page, `[data-dialog="cell"] input[name="purpose"][value="${purpose}"]`);
    if (note) await page.fill('[data-dialog="cell"] textarea[name="note"]', note);
    await press(page, '[data-dialog="cell"] [data-action="confirm"]');
    await page.waitForSelector('[data-dialog="cell"]', { state: 'detached', ...WAIT });
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo(loadDemoSettings({}, { ...FREE_PORTS, dataDir: join(dir, 'data'), fleetFile: threeColumnFleet(dir) }), { logger: pino({ level: 'silent' }) });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const lang of ['en', 'ru'] as const) {
    for (const size of [WIDE, NARROW]) {
      it(`${lang}, ${size.width} px: the cells stand where they are on the front; a tap opens one dialog with the actions and the preset purposes`, async () => {
        const page = await lockerPage(OPERATOR_KEY, lang, size);
        try {
          // A phone shows the cells by position at once; a desk screen the list, one tap from it.
          if (size.width === NARROW.width) {
            await page.waitForSelector('[data-view-shown="positions"] [data-positions]', WAIT);
          } else {
            await page.waitForSelector('[data-view-shown="list"] [data-grid]', WAIT);
            expect((await page.textContent('[data-view="positions"]'))?.trim()).toBe(TEXTS[lang].positions);
            await page.click('[data-view="positions"]');
            await page.waitForSelector('[data-view-shown="positions"] [data-positions]', WAIT);
          }
          expect(await page.getAttribute('[data-view="positions"]', 'aria-pressed')).toBe('true');

          // Columns left to right, each its cells top to bottom, as the boards and locks say.
          const drawn = await page.$$eval('[data-pos-column]', (cols) =>
            cols
              .map((c) => ({ x: c.getBoundingClientRect().left, column: Number(c.getAttribute('data-pos-column')), tiles: [...c.querySelectorAll('[data-cell-id]')] }))
              .sort((a, b) => a.x - b.x)
              .map((c) => ({
                column: c.column,
                cells: c.tiles
                  .map((t) => ({ id: Number(t.getAttribute('data-cell-id')), y: t.getBoundingClientRect().top, row: Number(t.getAttribute('data-row')), height: t.getBoundingClientRect().height }))
                  .sort((a, b) => a.y - b.y),
              })),
          );
          expect(drawn.map((c) => c.column)).toEqual([1, 2, 3]);
          expect(drawn.map((c) => c.cells.map((t) => t.id))).toEqual(BOARDS.map(([, ids]) => ids));
          expect(drawn[1]!.cells[2]!.id).toBe(COLUMN_2_ROW_3);
          expect(drawn.flatMap((c) => c.cells.map((t) => t.row))).toEqual(BOARDS.flatMap(([, ids]) => ids.map((_, i) => i + 1)));
          // The API places them alike.
          const grid = (await op(`/lockers/${LOCKER}`)).grid as { cellId: number; column: number; row: number }[];
          expect(grid.find((c) => c.column === 2 && c.row === 3)?.cellId).toBe(COLUMN_2_ROW_3);
          // Every tile is a comfortable touch target; the blocked cell (the fleet file's) says so in words.
          expect(Math.min(...drawn.flatMap((c) => c.cells.map((t) => t.height)))).toBeGreaterThanOrEqual(44);
          expect(await page.textContent(`${tile(16)} .pos-state`)).toContain(TEXTS[lang].blocked);

          expect(await axeViolations(page), `positions ${lang} ${size.width}`).toEqual([]);
          expect(await noSidewaysScroll(page), `positions ${lang} ${size.width}`).toBe(true);
          await shot(page, `positions-${lang}-${size.width}`);

          // A tap opens the cell's dialog: its actions, each a big target, the focus on the first.
          await press(page, tile(COLUMN_2_ROW_3));
          const dialog = await page.waitForSelector(`[data-dialog="cell"][data-cell="${COLUMN_2_ROW_3}"][role="dialog"][aria-modal="true"]`, WAIT);
          await page.waitForSelector('[data-dialog="cell"] [data-action="open-cell"]:focus', WAIT);
          expect(await page.$$eval('[data-dialog="cell"] [data-step="actions"] [data-action]', (bs) => bs.map((b) => b.getAttribute('data-action')))).toEqual(['open-cell', 'block']);
          const targets = await page.$$eval('[data-dialog="cell"] button', (bs) => bs.map((b) => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height)));
          expect(Math.min(...targets)).toBeGreaterThanOrEqual(44);
          expect(await axeViolations(page), `cell dialog ${lang} ${size.width}`).toEqual([]);
          expect(await noSidewaysScroll(page), `cell dialog ${lang} ${size.width}`).toBe(true);

          // The action asks its purpose from the preset list, in the page's language.
          await press(page, '[data-dialog="cell"] [data-action="open-cell"]');
          await page.waitForSelector('[data-dialog="cell"] [data-step="reason"] input[name="purpose"]:focus', WAIT);
          const purposes = await page.$$eval('[data-dialog="cell"] label.purpose', (ls) => ls.map((l) => l.textContent?.trim()));
          expect(purposes).toEqual(TEXTS[lang].purposes);
          const radios = await page.$$eval('[data-dialog="cell"] label.purpose', (ls) => ls.map((l) => l.getBoundingClientRect().height));
          expect(Math.min(...radios)).toBeGreaterThanOrEqual(44);
          expect(await axeViolations(page), `reason ${lang} ${size.width}`).toEqual([]);
          expect(await noSidewaysScroll(page), `reason ${lang} ${size.width}`).toBe(true);
          await shot(page, `dialog-${lang}-${size.width}`);

          // The focus stays inside; Esc closes the dialog (nothing sent) and gives the focus back to the cell.
          for (let i = 0; i < 10; i += 1) {
            await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
            expect(await dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement))).toBe(true);
          }
          await page.keyboard.press('Escape');
          await page.waitForSelector('[data-dialog="cell"]', { state: 'detached', ...WAIT });
          await page.waitForSelector(`${tile(COLUMN_2_ROW_3)}:focus`, WAIT);
        } finally {
          await page.context().close();
        }
      });
    }
  }

  it('an open from the phone sends the purpose and the note, the audit keeps the note, and the door reaches the page live', async () => {
    const note = 'door sticks, checked the hinge';
    const page = await lockerPage(OPERATOR_KEY, 'en', NARROW);
    try {
      await page.waitForSelector('[data-live="on"]', WAIT);
      await press(page, tile(COLUMN_2_ROW_3));
      await press(page, '[data-dialog="cell"] [data-action="open-cell"]');
      // Confirming without a purpose asks for one.
      await press(page, '[data-dialog="cell"] [data-action="confirm"]');
      expect(await (await page.waitForSelector('[data-dialog="cell"] [role="alert"]', WAIT)).textContent()).toBe('Choose the purpose.');
      await confirmWith(page, 'maintenance', note);

      const opened = await eventually(async () => {
        const a = await op(`/audit?action=cell.open&lockerId=${LOCKER}`);
        return a.items.length > 0 ? a.items[0] : null;
      }, 'the open in the audit');
      expect(opened).toMatchObject({ operator: 'ops', target: `locker:${LOCKER}/cell:${COLUMN_2_ROW_3}`, reason: 'maintenance', note });
      // The locker opens the door and says so; shut again at the locker.
      await eventually(async () => {
        const facts = (await op(`/lockers/${LOCKER}/alerts?include=history`)).items as { kind: string; cellId: number | null; detail: { outcome?: string } }[];
        return facts.some((f) => f.kind === 'cell.open' && f.cellId === COLUMN_2_ROW_3 && f.detail?.outcome === 'opened') || null;
      }, 'the locker reporting the door opened');
      expect((await sim('/doors/close', locker().lockOf(COLUMN_2_ROW_3))).status).toBe(200);
      // A door pulled open at the locker (another cell) reaches its tile through the stream, without a reload, in words.
      const pulled = 8;
      await page.evaluate('window.stayed = true');
      expect((await sim('/doors/open', locker().lockOf(pulled))).status).toBe(200);
      await page.waitForSelector(`${tile(pulled)}[data-door="open"]`, WAIT);
      expect(await page.textContent(`${tile(pulled)} .pos-door`)).toContain('door open');
      expect(await page.evaluate('window.stayed')).toBe(true);
      await shot(page, 'door-open');
      expect((await sim('/doors/close', locker().lockOf(pulled))).status).toBe(200);
      await page.waitForSelector(`${tile(pulled)}[data-door="closed"]`, WAIT);

      // The audit page shows the purpose and the note.
      await page.evaluate(`location.hash = ${JSON.stringify(`#/audit?lockerId=${LOCKER}&action=cell.open`)}`);
      const row = `tr[data-audit-id="${opened.id}"]`;
      await page.waitForSelector(row, WAIT);
      expect(await page.textContent(`${row} [data-audit-reason]`)).toBe('maintenance');
      expect(await page.textContent(`${row} [data-audit-note]`)).toBe(note);
    } finally {
      await page.context().close();
    }
  });

  it('blocking with a purpose shows on the cell who blocked it, why and when; unblocking and clearing a fault flag after inspection', async () => {
    const cellId = 10;
    const note = 'glass cracked';
    const page = await lockerPage(OPERATOR_KEY, 'ru', NARROW);
    try {
      await press(page, tile(cellId));
      await press(page, '[data-dialog="cell"] [data-action="block"]');
      await confirmWith(page, 'inventory', note);
      await page.waitForSelector(`${tile(cellId)}[data-kind="blocked"]`, WAIT);
      expect(await page.textContent(`${tile(cellId)} .pos-state`)).toContain('заблокирована');
      const grid = (await op(`/lockers/${LOCKER}`)).grid as { cellId: number; flagMarks: { setAt: string }[] }[];
      expect(grid.find((c) => c.cellId === cellId)).toMatchObject({ state: 'blocked', flagMarks: [{ flag: 'blocked', setBy: 'ops', reason: 'inventory', note }] });

      // The cell's dialog: who (ops), why (the purpose in words, the note) and when.
      await press(page, tile(cellId));
      const mark = await page.waitForSelector('[data-dialog="cell"] [data-flag="blocked"] [data-flag-mark="ops"]', WAIT);
      const text = (await mark.textContent()) ?? '';
      expect(text).toContain('ops');
      expect(text).toContain('инвентаризация');
      expect(text).toContain(note);
      expect(text).toMatch(/назад/);
      expect(await mark.$eval('[title]', (e) => e.getAttribute('title'))).toMatch(/\d{2}:\d{2}/);
      await shot(page, 'blocked');
      expect(await page.$$eval('[data-dialog="cell"] [data-step="actions"] [data-action]', (bs) => bs.map((b) => b.getAttribute('data-action')))).toEqual(['open-cell', 'unblock']);
      await press(page, '[data-dialog="cell"] [data-action="unblock"]');
      await confirmWith(page, 'other');
      await page.waitForSelector(`${tile(cellId)}[data-kind="free"]`, WAIT);

      // A fault flag (as the locker or an operator sets one) shows in words; cleared after inspection.
      const set = await call('PUT', `${demo.apiUrl}/operator/postamats/${LOCKER}/cells/${cellId}/flags`, { 'x-operator-api-key': OPERATOR_KEY }, { faulty: true, reason: 'lock clicks, no opening' });
      expect(set.status).toBe(200);
      await page.waitForSelector(`${tile(cellId)}[data-kind="faulty"]`, WAIT);
      expect(await page.textContent(`${tile(cellId)} .pos-state`)).toContain('неисправна');
      await press(page, tile(cellId));
      await press(page, '[data-dialog="cell"] [data-action="inspection-done"]');
      await confirmWith(page, 'maintenance', 'lock replaced');
      await page.waitForSelector(`${tile(cellId)}[data-kind="free"]`, WAIT);
      const cleared = await op(`/audit?action=cell.flags&lockerId=${LOCKER}`);
      expect(cleared.items[0]).toMatchObject({ operator: 'ops', reason: 'maintenance', note: 'lock replaced' });
    } finally {
      await page.context().close();
    }
  });

  it('a viewer sees the cells and each cell\'s dialog, but no action; a link to a cell opens its dialog', async () => {
    const page = await lockerPage(VIEWER_KEY, 'en', NARROW);
    try {
      await press(page, tile(16));
      await page.waitForSelector('[data-dialog="cell"] [data-action="close"]:focus', WAIT);
      expect(await page.$$eval('[data-dialog="cell"] [data-action]', (bs) => bs.map((b) => b.getAttribute('data-action')))).toEqual(['close']);
      expect(await axeViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-dialog="cell"]', { state: 'detached', ...WAIT });
      // A link to a cell (as the audit's target gives) opens its dialog.
      await page.evaluate(`location.hash = '#/fleet'`);
      await page.waitForSelector('main[data-screen="fleet"]', WAIT);
      await page.evaluate(`location.hash = ${JSON.stringify(`#/lockers/${LOCKER}?cell=16`)}`);
      await page.waitForSelector('[data-dialog="cell"][data-cell="16"] [data-flag="blocked"]', WAIT);
    } finally {
      await page.context().close();
    }
  });

  it('the pages reported no script error, refused resource or policy violation', () => {
    expect(problems).toEqual([]);
  });
});
