/**
 * `npm run integrator:walkthrough`: a new marketplace integrator's first hour, from a fresh clone.
 * Starts the cloud as a user would (`npm run cloud`, the example fleet with its sandbox marketplace
 * `sandbox-shop` and sandbox locker 901, a fresh data directory), runs a notification receiver
 * built with the client package's receiver kit, and goes through the sandbox (docs/sandbox.md)
 * with the typed clients: an order loaded by a courier, its storage extended, taken by the
 * customer with the code the receiver got; a second order found by a courier, loaded, its storage
 * run out and collected by the courier; then the sandbox reset. Every notification is checked
 * (signed, typed, handled once). Each step prints its time; any failure exits 1. Settings:
 * scripts/integrator/settings.ts (WALKTHROUGH_*).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { courierClient, marketplaceClient, sandboxClient, type OrderStatus, type ReceivedNotification } from '../packages/client/src/index.js';
import { makeDemoPki } from '../demo/pki.js';
import { CloudChild, freePort, writeDerivedFleet } from './integrator/cloud-child.js';
import { Inbox } from './integrator/inbox.js';
import { readWalkthroughSettings } from './integrator/settings.js';
import { runSteps } from './integrator/steps.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const SANDBOX_KEY = 'demo-sandbox-shop-key';
const SANDBOX_COURIER_KEY = 'demo-sandbox-courier-key';
const LOCKER = 901;

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

/** The answer of a typed call, or an error with its status and envelope. */
async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, what: string): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(error)}`);
  return data;
}

const settings = readWalkthroughSettings(process.env);
const timeoutMs = settings.timeoutSeconds * 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'integrator-walkthrough-'));
let inbox: Inbox | undefined;
let cloud: CloudChild | undefined;

async function cleanUp(): Promise<void> {
  await cloud?.stop();
  await inbox?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
process.once('SIGTERM', () => void cleanUp().finally(() => process.exit(143)));

// Fresh externalIds per run, as docs/sandbox.md advises (they stay taken after a reset).
const run = Date.now().toString(36).toUpperCase();
const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Moscow' }).format(new Date());
const order = (externalId: string) => ({
  externalId,
  postamatId: LOCKER,
  dateDelivery: today,
  parcels: [{ barcode: `${externalId}-P1`, dimension: { length: 300, width: 200, height: 80 } }],
  clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
  notification: { emails: [], phones: ['+79160000001'] },
});

const statusOf = (externalId: string, event: OrderStatus['event_id']) => (n: ReceivedNotification) =>
  n.kind === 'order-status' && n.body.id === externalId && n.body.event_id === event;
const kindOf = (externalId: string, kind: ReceivedNotification['kind']) => (n: ReceivedNotification) => n.kind === kind && n.body.id === externalId;

const ok = await runSteps(async (step) => {
  const pki = await makeDemoPki(Date.now(), 2, 'Integrator walk-through CA');
  const receiver = { login: 'sandbox-receiver', password: randomBytes(18).toString('base64url'), hmacSecret: randomBytes(32).toString('base64url') };
  let mp!: ReturnType<typeof marketplaceClient>;
  let sandbox!: ReturnType<typeof sandboxClient>;

  await step('start the notification receiver (HTTPS, receiver kit)', async () => {
    inbox = await Inbox.start({ port: settings.receiverPort, cert: pki.cert, key: pki.key, login: receiver.login, password: receiver.password, signingSecret: receiver.hmacSecret });
    return inbox.url;
  });

  await step('start the cloud: npm run cloud with the derived example fleet', async () => {
    const caFile = join(dataDir, 'receiver-ca.pem');
    writeFileSync(caFile, pki.caPem);
    const fleetFile = join(dataDir, 'fleet.json');
    writeDerivedFleet(join(REPO, 'deploy/fleet.example.json'), fleetFile, { url: inbox!.url, caFile, ...receiver });
    const port = settings.cloudPort || (await freePort());
    const brokerPort = settings.brokerPort || (await freePort());
    cloud = CloudChild.start({ repoDir: REPO, dataDir, fleetFile, port, brokerPort, timeoutSeconds: settings.timeoutSeconds });
    await cloud.ready(timeoutMs);
    mp = marketplaceClient({ baseUrl: cloud.url, apiKey: SANDBOX_KEY });
    sandbox = sandboxClient({ baseUrl: cloud.url, apiKey: SANDBOX_KEY });
    return cloud.url;
  });

  await step(`sandbox locker ${LOCKER} running`, async () => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { postamats } = await must(sandbox.GET('/api/v4/sandbox/lockers'), 'sandbox lockers');
      if (postamats.some((p) => p.postamatId === LOCKER && p.running)) return 'screen and simulator up';
      check(Date.now() < deadline, `sandbox locker ${LOCKER} did not start within ${settings.timeoutSeconds} s`);
      // The cloud starts its sandbox lockers in the background; it has no event to wait for.
      await new Promise((r) => setTimeout(r, 250));
    }
  });

  const first = `WT-${run}-1`;
  await step(`create order ${first} (smartorder/create)`, async () => {
    const created = await must(mp.PUT('/api/v4/auth/delivery/smartorder/create', { body: order(first) }), 'smartorder/create');
    const cell = created.reserved[0]?.cellId;
    check(cell !== undefined, 'no cell reserved');
    return `cell ${cell} reserved`;
  });

  let code = '';
  let deadline = '';
  await step(`courier-load ${first} -> notification 3, pick-up code, storage deadline`, async () => {
    const loaded = await must(sandbox.POST('/api/v4/sandbox/orders/courier-load', { body: { externalId: first } }), 'courier-load');
    check(loaded.state === 3, `state ${loaded.state} after the load`);
    const cell = loaded.parcels[0]?.cellId;
    const placed = await inbox!.next(`order-status 3 of ${first}`, statusOf(first, '3'), timeoutMs);
    check(placed.kind === 'order-status' && placed.body.postamat_id === String(LOCKER) && placed.body.cell_id === cell, `order-status 3 names postamat ${LOCKER} and cell ${cell}`);
    const access = await inbox!.next(`user-access-code of ${first}`, kindOf(first, 'user-access-code'), timeoutMs);
    check(access.kind === 'user-access-code' && access.body.postamat_id === String(LOCKER) && /^\d{6,8}$/.test(access.body.access_code), 'user-access-code with a code');
    code = access.body.access_code;
    const expiry = await inbox!.next(`expiration-date-changes of ${first}`, kindOf(first, 'expiration-date-changes'), timeoutMs);
    check(expiry.kind === 'expiration-date-changes' && Date.parse(expiry.body.expire_dt) > Date.now(), 'a storage deadline in the future');
    deadline = expiry.body.expire_dt;
    return `postamat ${LOCKER}, cell ${cell}; storage until ${deadline}`;
  });

  await step(`extend the storage of ${first} -> new deadline`, async () => {
    const extended = await must(mp.POST('/api/v4/auth/delivery/order/extension', { body: { extId: first } }), 'order/extension');
    check(Date.parse(extended.date_storage) > Date.parse(deadline), `the new deadline ${extended.date_storage} is after ${deadline}`);
    const expiry = await inbox!.next(`the second expiration-date-changes of ${first}`, kindOf(first, 'expiration-date-changes'), timeoutMs);
    check(expiry.kind === 'expiration-date-changes' && Date.parse(expiry.body.expire_dt) === Date.parse(extended.date_storage), 'the notification carries the new deadline');
    return `storage until ${extended.date_storage}`;
  });

  await step(`customer-pickup ${first} with the received code -> notification 2`, async () => {
    const taken = await must(sandbox.POST('/api/v4/sandbox/orders/customer-pickup', { body: { externalId: first, accessCode: code } }), 'customer-pickup');
    check(taken.state === 2 && taken.failedCells?.length === 0, `state ${taken.state} after the pick-up`);
    await inbox!.next(`order-status 2 of ${first}`, statusOf(first, '2'), timeoutMs);
    return `cells ${taken.openedCells?.join(', ')} opened`;
  });

  const second = `WT-${run}-2`;
  await step(`create order ${second}; a courier finds it (order/detail)`, async () => {
    await must(mp.PUT('/api/v4/auth/delivery/smartorder/create', { body: order(second) }), 'smartorder/create');
    const courier = courierClient({ baseUrl: cloud!.url, apiKey: SANDBOX_COURIER_KEY });
    const route = { carNumber: 'A001AA77', date: today, externalId: `R-${run}`, postamatIds: [LOCKER] };
    await must(courier.PUT('/api/v1/auth/couriers/courier-with-route', { body: { courier: { externalId: `C-${run}`, email: 'c1@courier.example', phone: '+79160000101' }, route } }), 'courier-with-route');
    const detail = await must(mp.POST('/api/v4/auth/delivery/order/detail', { body: { barcode: `${second}-P1`, courierExternalId: `C-${run}` } }), 'order/detail');
    const held = detail.holdedCells.find((c) => c.barcodes.includes(`${second}-P1`));
    check(detail.idPoint === LOCKER && held, `order/detail names postamat ${LOCKER} and the parcel's cell`);
    return `postamat ${detail.idPoint}, cell ${held.cellId}`;
  });

  await step(`courier-load ${second} -> notification 3, pick-up code, storage deadline`, async () => {
    const loaded = await must(sandbox.POST('/api/v4/sandbox/orders/courier-load', { body: { externalId: second } }), 'courier-load');
    check(loaded.state === 3, `state ${loaded.state} after the load`);
    await inbox!.next(`order-status 3 of ${second}`, statusOf(second, '3'), timeoutMs);
    await inbox!.next(`user-access-code of ${second}`, kindOf(second, 'user-access-code'), timeoutMs);
    await inbox!.next(`expiration-date-changes of ${second}`, kindOf(second, 'expiration-date-changes'), timeoutMs);
    return `cell ${loaded.parcels[0]?.cellId}`;
  });

  await step(`storage-expiry ${second} -> notification 7 (Awaiting return)`, async () => {
    const expired = await must(sandbox.POST('/api/v4/sandbox/orders/storage-expiry', { body: { externalId: second } }), 'storage-expiry');
    check(expired.state === 7, `state ${expired.state} after the expiry`);
    await inbox!.next(`order-status 7 of ${second}`, statusOf(second, '7'), timeoutMs);
    return 'state 7';
  });

  await step(`courier-return -> notification 4 (Courier picked up) for ${second}`, async () => {
    const returned = await must(sandbox.POST('/api/v4/sandbox/courier-return'), 'courier-return');
    check(returned.orders.some((o) => o.externalId === second && o.state === 4), `${second} is not Courier picked up`);
    await inbox!.next(`order-status 4 of ${second}`, statusOf(second, '4'), timeoutMs);
    return `${returned.orders.length} order(s) returned`;
  });

  await step('every notification signed, typed and received once', () => {
    const expected: Record<string, string[]> = {
      [first]: ['order-status 3', 'user-access-code', 'expiration-date-changes', 'expiration-date-changes', 'order-status 2'],
      [second]: ['order-status 3', 'user-access-code', 'expiration-date-changes', 'order-status 7', 'order-status 4'],
    };
    const label = (n: ReceivedNotification): string => (n.kind === 'order-status' ? `order-status ${n.body.event_id}` : n.kind);
    check(inbox!.repeated.length === 0, `notifications handled twice: ${inbox!.repeated.join(', ')}`);
    for (const [externalId, kinds] of Object.entries(expected)) {
      const got = inbox!.of(externalId).map(label);
      check(JSON.stringify([...got].sort()) === JSON.stringify([...kinds].sort()), `${externalId} got ${got.join(', ')}; expected ${kinds.join(', ')}`);
    }
    check(inbox!.received.length === 10, `${inbox!.received.length} notifications in all; expected 10`);
    return Promise.resolve('10 notifications, 10 distinct ids');
  });

  await step('sandbox reset', async () => {
    const reset = await must(sandbox.POST('/api/v4/sandbox/reset'), 'reset');
    return `${reset.cancelledOrders} cancelled, ${reset.returns.orders.length} returned, ${reset.repairedCells.length} cells repaired`;
  });
}, () => cloud?.output ?? '');

await cleanUp();
process.exit(ok ? 0 : 1);
