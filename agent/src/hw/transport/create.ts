import type { Transport } from '@parcel-locker/hw-protocol';
import type { Logger } from 'pino';
import type { SerialFraming } from '../config.js';
import { SerialTransport } from './serial.js';
import { parseTcpUrl, TcpTransport } from './tcp.js';
import type { ReconnectSettings } from './reconnecting.js';

/** A transport for a config path: `tcp://host:port`, else a serial device path. */
export function createTransport(path: string, framing: SerialFraming, reconnect: ReconnectSettings, logger: Logger): Transport {
  if (path.startsWith('tcp://')) {
    const target = parseTcpUrl(path);
    if (!target) throw new Error(`bad tcp:// address: ${path}`);
    return new TcpTransport(target.host, target.port, reconnect, logger);
  }
  return new SerialTransport(path, framing, reconnect, logger);
}
