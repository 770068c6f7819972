import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyCommand, applySnapshot } from '../../agent/src/commands/index.js';
import { openStore, type LockerStore } from '../../agent/src/store/index.js';
import { ManualClock, NOON, cell, commands, grant, lockerConfig, order, parcel, pickupHash, tempStore, type TempStore } from './fixtures.js';

describe('applyCommand', () => {
  let t: TempStore;
  let store: LockerStore;
  const clock = new ManualClock(NOON);

  beforeEach(() => {
    t = tempStore(clock);
    store = t.store;
  });
  afterEach(() => t.close());

  it('applies in cseq order, ignores duplicates and stops at a gap', () => {
    const [c1, c2, c3] = commands([
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 1 })]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3600_000) },
    ]);
    expect(applyCommand(store, c1!)).toEqual({ status: 'applied', appliedCseq: 1 });
    expect(applyCommand(store, c3!)).toEqual({ status: 'gap', appliedCseq: 1 });
    expect(store.grants.get('g1')).toBeNull();
    expect(applyCommand(store, c2!)).toEqual({ status: 'applied', appliedCseq: 2 });
    expect(applyCommand(store, c2!)).toEqual({ status: 'duplicate', appliedCseq: 2 });
    expect(applyCommand(store, c1!)).toEqual({ status: 'duplicate', appliedCseq: 2 });
    expect(applyCommand(store, c3!)).toEqual({ status: 'applied', appliedCseq: 3 });
    expect(store.appliedCseq()).toBe(3);
    expect(store.cells.all().map((c) => c.id)).toEqual([1, 2]);
    expect(store.orders.get('o1')?.intent.parcels[0]?.cellId).toBe(1);
    expect(store.grants.get('g1')?.courierRef).toBe('c-g1');
  });

  it('keeps appliedCseq across a reopen of the file', () => {
    const [c1, c2] = commands([
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 1000) },
    ]);
    applyCommand(store, c1!);
    store.close();
    const reopened = openStore(t.path, clock);
    try {
      expect(reopened.appliedCseq()).toBe(1);
      expect(applyCommand(reopened, c1!).status).toBe('duplicate');
      expect(applyCommand(reopened, c2!).status).toBe('applied');
    } finally {
      reopened.close();
    }
  });

  it('finds parcels by barcode and additional barcodes, and orders by pick-up code hash', () => {
    const o = order('o1', [parcel('B1', { additionalBarcodes: ['X1', 'X2'] }), parcel('B2')], { state: 3, pickupCodeHash: pickupHash('123456') });
    for (const c of commands([{ type: 'order.upsert', order: o }])) applyCommand(store, c);
    expect(store.orders.findByBarcode('X2').map((m) => m.parcel.barcode)).toEqual(['B1']);
    expect(store.orders.findByBarcode('B2').map((m) => m.parcel.barcode)).toEqual(['B2']);
    expect(store.orders.findByBarcode('nope')).toEqual([]);
    expect(store.orders.byPickupCodeHash(pickupHash('123456')).map((s) => s.intent.orderId)).toEqual(['o1']);
    // an update replaces the barcodes too
    const updated = order('o1', [parcel('B1'), parcel('B2')], { state: 3, pickupCodeHash: null });
    applyCommand(store, commands([{ type: 'order.upsert', order: updated }], 2)[0]!);
    expect(store.orders.findByBarcode('X2')).toEqual([]);
    expect(store.orders.byPickupCodeHash(pickupHash('123456'))).toEqual([]);
  });

  it('a stale intent never undoes a fact: the loaded parcel stays in its cell', () => {
    const cmds = commands([
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 1 }), parcel('B2', { cellId: 1 })]) },
    ]);
    for (const c of cmds) applyCommand(store, c);
    store.tx(() => store.parcels.recordLoaded('o1', 'B1', 1, NOON, 'g1'));
    // the cloud, not yet aware of the load, cancels the position and moves the other one
    const stale = order('o1', [parcel('B1', { state: 'cancelled', cellId: null }), parcel('B2', { cellId: 2 })]);
    applyCommand(store, commands([{ type: 'order.upsert', order: stale }], 3)[0]!);
    expect(store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 1, state: 'in_cell' });
    expect(store.orders.get('o1')?.intent.parcels[0]?.state).toBe('cancelled');
    // order.remove keeps the order while a parcel of it is in a cell, without its pick-up code
    applyCommand(store, commands([{ type: 'order.remove', orderId: 'o1' }], 4)[0]!);
    expect(store.orders.get('o1')?.removed).toBe(true);
    expect(store.parcels.inCell(1).map((p) => p.barcode)).toEqual(['B1']);
    // and forgets an order with nothing in the locker
    applyCommand(store, commands([{ type: 'order.upsert', order: order('o2', [parcel('C1')]) }, { type: 'order.remove', orderId: 'o2' }], 5)[0]!);
    applyCommand(store, commands([{ type: 'order.remove', orderId: 'o2' }], 6)[0]!);
    expect(store.orders.get('o2')).toBeNull();
  });

  it('a command from before the cloud heard of a local fault does not clear it', () => {
    applyCommand(store, commands([{ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S', { flags: ['dirty'] })]) }])[0]!);
    store.tx(() => store.cells.raiseLocalFlag(1, 'faulty'));
    expect(store.cells.get(1)?.flags).toEqual(['faulty', 'dirty']);
    applyCommand(store, commands([{ type: 'cell.flags', cellId: 1, flags: [] }], 2)[0]!);
    expect(store.cells.get(1)?.flags).toEqual(['faulty']);
    // the cloud echoes the fault: from now on the cloud's flags decide
    applyCommand(store, commands([{ type: 'cell.flags', cellId: 1, flags: ['faulty'] }], 3)[0]!);
    expect(store.cells.get(1)).toMatchObject({ cloudFlags: ['faulty'], localFlags: [] });
    applyCommand(store, commands([{ type: 'cell.flags', cellId: 1, flags: [] }], 4)[0]!);
    expect(store.cells.get(1)?.flags).toEqual([]);
  });

  it('locker.config keeps a dropped cell while a parcel is in it', () => {
    applyCommand(store, commands([{ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]) }])[0]!);
    applyCommand(store, commands([{ type: 'order.upsert', order: order('o1', [parcel('B1')]) }], 2)[0]!);
    store.tx(() => store.parcels.recordLoaded('o1', 'B1', 2, NOON, 'g1'));
    applyCommand(store, commands([{ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S')]) }], 3)[0]!);
    expect(store.cells.all().map((c) => [c.id, c.inLayout])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it('courier.revoke removes the grant', () => {
    for (const c of commands([
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 1000) },
      { type: 'courier.revoke', grantId: 'g1' },
    ]))
      applyCommand(store, c);
    expect(store.grants.all()).toEqual([]);
  });
});

describe('applySnapshot', () => {
  const clock = new ManualClock(NOON);

  it('replaces intent, keeps facts and local flags, and sets appliedCseq', () => {
    const t = tempStore(clock);
    const { store } = t;
    try {
      for (const c of commands([
        { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
        { type: 'order.upsert', order: order('o1', [parcel('B1')]) },
        { type: 'order.upsert', order: order('o2', [parcel('C1')]) },
        { type: 'courier.grant', grant: grant('g1', '111111', NOON + 1000) },
      ]))
        applyCommand(store, c);
      store.tx(() => {
        store.parcels.recordLoaded('o1', 'B1', 1, NOON, 'g1');
        store.cells.raiseLocalFlag(2, 'faulty');
      });
      const result = applySnapshot(store, {
        cseq: 40,
        config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]),
        orders: [order('o3', [parcel('D1')])],
        grants: [grant('g2', '222222', NOON + 1000)],
      });
      expect(result).toEqual({ status: 'applied', appliedCseq: 40 });
      expect(store.appliedCseq()).toBe(40);
      expect(store.orders.get('o1')?.removed).toBe(true);
      expect(store.orders.get('o2')).toBeNull();
      expect(store.orders.get('o3')).not.toBeNull();
      expect(store.grants.all().map((g) => g.grantId)).toEqual(['g2']);
      expect(store.parcels.get('o1', 'B1')?.state).toBe('in_cell');
      expect(store.cells.get(2)?.flags).toEqual(['faulty']);
      expect(applySnapshot(store, { cseq: 39, config: lockerConfig([]), orders: [], grants: [] }).status).toBe('stale');
      expect(store.cells.all()).toHaveLength(3);
      // commands continue after the snapshot's cseq
      expect(applyCommand(store, commands([{ type: 'courier.revoke', grantId: 'g2' }], 41)[0]!).status).toBe('applied');
    } finally {
      t.close();
    }
  });
});
