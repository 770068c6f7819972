/**
 * The signature header verifies with the procedure docs/notifications.md gives receivers, written
 * out here independently of the cloud's code; a changed body, secret or stale timestamp fails.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '../../cloud/src/notify/signature.js';

/** docs/notifications.md, "Verifying the signature", step by step. */
function receiverCheck(secret: string, header: string, rawBody: string, nowSeconds: number): boolean {
  const fields = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(fields.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${fields.t}.${rawBody}`).digest();
  const given = Buffer.from(fields.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('notification signature', () => {
  const secret = 'a-marketplace-secret-of-some-length';
  const body = '[{"id":"E1","barcode":"E1-P1","event_id":"7","status":"Awaiting return","dt":"2030-03-07T12:02:00+03:00"}]';
  const t = 1_900_000_000;

  it('has the documented form and verifies with the documented procedure', () => {
    const header = signatureHeader(secret, body, t);
    expect(header).toMatch(/^t=1900000000,v1=[0-9a-f]{64}$/);
    expect(receiverCheck(secret, header, body, t + 10)).toBe(true);
    expect(verifySignature(secret, header, body, t + 10)).toBe(true);
  });

  it('fails for another body, another secret, or a timestamp outside the tolerance', () => {
    const header = signatureHeader(secret, body, t);
    for (const [s, b, now] of [
      [secret, body.replace('E1-P1', 'E1-P2'), t],
      [`${secret}x`, body, t],
      [secret, body, t + 301],
      [secret, body, t - 301],
    ] as const) {
      expect(receiverCheck(s, header, b, now)).toBe(false);
      expect(verifySignature(s, header, b, now)).toBe(false);
    }
    expect(verifySignature(secret, undefined, body, t)).toBe(false);
    expect(verifySignature(secret, 't=abc,v1=00', body, t)).toBe(false);
  });
});
