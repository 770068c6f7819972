/** `tcp://host:port`: the board maker's TCP-to-RS485 unit, ser2net, or the simulator. */
import net from 'node:net';
import type { Logger } from 'pino';
import { ReconnectingTransport, type Link, type LinkHandlers, type ReconnectSettings } from './reconnecting.js';

export function parseTcpUrl(path: string): { host: string; port: number } | undefined {
  const m = /^tcp:\/\/([^/:]+):(\d{1,5})$/.exec(path);
  if (!m?.[1] || !m[2]) return undefined;
  const port = Number(m[2]);
  return port > 0 && port < 65536 ? { host: m[1], port } : undefined;
}

/** A bridge that neither accepts nor refuses within this time counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

export class TcpTransport extends ReconnectingTransport {
  private pending: net.Socket | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    reconnect: ReconnectSettings,
    logger: Logger,
  ) {
    super(`tcp://${host}:${port}`, reconnect, logger);
  }

  protected override abortConnect(): void {
    this.pending?.destroy();
  }

  protected connect(handlers: LinkHandlers): Promise<Link> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection({ host: this.host, port: this.port, timeout: CONNECT_TIMEOUT_MS });
      this.pending = socket;
      const fail = (err: Error): void => {
        this.pending = undefined;
        socket.destroy();
        reject(err);
      };
      const onError = (err: Error): void => fail(err);
      const onTimeout = (): void => fail(new Error(`no answer from ${this.host}:${this.port} within ${CONNECT_TIMEOUT_MS} ms`));
      const onClose = (): void => fail(new Error('connection attempt abandoned'));
      socket.once('error', onError);
      socket.once('timeout', onTimeout);
      socket.once('close', onClose);
      socket.once('connect', () => {
        this.pending = undefined;
        socket.off('error', onError);
        socket.off('timeout', onTimeout);
        socket.off('close', onClose);
        socket.setTimeout(0);
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
