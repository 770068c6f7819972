/**
 * Optional signature of notification bodies, for marketplaces that configure an HMAC secret:
 *
 *   X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The receiver recomputes the HMAC over the timestamp, a dot and the raw request body exactly as
 * received (before any JSON parsing), compares it in constant time, and rejects timestamps too far
 * from its own clock (replays). Each attempt is signed anew, so a retry carries a fresh timestamp.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-signature';
/** Default allowed distance between the signature's timestamp and the receiver's clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

export function signatureHeader(secret: string, rawBody: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, unixSeconds, rawBody)}`;
}

/** The receiver's check: true when the header signs this body and its timestamp is recent. */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  nowUnixSeconds: number,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = new Map(
    header.split(',').map((kv) => {
      const i = kv.indexOf('=');
      return [kv.slice(0, i).trim(), kv.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowUnixSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  return timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(hmacHex(secret, t, rawBody), 'hex'));
}
