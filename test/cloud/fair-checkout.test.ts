/**
 * The fair checkout of the database pool (cloud/src/db/fair-checkout.ts) on its own: shares,
 * round-robin turns, bounded queues, nested checkouts. No clock is involved: every step is a
 * checkout or a release, and the test waits on the promises they give.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../cloud/src/config.js';
import { CheckoutQueueFull, FairCheckout, type ReleaseSlot } from '../../cloud/src/db/fair-checkout.js';

/** Lets settled promises' callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A checkout whose grant is recorded in `order` when it happens. */
function track(checkout: FairCheckout, caller: string, order: string[], bounded = true): { slot: Promise<ReleaseSlot> } {
  const slot = checkout.acquire(caller, { bounded });
  slot.then(
    () => order.push(caller),
    () => undefined,
  );
  return { slot };
}

describe('fair checkout', () => {
  it('grants at once below the capacity and the share', async () => {
    const checkout = new FairCheckout({ capacity: 4, share: 2, queueMax: 10 });
    const a1 = await checkout.acquire('a', { bounded: true });
    const b1 = await checkout.acquire('b', { bounded: true });
    expect(checkout.stats('a')).toEqual({ held: 2, waiting: 0, callerHeld: 1, callerWaiting: 0 });
    a1();
    a1(); // a second release gives nothing back twice
    b1();
    expect(checkout.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('keeps a caller at its share while the pool has room for others', async () => {
    const checkout = new FairCheckout({ capacity: 4, share: 2, queueMax: 10 });
    const order: string[] = [];
    const held = [await checkout.acquire('flood', { bounded: true }), await checkout.acquire('flood', { bounded: true })];
    const third = track(checkout, 'flood', order);
    await settle();
    expect(order).toEqual([]);
    // Another caller is served at once: the flood's share leaves it room.
    const other = await checkout.acquire('other', { bounded: true });
    expect(checkout.stats('flood')).toMatchObject({ held: 3, callerHeld: 2, callerWaiting: 1 });
    held[0]!();
    (await third.slot)();
    held[1]!();
    other();
    expect(checkout.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('serves waiting callers in turn, not in arrival order', async () => {
    const checkout = new FairCheckout({ capacity: 2, share: 2, queueMax: 10 });
    const order: string[] = [];
    const first = [await checkout.acquire('x', { bounded: true }), await checkout.acquire('x', { bounded: true })];
    // The flood queues three, then two others one each.
    const waits = [track(checkout, 'flood', order), track(checkout, 'flood', order), track(checkout, 'flood', order), track(checkout, 'b', order), track(checkout, 'c', order)];
    first[0]!();
    first[1]!();
    await settle();
    expect(order).toEqual(['flood', 'b']);
    // Each release serves the next caller in turn: c before the flood's second.
    (await waits[0]!.slot)();
    await settle();
    expect(order).toEqual(['flood', 'b', 'c']);
    (await waits[3]!.slot)();
    await settle();
    expect(order).toEqual(['flood', 'b', 'c', 'flood']);
    for (const w of [waits[4]!, waits[1]!]) (await w.slot)();
    await settle();
    expect(order).toEqual(['flood', 'b', 'c', 'flood', 'flood']);
    (await waits[2]!.slot)();
    expect(checkout.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('refuses a bounded caller beyond its queue at once, and never internal work', async () => {
    const checkout = new FairCheckout({ capacity: 1, share: 1, queueMax: 2 });
    const order: string[] = [];
    const holder = await checkout.acquire('flood', { bounded: true });
    const queued = [track(checkout, 'flood', order), track(checkout, 'flood', order)];
    await expect(checkout.acquire('flood', { bounded: true })).rejects.toBeInstanceOf(CheckoutQueueFull);
    // Another caller's queue is its own; internal work is never refused.
    // Unbounded checkouts of the same caller (work under way) wait beyond the bound and do not fill it.
    const underWay = track(checkout, 'flood', order, false);
    await expect(checkout.acquire('flood', { bounded: true })).rejects.toBeInstanceOf(CheckoutQueueFull);
    queued.push(underWay);
    const other = track(checkout, 'other', order);
    const system = [track(checkout, 'system', order, false), track(checkout, 'system', order, false), track(checkout, 'system', order, false)];
    expect(checkout.stats()).toMatchObject({ held: 1, waiting: 7 });
    holder();
    // One slot: each release hands it to the next caller in turn.
    const grants = { flood: queued, other: [other], system };
    for (const expected of ['flood', 'other', 'system', 'flood', 'system', 'flood', 'system'] as const) {
      await settle();
      expect(order.at(-1)).toBe(expected);
      expect(checkout.stats().held).toBe(1);
      (await grants[expected].shift()!.slot)();
    }
    expect(checkout.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('lets a nested checkout through beyond the share and the capacity', async () => {
    const checkout = new FairCheckout({ capacity: 1, share: 1, queueMax: 0 });
    const outer = await checkout.acquire('a', { bounded: true });
    const inner = await checkout.acquire('a', { bounded: true, nested: true });
    expect(checkout.stats('a')).toMatchObject({ held: 2, callerHeld: 2 });
    inner();
    outer();
    expect(checkout.stats()).toMatchObject({ held: 0, waiting: 0 });
  });

  it('is set by DB_POOL_CALLER_SHARE and DB_POOL_CALLER_QUEUE, refused at start naming the variable', () => {
    expect(loadConfig({ DB_POOL_CALLER_SHARE: '0.25', DB_POOL_CALLER_QUEUE: '50' })).toMatchObject({ dbPoolCallerShare: 0.25, dbPoolCallerQueue: 50 });
    expect(() => loadConfig({ DB_POOL_CALLER_SHARE: '0' })).toThrow(/DB_POOL_CALLER_SHARE/);
    expect(() => loadConfig({ DB_POOL_CALLER_SHARE: '1.5' })).toThrow(/DB_POOL_CALLER_SHARE/);
    expect(() => loadConfig({ DB_POOL_CALLER_QUEUE: '0' })).toThrow(/DB_POOL_CALLER_QUEUE/);
  });

  it('rejects impossible bounds', () => {
    expect(() => new FairCheckout({ capacity: 2, share: 3, queueMax: 1 })).toThrow(/invalid/);
    expect(() => new FairCheckout({ capacity: 0, share: 0, queueMax: 1 })).toThrow(/invalid/);
  });
});
