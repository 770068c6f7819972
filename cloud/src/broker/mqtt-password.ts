/**
 * Locker MQTT passwords are kept only as SHA-256 hex (`lockers.mqtt_password_hash`); the agent's
 * config holds its own password in plain. Comparison is constant-time over fixed-length digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function hashMqttPassword(password: string | Buffer): string {
  return createHash('sha256').update(password).digest('hex');
}

/** True when `password` hashes to `expectedHex` (a malformed stored hash never matches). */
export function mqttPasswordMatches(password: string | Buffer, expectedHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(expectedHex)) return false;
  const actual = createHash('sha256').update(password).digest();
  return timingSafeEqual(actual, Buffer.from(expectedHex, 'hex'));
}
