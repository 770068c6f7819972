/**
 * Every operation of the API with a valid request, and where each of its strings and arrays
 * sits, for the adversarial suites: they put hostile values into each place in turn.
 */
import { KEYS, orderBody, routeBody } from '../cloud/helpers/fleet-fixtures.js';
import type { CallOptions } from '../cloud/helpers/test-cloud.js';

export type Path = readonly (string | number)[];

export interface Operation {
  name: string;
  method: 'GET' | 'PUT' | 'POST';
  /** Path; `{postamatId}`-style parts are path parameters (see `params`). */
  path: string;
  auth: Pick<CallOptions, 'key' | 'partnerKey' | 'operatorKey'>;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** Strings of the body, then of the query (by name) and the path (by name). */
  bodyStrings: Path[];
  bodyArrays: Path[];
  queryStrings: string[];
  params?: Record<string, string>;
}

const order = (id: string) =>
  orderBody(id, {
    parcels: [{ barcode: `${id}-P1`, additionalBarcodes: [`${id}-A1`], dimension: { length: 300, width: 200, height: 80 } }],
  });

const ORDER_STRINGS: Path[] = [
  ['externalId'],
  ['number'],
  ['dateDelivery'],
  ['parcels', 0, 'barcode'],
  ['parcels', 0, 'additionalBarcodes', 0],
  ['clientInvoice', 'cart', 'items', 0, 'barcode'],
  ['clientInvoice', 'cart', 'items', 0, 'name'],
  ['notification', 'emails', 0],
  ['notification', 'phones', 0],
];
const ORDER_ARRAYS: Path[] = [
  ['parcels'],
  ['parcels', 0, 'additionalBarcodes'],
  ['clientInvoice', 'cart', 'items'],
  ['notification', 'emails'],
  ['notification', 'phones'],
];

const shopA = { key: KEYS.shopA };
const operator = { operatorKey: KEYS.operator };

export const OPERATIONS: Operation[] = [
  { name: 'smartorder/create', method: 'PUT', path: '/api/v4/auth/delivery/smartorder/create', auth: shopA, body: order('S-1'), bodyStrings: ORDER_STRINGS, bodyArrays: ORDER_ARRAYS, queryStrings: [] },
  { name: 'order/create', method: 'PUT', path: '/api/v4/auth/delivery/order/create', auth: shopA, body: order('C-1'), bodyStrings: ORDER_STRINGS, bodyArrays: ORDER_ARRAYS, queryStrings: [] },
  { name: 'order/update', method: 'PUT', path: '/api/v4/auth/delivery/order/update', auth: shopA, body: order('S-1'), bodyStrings: ORDER_STRINGS, bodyArrays: ORDER_ARRAYS, queryStrings: [] },
  {
    name: 'order/place/cancel',
    method: 'PUT',
    path: '/api/v4/auth/delivery/order/place/cancel',
    auth: shopA,
    body: { extId: 'S-1', barcode: 'S-1-P1' },
    bodyStrings: [['extId'], ['barcode']],
    bodyArrays: [],
    queryStrings: [],
  },
  { name: 'order/extension', method: 'POST', path: '/api/v4/auth/delivery/order/extension', auth: shopA, body: { extId: 'S-1' }, bodyStrings: [['extId']], bodyArrays: [], queryStrings: [] },
  {
    name: 'order/detail',
    method: 'POST',
    path: '/api/v4/auth/delivery/order/detail',
    auth: shopA,
    body: { barcode: 'S-1-P1', courierExternalId: 'courier-1', postamatAccessCode: '12345678' },
    bodyStrings: [['barcode'], ['courierExternalId'], ['postamatAccessCode']],
    bodyArrays: [],
    queryStrings: [],
  },
  {
    name: 'postamat/capacity',
    method: 'POST',
    path: '/api/v4/auth/postamat/capacity',
    auth: shopA,
    body: { postamatId: 1, deliveryDate: '2030-03-05', parcelSize: { length: 10 } },
    bodyStrings: [['deliveryDate']],
    bodyArrays: [],
    queryStrings: [],
  },
  { name: 'postamat/available', method: 'GET', path: '/api/v4/auth/postamat/available', auth: shopA, query: { scanner: 'true', schedule: 'false' }, bodyStrings: [], bodyArrays: [], queryStrings: ['scanner', 'schedule'] },
  { name: 'postamat/get-by-id', method: 'GET', path: '/api/v4/auth/postamat/get-by-id', auth: shopA, query: { postamatId: '1', cellsType: '0' }, bodyStrings: [], bodyArrays: [], queryStrings: ['postamatId', 'cellsType'] },
  {
    name: 'couriers/courier-with-route',
    method: 'PUT',
    path: '/api/v1/auth/couriers/courier-with-route',
    auth: { partnerKey: KEYS.partner },
    body: routeBody({}, { postamatIds: [1, '2'] }),
    bodyStrings: [
      ['courier', 'externalId'],
      ['courier', 'email'],
      ['courier', 'inn'],
      ['courier', 'phone'],
      ['route', 'carNumber'],
      ['route', 'date'],
      ['route', 'externalId'],
      ['route', 'postamatIds', 1],
    ],
    bodyArrays: [['route', 'postamatIds']],
    queryStrings: [],
  },
  {
    name: 'operator cell flags',
    method: 'PUT',
    path: '/operator/postamats/{postamatId}/cells/{cellId}/flags',
    params: { postamatId: '1', cellId: '1' },
    auth: operator,
    body: { dirty: false },
    bodyStrings: [],
    bodyArrays: [],
    queryStrings: [],
  },
  { name: 'operator fleet reload', method: 'POST', path: '/operator/fleet/reload', auth: operator, bodyStrings: [], bodyArrays: [], queryStrings: [] },
  {
    name: 'operator notifications',
    method: 'GET',
    path: '/operator/notifications',
    auth: operator,
    query: { status: 'failing', marketplaceId: 'shop-a', externalId: 'S-1', beforeId: '100', limit: '10' },
    bodyStrings: [],
    bodyArrays: [],
    queryStrings: ['status', 'marketplaceId', 'externalId', 'beforeId', 'limit'],
  },
  {
    name: 'operator redeliver (failing)',
    method: 'POST',
    path: '/operator/notifications/redeliver',
    auth: operator,
    body: { failing: true, marketplaceId: 'shop-a' },
    bodyStrings: [['marketplaceId']],
    bodyArrays: [],
    queryStrings: [],
  },
  {
    name: 'operator redeliver (ids)',
    method: 'POST',
    path: '/operator/notifications/redeliver',
    auth: operator,
    body: { ids: [1, '2'] },
    bodyStrings: [['ids', 1]],
    bodyArrays: [['ids']],
    queryStrings: [],
  },
  {
    name: 'operator alerts',
    method: 'GET',
    path: '/operator/alerts',
    auth: operator,
    query: { postamatId: '1', severity: 'info', beforeId: '100', limit: '10' },
    bodyStrings: [],
    bodyArrays: [],
    queryStrings: ['postamatId', 'severity', 'beforeId', 'limit'],
  },
];

/** A deep copy of `value` with `at` replaced by `replacement`. */
export function replaced(value: unknown, at: Path, replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const [head, ...rest] = at as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[head] = replaced(copy[head], rest, replacement);
  return copy;
}

/** The element an array of the body holds, to repeat it. */
export function elementAt(value: unknown, at: Path): unknown {
  let node = value;
  for (const key of at) node = (node as Record<string | number, unknown>)[key];
  return (node as unknown[])[0];
}

/** The URL of an operation (path parameters and query filled in, values percent-encoded unless raw). */
export function urlOf(op: Operation, overrides: { query?: Record<string, string>; params?: Record<string, string>; rawQuery?: string } = {}): string {
  const params = { ...op.params, ...overrides.params };
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
  if (overrides.rawQuery !== undefined) return `${path}?${overrides.rawQuery}`;
  const query = { ...op.query, ...overrides.query };
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

/** Every place of every operation a string goes, as [label, operation, where]. */
export function stringPlaces(): { label: string; op: Operation; body?: Path; query?: string; param?: string }[] {
  return OPERATIONS.flatMap((op) => [
    ...op.bodyStrings.map((p) => ({ label: `${op.name} body.${p.join('.')}`, op, body: p })),
    // A string where the operation expects none, and under a key it does not know.
    ...(op.body ? [{ label: `${op.name} body.unknownKey`, op, body: ['unknownKey'] as Path }] : []),
    ...op.queryStrings.map((q) => ({ label: `${op.name} ?${q}`, op, query: q })),
    ...Object.keys(op.params ?? {}).map((p) => ({ label: `${op.name} /{${p}}`, op, param: p })),
  ]);
}
