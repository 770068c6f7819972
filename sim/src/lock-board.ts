/**
 * One simulated lock board: its locks, doors and item sensors, and the board-wide faults.
 * Doors follow the physical cycle: a pulse releases the hook and the door springs open; a person
 * pushes it shut and the hook latches again.
 */

export interface SimLock {
  /** Door open (hook released). */
  open: boolean;
  /** Item-present sensor (CU16 infrared). */
  item: boolean;
  /** Fault: the pulse does not release the hook. */
  jammed: boolean;
  /** Fault: the door cannot be pushed shut (something is in the way, a broken latch). */
  leftOpen: boolean;
  /** Unlock pulses received. */
  pulses: number;
}

export type Polarity = 'normal' | 'inverted';

export interface SimBoardState {
  address: number;
  polarity: Polarity;
  /** Replies still to swallow, or 'always' until cleared. */
  noReply: number | 'always';
  /** Replies still to send with a wrong checksum, or 'always' until cleared. */
  badChecksum: number | 'always';
  /** Request frames addressed to this board (broadcasts included). */
  requests: number;
  locks: SimLock[];
}

export class SimBoard {
  readonly locks: SimLock[];
  noReply = 0;
  badChecksum = 0;
  requests = 0;
  private readonly closeTimers = new Map<number, NodeJS.Timeout>();

  constructor(
    readonly address: number,
    readonly polarity: Polarity,
    lockCount: number,
    private readonly autoCloseMs: number | undefined,
    private readonly onChange: () => void,
  ) {
    this.locks = Array.from({ length: lockCount }, () => ({ open: false, item: false, jammed: false, leftOpen: false, pulses: 0 }));
  }

  lock(n: number): SimLock {
    const l = this.locks[n - 1];
    if (!l) throw new RangeError(`board ${this.address} has locks 1-${this.locks.length}`);
    return l;
  }

  /** The status bits as the board reports them (after its wiring polarity). */
  hookBits(): boolean[] {
    return this.locks.map((l) => (this.polarity === 'normal' ? !l.open : l.open));
  }

  items(): boolean[] {
    return this.locks.map((l) => l.item);
  }

  pulse(n: number): void {
    const l = this.lock(n);
    l.pulses += 1;
    if (l.jammed) return;
    this.openDoor(n);
  }

  /** The door swings open (after a pulse, or by the service key). */
  openDoor(n: number): void {
    const l = this.lock(n);
    const wasOpen = l.open;
    l.open = true;
    if (!wasOpen) this.onChange();
    if (this.autoCloseMs !== undefined && !this.closeTimers.has(n)) {
      const t = setTimeout(() => {
        this.closeTimers.delete(n);
        this.closeDoor(n);
      }, this.autoCloseMs);
      t.unref();
      this.closeTimers.set(n, t);
    }
  }

  /** A person pushes the door shut; false when the door-left-open fault keeps it open. */
  closeDoor(n: number): boolean {
    const l = this.lock(n);
    if (l.leftOpen) return false;
    const wasOpen = l.open;
    l.open = false;
    const t = this.closeTimers.get(n);
    if (t) clearTimeout(t);
    this.closeTimers.delete(n);
    if (wasOpen) this.onChange();
    return true;
  }

  /** Takes one reply fault into account; 'drop', 'corrupt' or 'send'. */
  nextReply(): 'drop' | 'corrupt' | 'send' {
    if (this.noReply > 0) {
      this.noReply -= 1;
      return 'drop';
    }
    if (this.badChecksum > 0) {
      this.badChecksum -= 1;
      return 'corrupt';
    }
    return 'send';
  }

  dispose(): void {
    for (const t of this.closeTimers.values()) clearTimeout(t);
    this.closeTimers.clear();
  }

  state(): SimBoardState {
    return {
      address: this.address,
      polarity: this.polarity,
      noReply: Number.isFinite(this.noReply) ? this.noReply : 'always',
      badChecksum: Number.isFinite(this.badChecksum) ? this.badChecksum : 'always',
      requests: this.requests,
      locks: this.locks.map((l) => ({ ...l })),
    };
  }
}
