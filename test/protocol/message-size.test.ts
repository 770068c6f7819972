/**
 * The largest legal message of each kind on the locker link stays at most half the bound its
 * receiver enforces: MQTT_MAX_PACKET_BYTES's default for what a locker sends, MAX_DOWN_MESSAGE_BYTES
 * for what the cloud sends. The figures are in docs/mqtt-interface.md, "Message size".
 */
import { describe, expect, it } from 'vitest';
import { MAX_DOWN_MESSAGE_BYTES, MAX_MESSAGE_BYTES } from '../../shared/src/protocol.js';
import { largestMessages } from './largest-messages.js';

describe('the largest message of each kind', () => {
  const measured = largestMessages();
  it.each(measured.map((m) => [m.name, m] as const))('%s: at most half its bound', (_name, m) => {
    const bound = m.direction === 'up' ? MAX_MESSAGE_BYTES : MAX_DOWN_MESSAGE_BYTES;
    expect(m.bytes).toBeLessThanOrEqual(bound / 2);
  });
});
