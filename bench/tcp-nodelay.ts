/**
 * Preload for an experiment: TCP_NODELAY on every socket of the process (clients and servers),
 * to see what the locker link's round trips cost without Nagle's algorithm:
 *   node --import tsx --import ./bench/tcp-nodelay.ts bench/run.ts link
 */
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

const { connect } = net.Socket.prototype as unknown as { connect: (this: net.Socket, ...args: unknown[]) => net.Socket };
(net.Socket.prototype as unknown as { connect: typeof connect }).connect = function (this: net.Socket, ...args: unknown[]) {
  this.setNoDelay(true);
  return connect.apply(this, args);
};

const createServer = net.createServer;
net.createServer = function (...args: Parameters<typeof createServer>) {
  const server = createServer(...args);
  server.on('connection', (socket: net.Socket) => socket.setNoDelay(true));
  return server;
} as typeof createServer;

// `import { createServer } from 'node:net'` elsewhere sees the patched function too.
syncBuiltinESMExports();
