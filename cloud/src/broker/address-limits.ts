/**
 * Connections per remote address on the embedded broker, two bounds:
 * - `maxPending`: connections not yet authenticated (TCP open, CONNECT not yet admitted), a tight
 *   one: a flood of sockets that never log in costs each address at most this many; a connection
 *   beyond it is closed at accept, before any byte is read;
 * - `maxTotal`: every connection of the address, a generous one: one locker's credentials hold
 *   one connection (a second with the same client id replaces the first), so only addresses with
 *   many lockers behind them (a NAT, the demo's and the sandbox's lockers on 127.0.0.1) come near;
 *   a CONNECT beyond it is refused with CONNACK "server unavailable".
 */
import type { Socket } from 'node:net';

interface Counts {
  pending: number;
  total: number;
}

export interface AddressLimitsOptions {
  maxPending: number;
  maxTotal: number;
}

export class AddressLimits {
  readonly #opts: AddressLimitsOptions;
  readonly #byAddress = new Map<string, Counts>();
  readonly #pending = new WeakSet<Socket>();
  readonly #addresses = new WeakMap<Socket, string>();

  constructor(opts: AddressLimitsOptions) {
    this.#opts = opts;
  }

  /** Counts a new socket; false (and nothing counted) when its address has maxPending already. */
  accept(socket: Socket): boolean {
    const address = addressOf(socket);
    const counts = this.#byAddress.get(address) ?? { pending: 0, total: 0 };
    if (counts.pending >= this.#opts.maxPending) return false;
    counts.pending++;
    counts.total++;
    this.#byAddress.set(address, counts);
    this.#pending.add(socket);
    this.#addresses.set(socket, address);
    socket.once('close', () => this.#closed(socket, address));
    return true;
  }

  /** Whether this socket's address may have one more authenticated connection. */
  mayAdmit(socket: Socket): boolean {
    const counts = this.#byAddress.get(this.#addresses.get(socket) ?? addressOf(socket));
    // The socket itself is among the total.
    return !counts || counts.total <= this.#opts.maxTotal;
  }

  /** The socket's CONNECT was admitted: it no longer counts as pending. */
  admitted(socket: Socket): void {
    if (!this.#pending.delete(socket)) return;
    const counts = this.#byAddress.get(this.#addresses.get(socket) ?? '');
    if (counts) counts.pending--;
  }

  #closed(socket: Socket, address: string): void {
    const counts = this.#byAddress.get(address);
    if (!counts) return;
    if (this.#pending.delete(socket)) counts.pending--;
    counts.total--;
    if (counts.total <= 0) this.#byAddress.delete(address);
  }
}

/** The remote address; a socket already gone has none, and counts under one shared key. */
function addressOf(socket: Socket): string {
  return socket.remoteAddress ?? '';
}
