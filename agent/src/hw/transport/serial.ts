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
              // A port closed under a write (device gone) never calls drain back: serialport queues
              // the drain until the port opens again, and this port object never does. Without
              // this the write would hang and with it the bus's frame in flight, for good.
              const onClose = (): void => rej(new Error(`${this.path} closed during a write`));
              port.once('close', onClose);
              port.write(data, (werr) => {
                if (werr) {
                  port.off('close', onClose);
                  return rej(werr);
                }
                port.drain((derr) => {
                  port.off('close', onClose);
                  if (derr) rej(derr);
                  else res();
                });
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
