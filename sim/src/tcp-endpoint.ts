/** A TCP port carrying a simulated device's bytes, as a TCP-to-RS485 unit or ser2net would. */
import net from 'node:net';
import { listen } from './listen.js';

export class TcpEndpoint {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private boundPort = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly onInput: (chunk: Buffer) => void,
  ) {}

  get url(): string {
    return `tcp://${this.host}:${this.boundPort}`;
  }

  get listeningPort(): number {
    return this.boundPort;
  }

  get clients(): number {
    return this.sockets.size;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((socket) => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on('data', (d: Buffer) => this.onInput(d));
      socket.on('error', () => socket.destroy());
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    this.boundPort = await listen(server, this.port, this.host);
  }

  /** Writes to every connected client (a bus is shared by whoever listens on it). */
  write(chunk: Buffer): void {
    for (const s of this.sockets) if (!s.destroyed) s.write(chunk);
  }

  /** Drops every client connection (a bridge restarting); the port keeps listening. */
  dropClients(): void {
    for (const s of this.sockets) s.destroy();
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
