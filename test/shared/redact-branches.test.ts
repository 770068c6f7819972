/**
 * The pino options of redact.ts on inputs the common paths do not show: log level settings,
 * secrets at depth and in arrays, values the walk stops at, error / request / reply serializers
 * given odd values, child loggers and format arguments.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_LEVELS, MAX_LOGGED_CHARS, loggerOptions, parseLogLevel } from '../../shared/src/redact.js';

type Line = Record<string, unknown>;

function capture(level = 'trace') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const log = pino(loggerOptions('t', level), sink);
  const last = (): Line => JSON.parse(lines.at(-1)!) as Line;
  return { log, lines, last };
}

describe('parseLogLevel', () => {
  it('takes the fallback when the setting is unset or empty', () => {
    expect(parseLogLevel(undefined, 'warn')).toBe('warn');
    expect(parseLogLevel('', 'debug')).toBe('debug');
  });

  it('accepts every pino level', () => {
    for (const level of LOG_LEVELS) expect(parseLogLevel(level, 'info')).toBe(level);
  });

  it('refuses anything else, naming the setting, the accepted levels and the value', () => {
    expect(() => parseLogLevel('verbose', 'info')).toThrow('LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"');
    expect(() => parseLogLevel('INFO', 'info', 'AGENT_LOG_LEVEL')).toThrow(/^AGENT_LOG_LEVEL: expected one of .*, got "INFO"$/);
  });

  it('cuts a huge wrong value in its error message', () => {
    let message = '';
    try {
      parseLogLevel('x'.repeat(100_000), 'info');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^LOG_LEVEL: expected one of /);
    expect(message).toContain('[truncated, 100000 chars]');
    expect(message.length).toBeLessThan(MAX_LOGGED_CHARS + 200);
  });
});

describe('the walk of logged objects', () => {
  it('redacts a secret field in every spelling at every depth, and keeps null and undefined secrets as they are', () => {
    const { log, last } = capture();
    log.info({
      level1: { level2: { level3: { PICKUP_CODE: '1', 'pickup-code': '2', PickupCode: '3', pickupcode: '4', 'Access-Code': '5' } } },
      courier: { phone: null, email: undefined, token: 0 },
    });
    expect(last()).toMatchObject({
      level1: { level2: { level3: { PICKUP_CODE: '[redacted]', 'pickup-code': '[redacted]', PickupCode: '[redacted]', pickupcode: '[redacted]', 'Access-Code': '[redacted]' } } },
      courier: { phone: null, token: '[redacted]' },
    });
    expect(last().courier).not.toHaveProperty('email');
  });

  it('redacts secret fields of objects inside arrays and scrubs free text in arrays', () => {
    const { log, last } = capture();
    log.info({ couriers: [{ name: 'Ivan', phone: '+79161234567' }, { name: 'Olga', keys: ['k1', 'k2'] }], notes: ['call +79161234567', 'fine', 42, null] });
    expect(last()).toMatchObject({
      couriers: [{ name: 'Ivan', phone: '[redacted]' }, { name: 'Olga', keys: '[redacted]' }],
      notes: ['call [phone]', 'fine', 42, null],
    });
  });

  it('keeps digit runs in the items of id arrays and scrubs them elsewhere', () => {
    const { log, last } = capture();
    log.info({ orderIds: ['48392011', '48392012'], barcodes: ['11223344'], other: ['48392011'] });
    expect(last()).toMatchObject({ orderIds: ['48392011', '48392012'], barcodes: ['11223344'], other: ['[code]'] });
  });

  it('logs the first 100 items of a long array and counts the rest', () => {
    const { log, last } = capture();
    const ids = Array.from({ length: 250 }, (_, i) => i);
    log.info({ ids, names: Array.from({ length: 101 }, () => 'call +79161234567') });
    const line = last();
    const logged = line.ids as unknown[];
    expect(logged).toHaveLength(101);
    expect(logged.slice(0, 100)).toEqual(ids.slice(0, 100));
    expect(logged[100]).toBe('[150 more]');
    const names = line.names as unknown[];
    expect(names).toHaveLength(101);
    expect(names[0]).toBe('call [phone]');
    expect(names[99]).toBe('call [phone]');
    expect(names[100]).toBe('[1 more]');
  });

  it('keeps an array of exactly 100 items whole', () => {
    const { log, last } = capture();
    const ids = Array.from({ length: 100 }, (_, i) => `id-${i}`);
    log.info({ ids });
    expect(last().ids).toEqual(ids);
  });

  it('stops at a bounded depth', () => {
    const { log, last } = capture();
    log.info({ a: { b: { c: { d: { e: { f: { g: { h: 'deep' } } } } } } } });
    const text = JSON.stringify(last());
    expect(text).toContain('[nested too deep]');
    expect(text).not.toContain('deep"}');
    // Five levels of nesting are logged whole.
    log.info({ a: { b: { c: { d: { e: 'shallow' } } } } });
    expect(last()).toMatchObject({ a: { b: { c: { d: { e: 'shallow' } } } } });
  });

  it('logs values with their own JSON (dates, URLs, buffers) as JSON gives them', () => {
    const { log, last } = capture();
    const at = new Date('2026-01-02T03:04:05.000Z');
    log.info({ at, url: new URL('https://example.com/a?b=1'), n: 5, ok: true, big: 12n.toString() });
    expect(last()).toMatchObject({ at: '2026-01-02T03:04:05.000Z', url: 'https://example.com/a?b=1', n: 5, ok: true, big: '12' });
  });

  it('logs class instances and null-prototype objects as their own fields, scrubbed', () => {
    const { log, last } = capture();
    class Courier {
      constructor(
        readonly name: string,
        readonly note: string,
        readonly accessCode: string,
      ) {}
    }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { email: 'a@b.ru', text: 'mail a@b.ru' });
    log.info({ courier: new Courier('Ivan', 'mail ivan@example.ru', '123456'), bare });
    expect(last()).toMatchObject({
      courier: { name: 'Ivan', note: 'mail [email]', accessCode: '[redacted]' },
      bare: { email: '[redacted]', text: 'mail [email]' },
    });
  });

  it('logs own fields only, not inherited enumerable ones', () => {
    const { log, last } = capture();
    const withProto = Object.create({ inherited: 'call +79161234567' }) as Record<string, unknown>;
    withProto.own = 'call +79161234567';
    log.info(withProto, 'top');
    expect(last()).toMatchObject({ own: 'call [phone]', msg: 'top' });
    expect(last()).not.toHaveProperty('inherited');
    expect(JSON.stringify(last())).not.toContain('79161234567');
  });

  it('does not alter the object it was given', () => {
    const { log } = capture();
    const input = { phone: '+79161234567', nested: { note: 'mail a@b.ru' }, list: ['+79161234567'] };
    const copy = structuredClone(input);
    log.info(input);
    expect(input).toEqual(copy);
  });

  it('serializes an error found under any field, with one cause', () => {
    const { log, last } = capture();
    const inner = new Error('db at 10.0.0.1 refused a@b.ru');
    const outer = new Error('save failed for +79161234567', { cause: inner });
    log.warn({ attempt: { error: outer } }, 'retrying');
    const error = (last().attempt as Line).error as Line;
    expect(error).toMatchObject({ type: 'Error', message: 'save failed for [phone]', cause: { type: 'Error', message: 'db at 10.0.0.1 refused [email]' } });
    expect(JSON.stringify(error)).not.toMatch(/79161234567|a@b\.ru/);
  });

  it('walks `req`, `res` and `err` below the top as ordinary fields', () => {
    const { log, last } = capture();
    log.info({ call: { req: { headers: { authorization: 'Bearer x' }, note: 'a@b.ru' }, res: 'done', err: 'broke at +79161234567' } });
    expect(last()).toMatchObject({ call: { req: { headers: { authorization: '[redacted]' }, note: '[email]' }, res: 'done', err: 'broke at [phone]' } });
  });

  it('cuts strings of id fields without scrubbing them', () => {
    const { log, last } = capture();
    log.info({ orderId: `48392011${'7'.repeat(10_000)}` });
    const orderId = last().orderId as string;
    expect(orderId.startsWith('48392011')).toBe(true);
    expect(orderId).toContain('[truncated, 10008 chars]');
    expect(orderId.length).toBeLessThan(MAX_LOGGED_CHARS + 100);
  });
});

describe('the error serializer', () => {
  class HttpError extends Error {
    override name = 'HttpError';
    constructor(
      message: string,
      readonly code: unknown,
      readonly statusCode?: unknown,
    ) {
      super(message);
    }
  }

  it('keeps string and numeric codes and numeric status codes, and drops other kinds', () => {
    const { log, last } = capture();
    log.error({ err: new HttpError('bad gateway', 'ECONNREFUSED', 502) }, 'upstream');
    expect(last().err).toMatchObject({ type: 'HttpError', message: 'bad gateway', code: 'ECONNREFUSED', statusCode: 502 });
    expect((last().err as Line).stack).toEqual(expect.stringContaining('HttpError: bad gateway'));

    log.error({ err: new HttpError('sqlite', 19) }, 'db');
    expect(last().err).toMatchObject({ code: 19 });
    expect(last().err).not.toHaveProperty('statusCode');

    log.error({ err: new HttpError('odd', { nested: true }, '500') }, 'odd');
    expect(last().err).not.toHaveProperty('code');
    expect(last().err).not.toHaveProperty('statusCode');
  });

  it('scrubs a code that carries personal data', () => {
    const { log, last } = capture();
    log.error({ err: new HttpError('x', 'EUSER for a@b.ru') }, 'x');
    expect((last().err as Line).code).toBe('EUSER for [email]');
  });

  it('leaves out a missing stack and keeps only one level of cause', () => {
    const { log, last } = capture();
    const root = new Error('root cause');
    const middle = new Error('middle', { cause: root });
    const top = new Error('top', { cause: middle });
    delete top.stack;
    log.error({ err: top }, 'chain');
    const err = last().err as Line;
    expect(err).not.toHaveProperty('stack');
    expect(err.cause).toMatchObject({ type: 'Error', message: 'middle' });
    expect(err.cause).not.toHaveProperty('cause');
  });

  it('ignores a cause that is not an error', () => {
    const { log, last } = capture();
    log.error({ err: new Error('top', { cause: 'a@b.ru' }) }, 'x');
    expect(last().err).not.toHaveProperty('cause');
  });

  it('scrubs an `err` that is not an Error as an ordinary value', () => {
    const { log, last } = capture();
    log.error({ err: 'failed for +79161234567' }, 'text');
    expect(last().err).toBe('failed for [phone]');
    log.error({ err: { message: 'to a@b.ru', password: 'p' } }, 'object');
    expect(last().err).toEqual({ message: 'to [email]', password: '[redacted]' });
    log.error({ err: 42 }, 'number');
    expect(last().err).toBe(42);
  });
});

describe('messages', () => {
  it('scrubs every string argument of a formatted message and passes the others on', () => {
    const { log, last } = capture();
    log.info('courier %s called %s %d times', 'ivan@example.ru', '+79161234567', 3);
    expect(last().msg).toBe('courier [email] called [phone] 3 times');
  });

  it('scrubs the message after an object', () => {
    const { log, last } = capture();
    log.info({ lockerId: 'locker-1' }, 'sent code 483920 to a@b.ru');
    expect(last()).toMatchObject({ lockerId: 'locker-1', msg: 'sent code [code] to [email]' });
  });

  it('adds no message for an object without an error', () => {
    const { log, last } = capture();
    log.info({ note: 'plain' });
    expect(last()).not.toHaveProperty('msg');
    log.info({ err: 'not an Error object' });
    expect(last()).not.toHaveProperty('msg');
  });

  it('logs a null or primitive first argument without inventing a message', () => {
    const { log, lines } = capture();
    log.info(null);
    log.info(7 as unknown as object);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).not.toHaveProperty('err');
  });

  it('takes the scrubbed message of an error given alone, with its own serializer', () => {
    const { log, last } = capture();
    const err = Object.assign(new Error('refused a@b.ru'), { code: 'EACCES' });
    log.error(err);
    expect(last()).toMatchObject({ msg: 'refused [email]', err: { type: 'Error', message: 'refused [email]', code: 'EACCES' } });
  });

  it('respects the level it is given', () => {
    const { log, lines } = capture('warn');
    log.info('hidden');
    log.debug('hidden');
    log.warn('shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'shown', name: 't', level: 40 });
  });
});

describe('child loggers', () => {
  it('redact secrets in their bindings in any spelling and keep identifiers', () => {
    const { log, last } = capture();
    const child = log.child({ part: 'sync', lockerId: 'locker-20251234', apiKey: 'k', API_KEY: 'k', 'x-operator-api-key': 'k', Cookie: 'c' });
    child.info('hello');
    expect(last()).toMatchObject({ part: 'sync', lockerId: 'locker-20251234', apiKey: '[redacted]', API_KEY: '[redacted]', 'x-operator-api-key': '[redacted]', Cookie: '[redacted]', msg: 'hello' });
  });

  it('scrub what their log calls carry, like the parent', () => {
    const { log, last } = capture();
    const grandchild = log.child({ part: 'http' }).child({ reqId: 'req-1' });
    grandchild.warn({ body: { email: 'a@b.ru' }, note: 'call +79161234567' }, 'for %s', 'a@b.ru');
    expect(last()).toMatchObject({ part: 'http', reqId: 'req-1', body: { email: '[redacted]' }, note: 'call [phone]', msg: 'for [email]' });
  });
});

describe('the request and reply serializers', () => {
  it('pass through values that are not objects', () => {
    const { log, last } = capture();
    log.info({ req: 'GET /x', res: 204 }, 'odd');
    expect(last()).toMatchObject({ req: 'GET /x', res: 204 });
    log.info({ req: null, res: null }, 'null');
    expect(last()).toMatchObject({ req: null, res: null });
  });

  it('leave out what a request does not give as text', () => {
    const { log, last } = capture();
    log.info({ req: { method: 7, url: 42, routeOptions: { url: null } } }, 'odd');
    expect(last().req).toEqual({});
    log.info({ req: {} }, 'empty');
    expect(last().req).toEqual({});
  });

  it('log the path of a URL without a query and scrub it', () => {
    const { log, last } = capture();
    log.info({ req: { method: 'GET', url: '/api/couriers/ivan@example.ru' } }, 'plain');
    expect(last().req).toEqual({ method: 'GET', url: '/api/couriers/[email]' });
    log.info({ req: { method: 'GET', url: '/?token=abc' } }, 'query only');
    expect(last().req).toEqual({ method: 'GET', url: '/' });
  });

  it('cut a huge method', () => {
    const { log, last } = capture();
    log.info({ req: { method: 'G'.repeat(10_000), url: '/' } }, 'huge');
    const method = (last().req as Line).method as string;
    expect(method).toContain('[truncated, 10000 chars]');
    expect(method.length).toBeLessThan(MAX_LOGGED_CHARS + 100);
  });

  it('log a reply as its numeric status code only', () => {
    const { log, last } = capture();
    log.info({ res: { statusCode: '200', headers: { 'set-cookie': 'x' } } }, 'string status');
    expect(last().res).toEqual({});
    log.info({ res: { statusCode: 404, body: 'a@b.ru' } }, 'status');
    expect(last().res).toEqual({ statusCode: 404 });
  });
});
