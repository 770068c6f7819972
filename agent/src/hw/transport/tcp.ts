/** `tcp://host:port`: the board maker's TCP-to-RS485 unit, ser2net, or the simulator. */
import net from 'node:net';
import type { Logger } from 'pino';
import { ReconnectingTransport, type Link, type LinkHandlers, type ReconnectSettings } from './transport.js';

export function parseTcpUrl(path: string): { host: string; port: number } | undefined {
  const m = /^tcp:\/\/([^/:]+):(\d{1,5})$/.exec(path);
  if (!m?.[1] || !m[2]) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1], port } : undefined;
}

export class TcpTransport extends ReconnectingTransport {
  constructor(
    private readonly host: string,
    private readonly port: number,
    reconnect: ReconnectSettings,
    logger: Logger,
  ) {
    super(`tcp://${host}:${port}`, reconnect, logger);
  }

  protected connect(handlers: LinkHandlers): Promise<Link> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection({ host: this.host, port: this.port });
      const onError = (err: Error): void => {
        socket.destroy();
        reject(err);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 10_000);
        socket.on('data', (d: Buffer) => handlers.onData(d));
        socket.on('error', (err) => handlers.onClose(err));
        socket.on('close', () => handlers.onClose());
        resolve({
          write: (data) =>
            new Promise<void>((res, rej) => {
              socket.write(data, (err) => (err ? rej(err) : res()));
            }),
          destroy: () =>
            new Promise<void>((res) => {
              if (socket.destroyed) return res();
              socket.once('close', () => res());
              socket.destroy();
            }),
        });
      });
    });
  }
}
