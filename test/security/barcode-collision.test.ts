/**
 * Barcodes are unique only within one marketplace. Marketplace B creating an order with a barcode
 * marketplace A already uses at the same locker must neither capture A's parcel at the locker nor
 * learn anything from the cloud's answers.
 *
 * - At the locker (agent + simulator, the screen's JSON API): a courier's scan resolves only to
 *   parcels of the courier's marketplaces, by own and by additional barcodes alike; where several
 *   of them still match, the screen asks, and the operator gets an alert in the cloud.
 * - In the cloud (real HTTP): B's answers are the same whether A uses the barcode or another one.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterEach, beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventBody } from '../../shared/src/protocol.js';
import { eventBodies, cell, grant, lockerConfig, order, parcel, NOON } from '../agent/fixtures.js';
import { simCell, startHarness, type Harness } from '../agent/harness.js';
import { KEYS, orderBody, routeBody } from '../cloud/helpers/fleet-fixtures.js';
import { startTestCloud, type Answer, type TestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';
import { chromiumPath, requires } from '../helpers/requirements.js';
import { startFactsCloud, type FactsCloud } from '../locker-events/facts-cloud.js';

const HOUR = 3_600_000;
const CELLS = [cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L'), cell(4, 4, 'S')];
const ONLY_A = '111111';
const BOTH = '222222';
const SHOTS = join(process.cwd(), 'artifacts', 'screens');

/**
 * B's order `o1` sorts before A's `o2`, so a locker that took the first order answering to the
 * barcode would give A's parcel to B.
 */
async function lockerWithCollision(extra: { a?: Parameters<typeof parcel>[1]; b?: Parameters<typeof parcel>[1] } = {}): Promise<Harness> {
  const h = await startHarness();
  h.send(
    { type: 'locker.config', config: lockerConfig(CELLS) },
    { type: 'courier.grant', grant: grant('g-a', ONLY_A, NOON + 6 * HOUR, { marketplaceIds: ['mp-a'] }) },
    { type: 'courier.grant', grant: grant('g-ab', BOTH, NOON + 6 * HOUR, { marketplaceIds: ['mp-a', 'mp-b'] }) },
    { type: 'order.upsert', order: order('o2', [parcel('X', { cellId: 4, ...extra.a })], { marketplaceId: 'mp-a', number: 'A-100' }) },
    { type: 'order.upsert', order: order('o1', [parcel('X', { cellId: 1, ...extra.b })], { marketplaceId: 'mp-b', number: 'B-200' }) },
  );
  return h;
}

async function signIn(h: Harness, code: string) {
  await h.post('/api/choose', { kind: 'courier' });
  const s = await h.post('/api/code', { kind: 'courier', code });
  expect(s.view).toEqual({ screen: 'courier', notice: null });
}

/** Scans through the simulator's scanner (real bytes) and waits for the screen to answer. */
async function scan(h: Harness, barcode: string) {
  await h.sim.scan(barcode);
  return h.until((s) => !s.busy && (s.view.screen === 'load_open' || s.view.screen === 'load_choice' || s.error !== null), `the scan of ${barcode}`);
}

async function closeAndCommit(h: Harness, cellId: number, barcode: string) {
  h.sim.closeDoor(simCell(h.agent.store.cells.get(cellId)!.lock));
  await h.until((s) => s.view.screen === 'courier' && s.view.notice?.kind === 'loaded' && s.view.notice.barcode === barcode, `the load of ${barcode}`);
}

const ambiguous = (h: Harness) => (eventBodies(h.agent.store) as EventBody[]).filter((e) => e.type === 'barcode.ambiguous');

describe('a barcode two marketplaces use at one locker (agent, simulator, screen API)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.stop();
    h = undefined;
  });

  it("a courier granted only for A loads A's parcel into A's order, never into B's", async () => {
    h = await lockerWithCollision();
    await signIn(h, ONLY_A);
    const open = await scan(h, 'X');
    expect(open.error).toBeNull();
    expect(open.view).toMatchObject({ screen: 'load_open', orderId: 'o2', cellId: 4, barcode: 'X' });
    expect(h.sim.pulses(simCell(1))).toBe(0);
    await closeAndCommit(h, 4, 'X');
    expect(h.agent.store.parcels.get('o2', 'X')).toMatchObject({ cellId: 4, state: 'in_cell', loadedBy: 'g-a' });
    expect(h.agent.store.parcels.get('o1', 'X')).toBeNull();
    expect(eventBodies(h.agent.store)).toEqual([
      { type: 'code.attempt', kind: 'courier', ok: true },
      { type: 'parcel.loaded', orderId: 'o2', barcode: 'X', cellId: 4, grantId: 'g-a' },
    ]);
    // A's parcel is in; B's order with the same barcode is no parcel of this courier's.
    expect((await h.post('/api/scan', { barcode: 'X' })).error).toEqual({ code: 'already_loaded', cellId: 4 });
  });

  it('additional barcodes follow the same rule, whichever side uses the barcode as its own', async () => {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig(CELLS) },
      { type: 'courier.grant', grant: grant('g-a', ONLY_A, NOON + 6 * HOUR, { marketplaceIds: ['mp-a'] }) },
      // A's additional barcode is B's own barcode ...
      { type: 'order.upsert', order: order('o2', [parcel('A-1', { additionalBarcodes: ['Y'], cellId: 4 })], { marketplaceId: 'mp-a' }) },
      { type: 'order.upsert', order: order('o1', [parcel('Y', { cellId: 1 })], { marketplaceId: 'mp-b' }) },
      // ... and A's own barcode is B's additional one.
      { type: 'order.upsert', order: order('o4', [parcel('Z', { cellId: 2 })], { marketplaceId: 'mp-a' }) },
      { type: 'order.upsert', order: order('o3', [parcel('B-3', { additionalBarcodes: ['Z'], cellId: 3 })], { marketplaceId: 'mp-b' }) },
    );
    await signIn(h, ONLY_A);
    const first = await scan(h, 'Y');
    expect(first.view).toMatchObject({ screen: 'load_open', orderId: 'o2', cellId: 4, barcode: 'A-1' });
    await closeAndCommit(h, 4, 'A-1');
    const second = await scan(h, 'Z');
    expect(second.view).toMatchObject({ screen: 'load_open', orderId: 'o4', cellId: 2, barcode: 'Z' });
    await closeAndCommit(h, 2, 'Z');
    expect(h.agent.store.parcels.all().map((f) => [f.orderId, f.barcode, f.cellId])).toEqual([
      ['o2', 'A-1', 4],
      ['o4', 'Z', 2],
    ]);
    expect(h.sim.pulses(simCell(1)) + h.sim.pulses(simCell(3))).toBe(0);
    expect(ambiguous(h)).toEqual([]);
  });

  it('a courier granted for both is asked to choose, nothing opens until then, and the operator is told', async () => {
    h = await lockerWithCollision();
    await signIn(h, BOTH);
    const choice = await scan(h, 'X');
    expect(choice.error).toBeNull();
    expect(choice.view).toEqual({
      screen: 'load_choice',
      barcode: 'X',
      candidates: [
        { orderId: 'o1', externalId: 'ext-o1', number: 'B-200', marketplaceId: 'mp-b' },
        { orderId: 'o2', externalId: 'ext-o2', number: 'A-100', marketplaceId: 'mp-a' },
      ],
    });
    expect(h.sim.pulses(simCell(1)) + h.sim.pulses(simCell(4))).toBe(0);
    expect(h.agent.store.journal.all()).toEqual([]);
    expect(ambiguous(h)).toEqual([{ type: 'barcode.ambiguous', orderIds: ['o1', 'o2'], grantId: 'g-ab' }]);

    // An order the screen did not offer is refused; the choice stays.
    const wrong = await h.post('/api/choose-order', { orderId: 'o-other' });
    expect(wrong.error).toEqual({ code: 'not_a_candidate' });
    expect(wrong.view.screen).toBe('load_choice');
    expect((await h.postRaw('/api/choose-order', {})).status).toBe(400);
    // Back leaves the choice without loading anything.
    expect((await h.post('/api/back')).view).toEqual({ screen: 'courier', notice: null });

    // Scanned again (a second alert), the courier picks A's order: A's reserved cell opens.
    await scan(h, 'X');
    const open = await h.post('/api/choose-order', { orderId: 'o2' });
    expect(open.view).toMatchObject({ screen: 'load_open', orderId: 'o2', cellId: 4, barcode: 'X' });
    await closeAndCommit(h, 4, 'X');
    expect(h.agent.store.parcels.get('o2', 'X')).toMatchObject({ cellId: 4, loadedBy: 'g-ab' });
    expect(ambiguous(h)).toHaveLength(2);

    // A's parcel is in its cell, so the only parcel of that barcode the courier can hold is B's.
    const next = await scan(h, 'X');
    expect(next.view).toMatchObject({ screen: 'load_open', orderId: 'o1', cellId: 1 });
    await closeAndCommit(h, 1, 'X');
    expect(ambiguous(h)).toHaveLength(2);
  });

  it('asks only when one of the parcels could be loaded, even if the other is cancelled', async () => {
    // Both cancelled: whichever the courier holds, it cannot be loaded; nothing is asked.
    h = await lockerWithCollision({ a: { state: 'cancelled' }, b: { state: 'cancelled' } });
    await signIn(h, BOTH);
    const refused = await scan(h, 'X');
    expect(refused.view).toEqual({ screen: 'courier', notice: null });
    expect(refused.error).toEqual({ code: 'not_loadable' });
    expect(ambiguous(h)).toEqual([]);
    // B's cancelled, A's pending: the courier may be holding B's cancelled parcel, so the locker asks;
    // picking B's order then refuses, and no door opened.
    h.send({ type: 'order.upsert', order: order('o2', [parcel('X', { cellId: 4 })], { marketplaceId: 'mp-a', number: 'A-100' }) });
    const choice = await scan(h, 'X');
    expect(choice.view).toMatchObject({ screen: 'load_choice', candidates: [{ orderId: 'o1' }, { orderId: 'o2' }] });
    const picked = await h.post('/api/choose-order', { orderId: 'o1' });
    expect(picked.error).toEqual({ code: 'not_loadable' });
    expect(picked.view).toEqual({ screen: 'courier', notice: null });
    expect(h.sim.pulses(simCell(1)) + h.sim.pulses(simCell(4))).toBe(0);
  });
});

describe.runIf(requires('chromium'))('the choice on the locker page (Chromium)', () => {
  let h: Harness | undefined;
  let browser: Browser | undefined;
  afterEach(async () => {
    await browser?.close();
    await h?.stop();
    h = undefined;
    browser = undefined;
  });

  it('shows the candidate orders; tapping the one on the label opens its cell', async () => {
    h = await lockerWithCollision();
    browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(h.agent.screenUrl);
    await page.waitForSelector('#app[data-screen="start"]');
    await page.click('[data-lang="en"]');
    await page.waitForSelector('html[lang="en"]');
    await page.click('[data-action="courier"]');
    for (const d of BOTH) await page.click(`[data-key="${d}"]`);
    await page.click('[data-action="submit"]');
    await page.waitForSelector('#app[data-screen="courier"]');
    await page.fill('#barcode', 'X');
    await page.click('[data-action="scan"]');
    await page.waitForSelector('#app[data-screen="load_choice"]');
    await expect(page.textContent('[data-order-id="o2"]')).resolves.toContain('Order A-100');
    await expect(page.textContent('[data-order-id="o1"]')).resolves.toContain('Order B-200');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'barcode-choice.png') });
    await page.click('[data-order-id="o2"]');
    await page.waitForSelector('#app[data-screen="load_open"]');
    await expect(page.textContent('.cell-badge')).resolves.toBe('4');
  });
});

describe.each(testEngines())('the alert reaches the operator (%s)', (engine) => {
  let fc: FactsCloud;
  let h: Harness | undefined;
  beforeEach(async () => {
    fc = await startFactsCloud(engine);
  });
  afterEach(async () => {
    await h?.stop();
    h = undefined;
    await fc.stop();
  });

  it("the locker's barcode.ambiguous is a warning with the order ids, without barcodes or personal data", async () => {
    h = await lockerWithCollision();
    await signIn(h, BOTH);
    await scan(h, 'X');
    const [event] = ambiguous(h);
    expect(event).toBeDefined();
    await fc.fact(1, event!);
    const alerts = await fc.call('GET', '/operator/alerts?postamatId=1&severity=warning', { operatorKey: KEYS.operator });
    expect(alerts.status).toBe(200);
    expect(alerts.body.alerts).toMatchObject([{ kind: 'barcode.ambiguous', severity: 'warning', cellId: null, detail: { orderIds: ['o1', 'o2'], grantId: 'g-ab' } }]);
    expect(JSON.stringify(alerts.body)).not.toContain('"X"');
  });
});

const SMART = '/api/v4/auth/delivery/smartorder/create';
const CREATE = '/api/v4/auth/delivery/order/create';
const UPDATE = '/api/v4/auth/delivery/order/update';
const CANCEL = '/api/v4/auth/delivery/order/place/cancel';
const DETAIL = '/api/v4/auth/delivery/order/detail';
const ROUTE = '/api/v1/auth/couriers/courier-with-route';

describe.each(testEngines())("the cloud's answers to B do not depend on A's barcodes (%s)", (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());

  /**
   * A's orders at locker 1 use `own` as a parcel's barcode and `extra` as an additional one; then
   * B works with the barcodes X and X2 through every operation that looks a barcode up. Returns
   * B's answers, in order.
   */
  async function run(own: string, extra: string): Promise<Answer[]> {
    await tc.reset();
    const a = { key: KEYS.shopA };
    const b = { key: KEYS.shopB };
    const small = { length: 300, width: 200, height: 80 };
    const aCreated = await tc.call('PUT', SMART, {
      ...a,
      body: orderBody('A-1', { parcels: [{ barcode: own, additionalBarcodes: [extra], dimension: small }, { barcode: 'A-ONLY', dimension: small }] }),
    });
    expect(aCreated.status).toBe(200);
    expect((await tc.call('PUT', CREATE, { ...a, body: orderBody('A-2', { parcels: [{ barcode: extra, dimension: small }] }) })).status).toBe(200);
    const code = (await tc.call('PUT', ROUTE, { partnerKey: KEYS.partner, body: routeBody({}, { postamatIds: [1] }) })).body.postamatAccessCode as string;

    const answers: Answer[] = [];
    const say = async (method: string, path: string, body: unknown) => {
      answers.push(await tc.call(method, path, { ...b, body }));
    };
    await say('PUT', SMART, orderBody('B-1', { parcels: [{ barcode: 'X', additionalBarcodes: ['X2'], dimension: small }] }));
    await say('PUT', CREATE, orderBody('B-2', { parcels: [{ barcode: 'X2', dimension: small }] }));
    // Repeating a create answers the stored answer.
    await say('PUT', SMART, orderBody('B-1', { parcels: [{ barcode: 'X', additionalBarcodes: ['X2'], dimension: small }] }));
    await say('POST', DETAIL, { barcode: 'X', courierExternalId: 'courier-1' });
    await say('POST', DETAIL, { barcode: 'X2', postamatAccessCode: code });
    await say('POST', DETAIL, { barcode: 'A-ONLY', courierExternalId: 'courier-1' });
    await say('PUT', UPDATE, { externalId: 'B-1', parcels: [{ barcode: 'X', additionalBarcodes: ['X2'], dimension: { length: 300, width: 250, height: 150 } }] });
    await say('PUT', CANCEL, { extId: 'A-1', barcode: 'X' });
    await say('PUT', CANCEL, { extId: 'B-1', barcode: 'X' });
    await say('PUT', CANCEL, { extId: 'B-1', barcode: 'X' });
    await say('POST', DETAIL, { barcode: 'X', postamatAccessCode: code });
    await say('PUT', CANCEL, { extId: 'B-2', barcode: 'X2' });
    await say('PUT', CANCEL, { extId: 'B-2', barcode: 'A-ONLY' });

    // A is not disturbed by B either.
    const aDetail = await tc.call('POST', DETAIL, { ...a, body: { barcode: own, courierExternalId: 'courier-1' } });
    expect(aDetail.body).toMatchObject({ orderNumber: 'A-1' });
    return answers;
  }

  it('create, repeat, detail, update and cancel answer B alike whether A uses X and X2 or other barcodes', async () => {
    const colliding = await run('X', 'X2');
    const apart = await run('A-X', 'A-X2');
    expect(colliding).toEqual(apart);
    // And they are B's own answers: its orders were created and found.
    expect(colliding[0]).toMatchObject({ status: 200, body: { reserved: [{ externalId: 'B-1', barcodes: ['X'] }] } });
    expect(colliding[1]).toMatchObject({ status: 200, body: { externalId: 'B-2', state: 0 } });
    expect(colliding[3]).toMatchObject({ status: 200, body: { orderNumber: 'B-1' } });
    expect(colliding[4]).toMatchObject({ status: 200, body: { orderNumber: 'B-2' } });
    expect(colliding[5]).toEqual({ status: 400, body: { message: 'Order not found', resultCode: 200 } });
    expect(colliding[7]).toMatchObject({ status: 400, body: { resultCode: 205 } });
    expect(colliding[8]).toMatchObject({ status: 200, body: { externalId: 'B-1', state: 5 } });
  });
});
