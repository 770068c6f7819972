import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { loggerOptions, scrubText } from '../../shared/src/redact.js';

describe('log redaction', () => {
  it('scrubs e-mails, phones and codes from free text', () => {
    expect(scrubText('courier ivan.petrov@example.ru failed')).toBe('courier [email] failed');
    expect(scrubText('phone +79161234567 and 8 (916) 123-45-67')).toBe('phone [phone] and [phone]');
    expect(scrubText('code 483920 rejected')).toBe('code [code] rejected');
  });

  it('finds them in Russian text with typographic quotes and spaces, and in international formats', () => {
    expect(scrubText('код «483920», №48392011, код\u00a0483920.')).toBe('код «[code]», №[code], код\u00a0[code].');
    expect(scrubText('тел. +7\u00a0916\u00a0123\u201145\u201167, 8-800-555-35-35, 79161234567')).toBe('тел. [phone], [phone], [phone]');
    expect(scrubText('+44 20 7946 0958 or +1 (415) 555-2671')).toBe('[phone] or [phone]');
    expect(scrubText('почта иван@почта.рф, <a.b+c@sub.example.co.uk>')).toBe('почта [email], <[email]>');
    expect(scrubText('pick-up ?code=48392011&x, code:483920')).toBe('pick-up ?code=[code]&x, code:[code]');
  });

  it('leaves ids, versions, times and addresses alone', () => {
    const text = 'cloud-ce1234567 order-20251234 Ёлка-483920 v1.123456 10:123456 127.0.0.1:1883 seq#1234567 550e8400-e29b-41d4-a716-446655440000 ECONNREFUSED';
    expect(scrubText(text)).toBe(text);
  });

  it('leaves device paths, times and ids alone', () => {
    const text = '/tmp/locker-sim-17321890-bus-main at 2026-11-21T10:00:00.000Z order 12';
    expect(scrubText(text)).toBe(text);
  });

  it('redacts known fields and error texts in log lines', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    const log = pino(loggerOptions('t', 'info'), sink);
    log.info({ phones: ['+79161234567'], body: { email: 'a@b.ru', accessCode: '123456' } }, 'sent to a@b.ru');
    log.error({ err: new Error('duplicate courier x@y.com') }, 'failed');
    const out = lines.join('');
    expect(out).not.toMatch(/79161234567|a@b\.ru|123456|x@y\.com/);
    expect(out).toContain('[redacted]');
  });
});

describe('log redaction of nested values', () => {
  it('scrubs codes under any field name and keeps diagnostic error codes', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    const log = pino(loggerOptions('t', 'info'), sink);
    log.warn({ attempt: { typed: '48213077' }, error: { code: 'ECONNREFUSED' } }, 'link down');
    const out = lines.join('');
    expect(out).not.toContain('48213077');
    expect(out).toContain('ECONNREFUSED');
  });
});

describe('log lines an operator can read', () => {
  const capture = () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk: Buffer, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    return { log: pino(loggerOptions('t', 'info'), sink), lines, last: () => JSON.parse(lines.at(-1)!) as Record<string, unknown> };
  };

  it('keeps ids with digit runs readable, in id fields and in free text', () => {
    const { log, last } = capture();
    const ids = { orderId: '12345678', externalId: '87654321', barcode: '11223344', lockerId: 'cloud-ce1234567', id: 'order-20251234', notificationIds: ['20251234'], cellId: 1234567 };
    log.info(ids, 'order order-20251234 in cloud-ce1234567 at /tmp/sim-12345678/bus, 550e8400-e29b-41d4-a716-446655440000');
    expect(last()).toMatchObject({ ...ids, msg: 'order order-20251234 in cloud-ce1234567 at /tmp/sim-12345678/bus, 550e8400-e29b-41d4-a716-446655440000' });
  });

  it('redacts credentials and personal fields by name at any depth and in any spelling', () => {
    const { log, lines } = capture();
    log.info({ a: { b: { c: { apiKey: 'k-secret-1', password: 'p-secret-2', 'x-service-api-key': 'k-secret-3', hmac_secret: 'k-secret-4', Authorization: 'Bearer k-secret-5' } } } });
    log.info({ courier: { phone: 'k-secret-6', email: 'k-secret-7', postamatAccessCode: 'k-secret-8' } });
    class Recipient {
      constructor(readonly phone: string, readonly name: string) {}
    }
    log.info({ to: new Recipient('k-secret-9', 'Ivan') });
    const out = lines.join('');
    expect(out).not.toMatch(/k-secret/);
    expect(out).toContain('Ivan');
  });

  it('redacts secrets named in child loggers\' fields and scrubs error-like objects', () => {
    const { log, lines } = capture();
    log.child({ lockerId: 'locker-20251234', token: 'k-secret', 'x-service-api-key': 'k-secret' }).info({ err: { message: 'sent to +79161234567' } }, 'x');
    expect(JSON.parse(lines[0]!)).toMatchObject({ lockerId: 'locker-20251234', token: '[redacted]', 'x-service-api-key': '[redacted]', err: { message: 'sent to [phone]' } });
  });

  it('scrubs the message an error gives to a line without one', () => {
    const { log, last } = capture();
    log.error(new Error('no courier for +79161234567'));
    expect(last().msg).toBe('no courier for [phone]');
    log.error({ err: new Error('duplicate ivan@example.ru') });
    expect(last().msg).toBe('duplicate [email]');
    expect(last().err).toMatchObject({ type: 'Error', message: 'duplicate [email]' });
  });

  it('logs requests and replies as method, route, path and status, never headers or query strings', () => {
    const { log, last } = capture();
    const req = { method: 'PUT', url: '/api/v4/orders/order-20251234?phone=%2B79161234567', routeOptions: { url: '/api/v4/orders/:id' }, headers: { 'x-service-api-key': 'k-secret' }, body: { email: 'a@b.ru' } };
    log.info({ req, res: { statusCode: 201, getHeaders: () => ({}) } }, 'done');
    expect(last()).toMatchObject({ req: { method: 'PUT', route: '/api/v4/orders/:id', url: '/api/v4/orders/order-20251234' }, res: { statusCode: 201 } });
    expect(JSON.stringify(last())).not.toMatch(/k-secret|a@b|7916/);
  });

  it('cuts megabyte strings to a few kilobytes in every place a string can be', () => {
    const { log, lines } = capture();
    const huge = `+7${'1'.repeat(2 * 1024 * 1024)}`;
    log.warn({ externalId: huge, text: huge, list: [huge], err: new Error(huge) }, huge);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(40 * 1024);
    expect(lines[0]).toContain('…[truncated, 2097154 chars]');
  });
});
