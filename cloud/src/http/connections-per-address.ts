/**
 * HTTP connections per remote address (HTTP_MAX_CONNECTIONS_PER_ADDRESS): one address holding
 * this many open sockets gets its next connection closed at once, unanswered, before a byte of it
 * is read, so one client cannot take the whole HTTP_MAX_CONNECTIONS from the others. Behind a
 * reverse proxy every connection comes from the proxy's address: set it above what the proxy opens
 * (or 0, off) and bound clients at the proxy.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function limitConnectionsPerAddress(server: Server, max: number, refused: () => void): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  // Runs after the HTTP server's own listener in the same turn: nothing of the socket is read yet.
  server.on('connection', (socket: Socket) => {
    // A socket already gone has no address; it counts under one shared key.
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      refused();
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
