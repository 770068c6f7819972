/** A serial device (USB-RS485 adapter, RS-232 scanner, pseudo-terminal) through the `serialport` package. */
import { SerialPort } from 'serialport';
import type { Logger } from 'pino';
import type { SerialFraming } from '../config.js';
import { ReconnectingTransport, type Link, type LinkHandlers, type ReconnectSettings } from './reconnecting.js';

export class SerialTransport extends ReconnectingTransport {
  constructor(
    private readonly path: string,
    private readonly framing: SerialFraming,
    reconnect: ReconnectSettings,
    logger: Logger,
  ) {
    super(path, reconnect, logger);
  }

  protected connect(handlers: LinkHandlers): Promise<Link> {
    const port = new SerialPort({ path: this.path, ...this.framing, autoOpen: false });
    return new Promise((resolve, reject) => {
      port.open((err) => {
        if (err) return reject(err);
        port.on('data', (d: Buffer) => handlers.onData(d));
        port.on('error', (e: Error) => handlers.onClose(e));
        port.on('close', () => handlers.onClose());
        resolve({
          write: (data) =>
            new Promise<void>((res, rej) => {
              port.write(data, (werr) => {
                if (werr) return rej(werr);
                port.drain((derr) => (derr ? rej(derr) : res()));
              });
            }),
          destroy: () =>
            new Promise<void>((res) => {
              if (!port.isOpen) return res();
              port.close(() => res());
            }),
        });
      });
    });
  }
}
