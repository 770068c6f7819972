/**
 * MQTT exchanges are small packets answered by small packets (PUBLISH -> PUBACK -> next batch).
 * With Nagle's algorithm on, each such write waits for the peer's delayed ACK (~40 ms on Linux,
 * 88 ms per round trip measured in bench/link.bench.ts); neither mqtt.js nor aedes turns it off.
 */
interface HasStream {
  stream?: unknown;
}

/** Turns Nagle off on an mqtt.js client's current TCP socket (no-op for WebSocket streams). */
export function disableNagle(client: HasStream): void {
  const stream = client.stream as { setNoDelay?: (noDelay: boolean) => unknown } | undefined;
  if (typeof stream?.setNoDelay === 'function') stream.setNoDelay(true);
}
