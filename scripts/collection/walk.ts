/**
 * The integrator's walk the Postman collection follows: which operation of docs/openapi.json each
 * request calls, with which of the document's request examples, and which of its answers it
 * expects. Values that must come from the environment or from an earlier answer are replaced by
 * variables; everything else is the document's example as published.
 */

/** How an example's value is made fit for a run against the example fleet's sandbox. */
export type Rewrite = (value: unknown) => unknown;

export interface Step {
  name: string;
  operationId: string;
  /** The document's request example (body, or query parameters for a GET). */
  requestExample?: string;
  /** The document's answer: [status, example name]; its status and resultCode are asserted. */
  expects: [status: string, example: string];
  /** Which key the request sends: the marketplace's or the courier partner's. */
  key?: 'marketplace' | 'partner';
  rewrite?: Rewrite;
  /** Pre-request script lines. */
  before?: string[];
  /** Test script lines after the generic ones (the parsed answer is `body`). */
  after?: string[];
}

export interface Folder {
  name: string;
  description: string;
  steps: Step[];
}

/** Replaces strings by a table, in every string of a value (keys stay). */
export function replaceStrings(table: Record<string, string>): Rewrite {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return table[v] ?? v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk;
}

/** Sets fields of the top-level object (numbers given as `{{var}}` are written unquoted). */
export function setFields(fields: Record<string, unknown>): Rewrite {
  return (v) => ({ ...(v as Record<string, unknown>), ...fields });
}

function both(...rewrites: Rewrite[]): Rewrite {
  return (v) => rewrites.reduce((acc, r) => r(acc), v);
}

/** The example order ORD-1001 becomes this run's order A on the environment's locker. */
const orderA = both(
  replaceStrings({
    'ORD-1001': '{{orderA}}',
    'PCL-1001-1': '{{orderA}}-P1',
    'PCL-1001-2': '{{orderA}}-P2',
    'PCL-1001-3': '{{orderA}}-P3',
    'PCL-1001-4': '{{orderA}}-P4',
    'ALT-1001-2': '{{orderA}}-ALT2',
    '2030-03-05': '{{today}}',
  }),
  (v) => ('postamatId' in (v as object) ? { ...(v as object), postamatId: '{{postamatId}}' } : v),
);

/** The same example as this run's order B: one parcel, for the storage clock and the return. */
const orderB = both(
  replaceStrings({ 'ORD-1001': '{{orderB}}', 'PCL-1001-1': '{{orderB}}-P1', '2030-03-05': '{{today}}' }),
  (v) => {
    const order = v as { parcels: unknown[]; clientInvoice: unknown };
    return { ...order, postamatId: '{{postamatId}}', parcels: order.parcels.slice(0, 1), clientInvoice: { cart: { items: [], prePaymentSum: 0 } } };
  },
);

/** Keeps which cell the answer reserved for each parcel of order A: the courier must load it there. */
const keepCells = [
  'const cells = {};',
  'for (const r of body.reserved) for (const b of r.barcodes) cells[b] = r.cellId;',
  "pm.collectionVariables.set('orderACells', JSON.stringify(cells));",
];

export const WALK: Folder[] = [
  {
    name: '1. Lockers',
    description: 'Which lockers the key may use, their room for a parcel and their cells.',
    steps: [
      {
        name: 'postamat/available',
        operationId: 'listLockers',
        expects: ['200', 'withSchedule'],
        // A run starts here: its orders get externalIds of their own (an externalId is used once).
        before: [
          "const run = 'PM-' + Date.now().toString(36).toUpperCase();",
          "pm.collectionVariables.set('orderA', run + '-A');",
          "pm.collectionVariables.set('orderB', run + '-B');",
          "pm.collectionVariables.set('routeId', run + '-R');",
        ],
        after: ["pm.test('lists the locker of the environment', () => pm.expect(body.postamats.map((l) => String(l.id))).to.include(pm.environment.get('postamatId')));"],
      },
      {
        name: 'postamat/capacity',
        operationId: 'getCapacity',
        requestExample: 'smallBox',
        expects: ['200', 'smallBox'],
        rewrite: setFields({ postamatId: '{{postamatId}}', deliveryDate: '{{today}}' }),
        after: ["pm.test('answers from the delivery date', () => pm.expect(body).to.have.property(pm.collectionVariables.get('today')));"],
      },
      {
        name: 'postamat/get-by-id',
        operationId: 'getLocker',
        requestExample: 'freeCells',
        expects: ['200', 'freeCells'],
        rewrite: setFields({ postamatId: '{{postamatId}}' }),
        after: ["pm.test('is the locker asked for', () => pm.expect(String(body.id)).to.eql(pm.environment.get('postamatId')));"],
      },
      {
        name: 'postamat/get-by-id: a locker that does not exist',
        operationId: 'getLocker',
        requestExample: 'unknownLocker',
        expects: ['400', 'code3'],
      },
    ],
  },
  {
    name: '2. Courier route sheet',
    description:
      "The courier partner (its own key) registers a courier with a route to the locker for today and gets the courier's access code. Before the order's detail: a courier asks it.",
    steps: [
      {
        name: 'couriers/courier-with-route',
        operationId: 'registerCourierRoute',
        requestExample: 'route',
        key: 'partner',
        expects: ['200', 'route'],
        rewrite: (v) => {
          const input = v as { courier: unknown; route: Record<string, unknown> };
          return { ...input, route: { ...input.route, date: '{{today}}', externalId: '{{routeId}}', postamatIds: ['{{postamatId}}'] } };
        },
        after: [
          "pm.test('gives an access code', () => pm.expect(body.postamatAccessCode).to.match(/^\\d{8}$/));",
          "pm.collectionVariables.set('courierAccessCode', body.postamatAccessCode);",
        ],
      },
    ],
  },
  {
    name: '3. Order',
    description: 'An order of three parcels with cells reserved: what a courier sees of it, a fourth parcel, storage, the parcel that fits no cell cancelled.',
    steps: [
      {
        name: 'smartorder/create',
        operationId: 'createSmartOrder',
        requestExample: 'threeParcels',
        expects: ['200', 'threeParcels'],
        rewrite: orderA,
        after: [
          "pm.test('reserves cells for the order', () => pm.expect(body.reserved[0].externalId).to.eql(pm.collectionVariables.get('orderA')));",
          "pm.test('the third parcel fits no cell', () => pm.expect(body.permanentlyRejectedItems).to.eql([pm.collectionVariables.get('orderA') + '-P3']));",
          ...keepCells,
        ],
      },
      {
        name: 'order/detail by the courier',
        operationId: 'getOrderDetail',
        requestExample: 'byCourier',
        expects: ['200', 'byCourier'],
        rewrite: orderA,
        after: ["pm.test('is the order at the locker', () => { pm.expect(body.orderNumber).to.eql(pm.collectionVariables.get('orderA')); pm.expect(String(body.idPoint)).to.eql(pm.environment.get('postamatId')); });"],
      },
      {
        name: "order/detail by the courier's access code",
        operationId: 'getOrderDetail',
        requestExample: 'byAccessCode',
        expects: ['200', 'byCourier'],
        rewrite: both(orderA, setFields({ postamatAccessCode: '{{courierAccessCode}}' })),
        after: ["pm.test('is the order', () => pm.expect(body.orderNumber).to.eql(pm.collectionVariables.get('orderA')));"],
      },
      {
        name: 'order/update',
        operationId: 'updateOrder',
        requestExample: 'addParcel',
        expects: ['200', 'addParcel'],
        rewrite: orderA,
        after: ["pm.test('is still New', () => pm.expect(body.state).to.eql(0));", ...keepCells],
      },
      {
        name: 'order/extension before the load',
        operationId: 'extendStorage',
        requestExample: 'notLoaded',
        expects: ['400', 'code252'],
        rewrite: orderA,
      },
      {
        name: 'order/place/cancel',
        operationId: 'cancelPosition',
        requestExample: 'cancel',
        expects: ['200', 'cancel'],
        rewrite: orderA,
        after: ["pm.test('the order stays New', () => pm.expect(body.state).to.eql(0));"],
      },
      {
        name: 'order/place/cancel: the same again',
        operationId: 'cancelPosition',
        requestExample: 'again',
        expects: ['400', 'code208'],
        rewrite: orderA,
      },
    ],
  },
  {
    name: '4. Sandbox plays',
    description:
      "The locker's life played on the sandbox locker, each call answering when its effect happened: the courier loads order A, storage is extended, the customer takes it; order B is loaded, its storage runs out and the courier takes it back; the reset leaves the sandbox clean for the next run.",
    steps: [
      {
        name: 'sandbox/lockers',
        operationId: 'listSandboxLockers',
        expects: ['200', 'running'],
        after: ["pm.test('runs the locker', () => pm.expect(body.postamats.find((l) => String(l.postamatId) === pm.environment.get('postamatId')).running).to.eql(true));"],
      },
      {
        name: 'sandbox/orders/courier-load',
        operationId: 'sandboxCourierLoad',
        requestExample: 'sandbox',
        expects: ['200', 'loaded'],
        rewrite: setFields({ externalId: '{{orderA}}' }),
        after: [
          "pm.test('Courier loaded (3)', () => pm.expect(body.state).to.eql(3));",
          "const reserved = JSON.parse(pm.collectionVariables.get('orderACells'));",
          "pm.test('each parcel in the cell reserved for it', () => body.parcels.filter((p) => p.state === 'loaded').forEach((p) => pm.expect(p.cellId).to.eql(reserved[p.barcode])));",
        ],
      },
      {
        name: 'order/extension',
        operationId: 'extendStorage',
        requestExample: 'notLoaded',
        expects: ['200', 'extended'],
        rewrite: orderA,
        after: ["pm.test('names the order', () => pm.expect(body.externalID).to.eql(pm.collectionVariables.get('orderA')));"],
      },
      {
        name: 'sandbox/orders/customer-pickup',
        operationId: 'sandboxCustomerPickup',
        requestExample: 'sandbox',
        expects: ['200', 'received'],
        rewrite: setFields({ externalId: '{{orderA}}' }),
        after: ["pm.test('Client received (2), every door opened', () => { pm.expect(body.state).to.eql(2); pm.expect(body.failedCells).to.eql([]); });"],
      },
      {
        name: 'smartorder/create order B',
        operationId: 'createSmartOrder',
        requestExample: 'threeParcels',
        expects: ['200', 'threeParcels'],
        rewrite: orderB,
        after: ["pm.test('reserves a cell', () => pm.expect(body.reserved).to.have.lengthOf(1));"],
      },
      {
        name: 'sandbox/orders/courier-load order B',
        operationId: 'sandboxCourierLoad',
        requestExample: 'sandbox',
        expects: ['200', 'loaded'],
        rewrite: setFields({ externalId: '{{orderB}}' }),
        after: ["pm.test('Courier loaded (3)', () => pm.expect(body.state).to.eql(3));"],
      },
      {
        name: 'sandbox/orders/storage-expiry',
        operationId: 'sandboxStorageExpiry',
        requestExample: 'sandbox',
        expects: ['200', 'awaitingReturn'],
        rewrite: setFields({ externalId: '{{orderB}}' }),
        after: ["pm.test('Awaiting return (7)', () => pm.expect(body.state).to.eql(7));"],
      },
      {
        name: 'sandbox/courier-return',
        operationId: 'sandboxCourierReturn',
        expects: ['200', 'collected'],
        after: ["pm.test('order B is Courier picked up (4)', () => pm.expect(body.orders.find((o) => o.externalId === pm.collectionVariables.get('orderB')).state).to.eql(4));"],
      },
      {
        name: 'sandbox/reset',
        operationId: 'resetSandbox',
        expects: ['200', 'cleared'],
      },
    ],
  },
];
