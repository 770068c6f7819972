/**
 * The console's Updates screen in headless Chromium against a cloud that trusts a test signing
 * key: a release signed with that key is uploaded and rolled out through the API, then the screen
 * is checked against the API it reads (releases, rollouts with their waves, each locker's state,
 * each locker's agent version). Pause, resume and abort go through the reason dialog, which takes
 * the focus, keeps it and closes on Esc; a viewer sees no action and the API refuses one (403).
 * axe-core finds no serious or critical violation at 1366 and 390 px, in English and Russian (on
 * the orders screen's list of parcels whose storage ends today too), and
 * the page never scrolls sideways at 390 px. Screenshots go to artifacts/screens/console-updates-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NARROW, WIDE, axeViolations as axeOf, noSidewaysScroll as sidewaysFree } from '../helpers/axe.js';
import { chromiumPath, requires } from '../helpers/requirements.js';
import { OPERATOR_KEY, VIEWER_KEY, openUpdateWorld, type Json, type UpdateWorld } from '../updates/rig.js';

const SHOTS = join(process.cwd(), 'artifacts', 'screens');
const WAIT = { timeout: 30_000 };
const SIZES = [WIDE, NARROW];

/** A tiny agent build: enough for a signed release the cloud accepts (it never runs here). */
function tinyBuild(dir: string): string {
  const build = join(dir, 'build');
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, 'main.js'), 'console.log("agent")\n');
  return build;
}

describe.runIf(requires('chromium'))('the console Updates screen (Chromium)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'updates-screen-'));
  let world: UpdateWorld;
  let browser: Browser;
  let page: Page;
  let rollout: Json;
  const problems: string[] = [];

  const go = async (hash: string, screen: string) => {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
    await page.waitForSelector(`main[data-screen="${screen}"]`, WAIT);
  };
  const signIn = async (key: string) => {
    await page.goto(`${world.cloud.url}/`);
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await page.fill('#operator-key', key);
    await page.click('[data-action="sign-in"]');
    await page.waitForSelector('header .who', WAIT);
  };
  const axeViolations = () => axeOf(page);
  const noSidewaysScroll = () => sidewaysFree(page);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const build = tinyBuild(dir);
    world = await openUpdateWorld({ lockers: 4, build, factory: (s) => s.sign(build, '1.0.0') });
    const releaseId = await world.upload(await world.signer.sign(build, '1.1.0', ['--notes', 'Board firmware quirk']));
    const created = await world.api('POST', '/operator/rollouts', {
      releaseId,
      target: { kind: 'lockers', lockerIds: world.lockerIds },
      waves: [25, 100],
      soakSeconds: 60,
      reason: 'console test',
    });
    expect(created.status).toBe(201);
    rollout = created.body;
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    page = await (await browser.newContext({ viewport: WIDE, locale: 'en-GB' })).newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      const path = new URL(res.url()).pathname;
      if (res.status() >= 400 && !(res.status() === 401 && path === '/operator/session')) problems.push(`HTTP ${res.status()} ${res.request().method()} ${path}`);
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the releases, the rollouts and the agent versions as the API has them', async () => {
    await signIn(OPERATOR_KEY);
    await page.click('[data-nav="updates"]');
    await page.waitForSelector('main[data-screen="updates"]', WAIT);
    const [releases, rollouts, agents] = await Promise.all(['/operator/releases', '/operator/rollouts', '/operator/agents'].map(async (p) => (await world.api('GET', p)).body));
    await page.waitForSelector(`table[data-releases="${releases.total}"]`, WAIT);
    await page.waitForSelector(`table[data-rollouts="${rollouts.total}"]`, WAIT);
    await page.waitForSelector(`table[data-agents="${agents.total}"]`, WAIT);
    expect(await page.$$eval('tr[data-release-id]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-release-id'))))).toEqual(releases.items.map((r: Json) => r.id));
    expect(await page.textContent(`tr[data-rollout-id="${rollout.id}"]`)).toContain('1.1.0');
    expect(await page.$$eval('tr[data-agent-locker]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-agent-locker'))))).toEqual(agents.items.map((a: Json) => a.lockerId));
  });

  it("one rollout: its waves and each locker's state as the API lists them", async () => {
    await page.click(`tr[data-rollout-id="${rollout.id}"] a`);
    await page.waitForSelector(`main[data-screen="rollout"][data-rollout-id="${rollout.id}"] ol.waves`, WAIT);
    const members = (await world.api('GET', `/operator/rollouts/${rollout.id}/lockers`)).body;
    await page.waitForSelector(`table[data-members="${members.total}"]`, WAIT);
    expect(await page.$$eval('tr[data-member]', (trs) => trs.map((tr) => ({ id: Number(tr.getAttribute('data-member')), state: tr.getAttribute('data-state') })))).toEqual(
      members.items.map((m: Json) => ({ id: m.lockerId, state: m.state })),
    );
    expect(await page.$$('ol.waves li[data-wave]')).toHaveLength(rollout.lockers.waves.length);
  });

  it('pause, resume and abort ask why in a dialog that takes and keeps the focus and closes on Esc', async () => {
    await page.click('[data-action="pause"]');
    const dialog = await page.waitForSelector('[data-dialog="reason"][role="dialog"][aria-labelledby]', WAIT);
    // The focus moves in once the dialog has rendered.
    await page.waitForSelector('[data-dialog="reason"] [name="reason"]:focus', WAIT);
    // Tab never leaves the dialog.
    for (let i = 0; i < 5; i += 1) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement))).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await dialog.evaluate((d) => d.contains(d.ownerDocument.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
    expect((await world.rollout(rollout.id)).state).toBe('running');

    for (const [action, state] of [['pause', 'paused'], ['resume', 'running'], ['abort', 'aborted']] as const) {
      await page.click(`[data-action="${action}"]`);
      await page.fill('[data-dialog="reason"] textarea[name="reason"]', `console ${action}`);
      await page.click('[data-dialog="reason"] [data-action="confirm"]');
      await page.waitForSelector(`[data-rollout-state="${state}"]`, WAIT);
      expect((await world.rollout(rollout.id)).state).toBe(state);
    }
    expect(await page.$$('[data-action="pause"], [data-action="resume"], [data-action="abort"]')).toEqual([]);
    // A signed rollback release exists, but no locker of this rollout switched: nothing to take back.
    await world.upload(await world.signer.sign(tinyBuild(dir), '1.0.1', ['--rollback-from', '1.1.0']));
    await page.reload();
    await page.waitForSelector(`[data-rollout-state="aborted"]`, WAIT);
    expect(await page.$$('[data-action="rollback"]')).toEqual([]);
    const audit = (await world.api('GET', '/operator/audit')).body;
    expect(JSON.stringify(audit)).toContain('console abort');
  });

  it('no serious accessibility violation and no sideways scroll, at 1366 and 390 px, in English and Russian', async () => {
    // A second rollout, so the screens show one that can still be acted on.
    const again = await world.api('POST', '/operator/rollouts', { releaseId: rollout.release.id, target: { kind: 'all' }, reason: 'console test again' });
    expect(again.status).toBe(201);
    for (const lang of ['en', 'ru']) {
      await page.click(`header [data-lang="${lang}"]`);
      await page.waitForSelector(`html[lang="${lang}"]`, WAIT);
      for (const size of SIZES) {
        await page.setViewportSize(size);
        for (const [hash, screen, ready] of [
          // The orders screen's parcels whose storage ends today (none in this world: the count the API gives).
          ['#/orders', 'orders', `table[data-ending-today="${(await world.api('GET', '/operator/orders/storage-ending-today')).body.total}"]`],
          // The fleet's overview: the sandbox section shows only when the overview counts sandbox lockers.
          ['#/fleet', 'fleet', (await world.api('GET', '/operator/overview')).body.sandbox.lockers.total > 0 ? '[data-sandbox-overview]' : '[data-overview]'],
          ['#/updates', 'updates', 'table[data-agents]'],
          // Last: the reason dialog below is opened on it.
          [`#/updates/${again.body.id}`, 'rollout', 'table[data-members]'],
        ] as const) {
          await go(hash, screen);
          await page.waitForSelector(ready, WAIT);
          expect(await axeViolations(), `${screen} ${lang} ${size.width}`).toEqual([]);
          expect(await noSidewaysScroll(), `${screen} ${lang} ${size.width}`).toBe(true);
          await page.screenshot({ path: join(SHOTS, `console-updates-${screen}-${lang}-${size.width}.png`), fullPage: true });
        }
        // The reason dialog too.
        await page.click('[data-action="pause"]');
        await page.waitForSelector('[data-dialog="reason"]', WAIT);
        expect(await axeViolations(), `dialog ${lang} ${size.width}`).toEqual([]);
        expect(await noSidewaysScroll(), `dialog ${lang} ${size.width}`).toBe(true);
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-dialog="reason"]', { state: 'detached', ...WAIT });
      }
    }
    await page.click('header [data-lang="en"]');
    await page.setViewportSize(WIDE);
  });

  it('a viewer sees no action, and the API refuses one with 403', async () => {
    await page.click('[data-action="sign-out"]');
    await page.waitForSelector('main[data-screen="signin"]', WAIT);
    await signIn(VIEWER_KEY);
    const running = (await world.api('GET', '/operator/rollouts?state=running')).body.items[0];
    await go(`#/updates/${running.id}`, 'rollout');
    await page.waitForSelector('table[data-members]', WAIT);
    expect(await page.$$('[data-action="pause"], [data-action="resume"], [data-action="abort"]')).toEqual([]);
    for (const action of ['pause', 'resume', 'abort']) {
      const refused = await world.api('POST', `/operator/rollouts/${running.id}/${action}`, { reason: 'viewer tries' }, true);
      expect(refused.status, action).toBe(403);
      expect(refused.body).toMatchObject({ resultCode: 5 });
    }
    expect((await world.rollout(running.id)).state).toBe('running');
  });

  it('the page reported no script error or refused request', () => {
    expect(problems).toEqual([]);
  });
});
