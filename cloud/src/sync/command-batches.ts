/**
 * Splits commands into `commands` messages of at most `maxCount` commands and `maxBytes` of JSON
 * (a single larger command goes alone). By count alone, 50 orders at the HTTP API's limits with
 * three-byte characters come to about 21 MiB, over what the agent accepts (MAX_DOWN_MESSAGE_BYTES).
 */
import { MAX_DOWN_MESSAGE_BYTES } from '../../../shared/src/protocol.js';

/** Under half the agent's bound, with room for the envelope and each command's trace context. */
export const DOWN_BATCH_BYTES = MAX_DOWN_MESSAGE_BYTES / 2 - 65_536;

export function commandBatches<T>(items: readonly T[], maxCount: number, maxBytes = DOWN_BATCH_BYTES): T[][] {
  const out: T[][] = [];
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (batch.length > 0 && (batch.length >= maxCount || bytes + size > maxBytes)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
