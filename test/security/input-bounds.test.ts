/**
 * Hostile sizes in every string and array of every operation: code 3 (400), 413 for bodies over
 * the limit, 414 for URLs and path parameters too long, nothing stored, and the event loop of the
 * cloud stays responsive. The cloud runs in this process with the real log setup at info level
 * (its scrubber once turned a long field into a minute-long stall), so the event-loop delay
 * measured here is the cloud's. Stalls are judged against a baseline of the same requests with
 * short values, measured in the same run.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../cloud/src/config.js';
import { LIMITS } from '../../cloud/src/contract/common.js';
import { loggerOptions } from '../../shared/src/redact.js';
import { KEYS, orderBody } from '../cloud/helpers/fleet-fixtures.js';
import { inlineSchemaRefs } from '../helpers/openapi-refs.js';
import { type Answer, type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { OPERATIONS, type Operation, type Path, elementAt, replaced, stringPlaces, urlOf } from './operations.js';

const BODY_LIMIT = loadConfig({}).bodyLimitBytes;
const MIB = 1024 * 1024;
/** Longest URL the cloud serves (transport-errors.ts); query values stay below it. */
const URL_ROOM = 8 * 1024 - 200;

interface Place {
  label: string;
  op: Operation;
  body?: Path;
  query?: string;
  param?: string;
  array?: boolean;
}

function expectEnvelope(res: Answer, status: number, what: string): void {
  expect(res.status, what).toBe(status);
  expect(Object.keys(res.body as object).sort(), what).toEqual(['message', 'resultCode']);
  expect(res.body.resultCode, what).toBe(status === 401 ? 1 : 3);
}

/** Characters the log scrubber's patterns (e-mail, phone, code) would chew on longest. */
const hostileText = (length: number): string => 'a'.repeat(length);

describe('input bounds', () => {
  let tc: TestCloud;
  let logBytes = 0;
  const places: Place[] = [
    ...stringPlaces(),
    ...OPERATIONS.flatMap((op) => op.bodyArrays.map((p) => ({ label: `${op.name} body.${p.join('.')}[]`, op, body: p, array: true }))),
  ];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logBytes += chunk.length;
        done();
      },
    });
    tc = await startTestCloud('sqlite', { logger: pino(loggerOptions('cloud', 'info'), sink) });
  });
  afterAll(async () => tc?.stop());

  /** Sends the operation with `value` at the place (a string, or an array of `value` repeated). */
  async function send(place: Place, value: string | number): Promise<Answer> {
    const { op } = place;
    if (place.query !== undefined) return tc.call(op.method, urlOf(op, { query: { [place.query]: String(value) } }), op.auth);
    if (place.param !== undefined) return tc.call(op.method, urlOf(op, { params: { [place.param]: String(value) } }), { ...op.auth, body: op.body });
    const at = place.body!;
    const replacement = place.array ? Array.from({ length: Number(value) }, () => elementAt(op.body, at)) : value;
    return tc.call(op.method, urlOf(op), { ...op.auth, body: replaced(op.body, at, replacement) });
  }

  /** The hostile value of a place that fills its body up to `bodyBytes` (or its URL up to its limit). */
  function hostile(place: Place, bodyBytes: number): string | number {
    if (place.query !== undefined) return hostileText(bodyBytes > BODY_LIMIT ? MIB : URL_ROOM - urlOf(place.op).length);
    if (place.param !== undefined) return hostileText(bodyBytes > BODY_LIMIT ? MIB : 5000);
    const room = bodyBytes - Buffer.byteLength(JSON.stringify(place.op.body)) - 64;
    if (!place.array) return hostileText(room);
    return Math.floor(room / (Buffer.byteLength(JSON.stringify(elementAt(place.op.body, place.body!))) + 1));
  }

  /** Longest event-loop stall (ms) while `run` goes on. */
  async function longestStall(run: () => Promise<void>): Promise<number> {
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    try {
      await run();
    } finally {
      histogram.disable();
    }
    return histogram.max / 1e6;
  }

  async function counts(): Promise<number[]> {
    const n = async (table: 'orders' | 'parcels' | 'couriers' | 'route_sheets') =>
      Number((await tc.db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return [await n('orders'), await n('parcels'), await n('couriers'), await n('route_sheets')];
  }

  it('refuses inputs up to the body limit in every string and array of every operation, stores nothing, and never stalls', async () => {
    const refused = places.filter((p) => !p.label.endsWith('unknownKey'));
    // Baseline: the same requests with short values (answers vary: some are valid).
    const baseline = await longestStall(async () => {
      for (const place of places) {
        const res = await send(place, place.array ? 1 : 'x');
        expect(res.status, place.label).toBeLessThan(500);
      }
    });

    const before = await counts();
    const answers: [string, Answer][] = [];
    const stall = await longestStall(async () => {
      for (const place of refused) answers.push([place.label, await send(place, hostile(place, BODY_LIMIT))]);
    });
    for (const [label, res] of answers) expectEnvelope(res, label.includes('/{') ? 414 : 400, label);
    expect(await counts()).toEqual(before);

    // A long string under a key no operation knows is ignored, whatever its size.
    const ignored = places.filter((p) => p.label.endsWith('unknownKey'));
    const stallIgnored = await longestStall(async () => {
      for (const place of ignored) expect((await send(place, hostile(place, BODY_LIMIT))).status, place.label).toBeLessThan(500);
    });

    expect(logBytes, 'the cloud logged the requests').toBeGreaterThan(0);
    // Before the bounds, one such request held the loop for a minute; the margin absorbs a busy machine.
    const allowed = Math.max(1000, 5 * baseline);
    expect(stall, `longest stall ${stall} ms, baseline ${baseline} ms`).toBeLessThan(allowed);
    expect(stallIgnored, `longest stall ${stallIgnored} ms, baseline ${baseline} ms`).toBeLessThan(allowed);
  });

  it('answers megabyte inputs in every string and array with 413 (414 in the URL) without reading them', async () => {
    const before = await counts();
    const answers: [Place, Answer][] = [];
    const stall = await longestStall(async () => {
      for (const place of places) answers.push([place, await send(place, hostile(place, MIB + BODY_LIMIT))]);
    });
    for (const [place, res] of answers) expectEnvelope(res, place.body ? 413 : 414, place.label);
    expect(await counts()).toEqual(before);
    expect(stall).toBeLessThan(1000);
  });

  it('refuses JSON nested as deep as the body limit allows, in the first string of each operation, without stalling', async () => {
    const depth = Math.floor((BODY_LIMIT - 4096) / 2);
    const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const answers: [string, Answer][] = [];
    const stall = await longestStall(async () => {
      for (const op of OPERATIONS.filter((o) => o.bodyStrings.length > 0)) {
        const rawBody = JSON.stringify(replaced(op.body, op.bodyStrings[0]!, '\u2063')).replace('"\u2063"', nested);
        answers.push([op.name, await tc.call(op.method, urlOf(op), { ...op.auth, rawBody })]);
      }
    });
    for (const [label, res] of answers) {
      expectEnvelope(res, 400, label);
      expect(res.body.message, label).toMatch(/^Неверный формат запроса: тело запроса/);
    }
    expect(stall).toBeLessThan(1000);
  });

  it('a key as long as the headers allow is just a wrong key', async () => {
    const res = await tc.call('GET', '/api/v4/auth/postamat/available', { key: 'k'.repeat(15_000) });
    expectEnvelope(res, 401, 'long key');
  });

  it('accepts the largest legitimate order: every limit at its maximum fits the body limit', async () => {
    const id = (prefix: string, i: number) => `${prefix}${i}-`.padEnd(LIMITS.idLength, 'x');
    const name = 'Чайник электрический '.repeat(20).slice(0, LIMITS.nameLength);
    const items = Array.from({ length: LIMITS.itemsPerOrder }, (_, i) => ({
      count: 2_147_483_647,
      barcode: id('I', i),
      name,
      subjectType: -2_147_483_648,
      price: 1,
      totalSum: 2,
      taxId: -2_147_483_648,
      taxSystemId: -2_147_483_648,
    }));
    const body = orderBody(id('E', 0), {
      number: id('N', 0),
      parcels: Array.from({ length: LIMITS.parcelsPerOrder }, (_, i) => ({
        barcode: id('P', i),
        additionalBarcodes: Array.from({ length: LIMITS.barcodesPerParcel }, (_, j) => id(`A${i}-`, j)),
        dimension: { length: 100, width: 100, height: 1_000_000_000 },
      })),
      clientInvoice: { cart: { items, prePaymentSum: 2 * LIMITS.itemsPerOrder } },
      notification: {
        emails: Array.from({ length: LIMITS.contactsPerOrder }, (_, i) => `${i}@`.padStart(LIMITS.emailLength - 11, 'e') + 'example.ru'),
        phones: Array.from({ length: LIMITS.contactsPerOrder }, (_, i) => `+7916000000${i}`),
      },
    });
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(bytes, `largest order ${bytes} bytes`).toBeLessThanOrEqual(BODY_LIMIT);
    const res = await tc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.permanentlyRejectedItems).toHaveLength(LIMITS.parcelsPerOrder);
  });

  it('publishes every limit: each request string has maxLength (or is an enum) and each array maxItems in /docs/json', async () => {
    const doc = inlineSchemaRefs((await (await fetch(`${tc.cloud.url}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> });
    const unbounded: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (schema === null || typeof schema !== 'object') return;
      const s = schema as Record<string, unknown>;
      const types = [s.type].flat();
      if (types.includes('string') && s.maxLength === undefined && s.enum === undefined && s.const === undefined) unbounded.push(where);
      if (types.includes('array') && s.maxItems === undefined) unbounded.push(where);
      for (const [key, value] of Object.entries(s)) {
        if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}.${key}[${i}]`));
        else if (typeof value === 'object') walk(value, `${where}.${key}`);
      }
    };
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!/^\/(api|operator)\//.test(path)) continue;
      for (const [method, op] of Object.entries(methods)) {
        operations++;
        const o = op as { requestBody?: unknown; parameters?: unknown[] };
        walk(o.requestBody, `${method} ${path} body`);
        (o.parameters ?? []).forEach((p) => walk(p, `${method} ${path} ${(p as { name?: string }).name ?? ''}`));
      }
    }
    expect(operations).toBeGreaterThanOrEqual(OPERATIONS.length - 1);
    expect(unbounded).toEqual([]);
  });
});
