/**
 * A maximum packet size for aedes, which has none: the client's MQTT parser (mqtt-packet) is
 * told to fail as soon as a packet's fixed header announces more than the limit, so the body is
 * never buffered, and aedes closes the connection on the parser's error. The parser is an
 * internal of aedes's Client; test/broker/packet-size.test.ts holds this to the installed version.
 */
import type { Client } from 'aedes';

interface PacketParser {
  packet: { length: number; cmd?: string };
  _parseLength(): boolean;
  _emitError(err: Error): void;
}

export class PacketTooLargeError extends Error {
  override readonly name = 'PacketTooLargeError';
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`packet of ${bytes} bytes over the limit of ${limit}`);
  }
}

/** Makes `client` fail with PacketTooLargeError on the first packet over `maxBytes(client)` (remaining length). */
export function limitPacketSize(client: Client, maxBytes: (client: Client) => number, onTooLarge: (client: Client, bytes: number, limit: number) => void): void {
  const parser = (client as unknown as { _parser?: PacketParser })._parser;
  if (typeof parser?._parseLength !== 'function' || typeof parser._emitError !== 'function') throw new Error('aedes client has no MQTT parser to bound: check the aedes version');
  const parseLength = parser._parseLength.bind(parser);
  parser._parseLength = () => {
    const known = parseLength();
    const limit = known ? maxBytes(client) : Infinity;
    if (parser.packet.length > limit) {
      onTooLarge(client, parser.packet.length, limit);
      parser._emitError(new PacketTooLargeError(parser.packet.length, limit));
      return false;
    }
    return known;
  };
}
