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
