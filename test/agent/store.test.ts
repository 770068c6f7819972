import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../agent/src/store/index.js';
import { ManualClock, NOON, tempStore, type TempStore } from './fixtures.js';

describe('LockerStore: the locker link view', () => {
  let t: TempStore;
  const clock = new ManualClock(NOON);
  beforeEach(() => {
    t = tempStore(clock);
  });
  afterEach(() => t.close());

  it('numbers events without gaps, acks cumulatively and tells listeners after the commit', async () => {
    const { store } = t;
    let signals = 0;
    const off = store.outbox.onAppend(() => signals++);
    const dseqs = store.tx(() => [
      store.outbox.emit({ type: 'code.attempt', kind: 'courier', ok: false }),
      store.outbox.emit({ type: 'board.state', bus: 'main', board: 1, online: false }),
    ]);
    expect(dseqs).toEqual([1, 2]);
    expect(() => store.tx(() => {
      store.outbox.emit({ type: 'code.attempt', kind: 'customer', ok: true });
      throw new Error('rolled back');
    })).toThrow('rolled back');
    expect(store.outbox.emit({ type: 'door.alarm', cellId: 4, kind: 'left_open' })).toBe(3);
    await new Promise((r) => setImmediate(r));
    expect(signals).toBeGreaterThan(0);
    off();
    expect(store.eventsAfter(1).map((e) => [e.dseq, e.type, e.at])).toEqual([
      [2, 'board.state', NOON],
      [3, 'door.alarm', NOON],
    ]);
    store.markAcked(2);
    store.markAcked(1);
    expect(store.ackedDseq()).toBe(2);
    store.markAcked(99);
    expect(store.ackedDseq()).toBe(3);
    expect(() => store.outbox.emit({ type: 'door.alarm', cellId: 0, kind: 'closed' })).toThrow();
  });

  it('connection counter grows across restarts', () => {
    expect(t.store.nextConnectionCounter()).toBe(1);
    expect(t.store.nextConnectionCounter()).toBe(2);
    t.store.close();
    const again = openStore(t.path, clock);
    try {
      expect(again.nextConnectionCounter()).toBe(3);
      expect(again.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(again.db.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      again.close();
    }
  });
});
