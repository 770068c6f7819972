/**
 * What the shared barrel gives both sides of the link: the cell fit and stack placement (every
 * stacking axis), code hashes, and the protocol schemas accepting and refusing wire messages.
 */
import { describe, expect, it } from 'vitest';
import {
  BASE_COMMAND_TYPES,
  COMMAND_TYPES,
  CodeKind,
  PROTOCOL_VERSION,
  boxFitsCell,
  boxesFitCell,
  cellVolume,
  codeHash,
  commandSchema,
  downMessageSchema,
  eventSchema,
  minStackExtent,
  presenceSchema,
  stackFrame,
  stackPlacement,
  upMessageSchema,
  type Box,
  type CellSpace,
  type OrderIntent,
  type PlacedBox,
} from '../../shared/src/index.js';

const box = (length: number, width: number, height: number): Box => ({ length, width, height });

/** No box sticks out of the cell, no two overlap, and each keeps its own three extents. */
function checkPlacement(boxes: Box[], cell: CellSpace, placed: PlacedBox[]): void {
  expect(placed).toHaveLength(boxes.length);
  placed.forEach((p, i) => {
    const b = boxes[i]!;
    expect([p.dx, p.dy, p.dz].sort((a, c) => a - c)).toEqual([b.length, b.width, b.height].sort((a, c) => a - c));
    expect(p.x + p.dx).toBeLessThanOrEqual(cell.width);
    expect(p.y + p.dy).toBeLessThanOrEqual(cell.height);
    expect(p.z + p.dz).toBeLessThanOrEqual(cell.depth);
    for (const q of placed.slice(i + 1)) {
      const apart = p.x + p.dx <= q.x || q.x + q.dx <= p.x || p.y + p.dy <= q.y || q.y + q.dy <= p.y || p.z + p.dz <= q.z || q.z + q.dz <= p.z;
      expect(apart).toBe(true);
    }
  });
}

describe('fit of one box', () => {
  const cell: CellSpace = { width: 400, height: 100, depth: 600 };

  it('fits in any rotation, and not when any sorted extent is too large', () => {
    expect(boxFitsCell(box(600, 400, 100), cell)).toBe(true);
    expect(boxFitsCell(box(100, 600, 400), cell)).toBe(true);
    expect(boxFitsCell(box(601, 10, 10), cell)).toBe(false);
    expect(boxFitsCell(box(500, 500, 10), cell)).toBe(false);
    expect(boxFitsCell(box(300, 300, 101), cell)).toBe(false);
  });

  it('measures volume and the least room along a stack', () => {
    expect(cellVolume(cell)).toBe(400 * 100 * 600);
    expect(minStackExtent(box(50, 300, 80), 400, 100)).toBe(50);
    expect(minStackExtent(box(300, 80, 50), 400, 100)).toBe(50);
    expect(minStackExtent(box(500, 500, 500), 400, 100)).toBe(Infinity);
  });

  it('frames each stacking axis by the other two extents', () => {
    expect(stackFrame(cell, 'width')).toEqual({ across: [100, 600], along: 400 });
    expect(stackFrame(cell, 'height')).toEqual({ across: [400, 600], along: 100 });
    expect(stackFrame(cell, 'depth')).toEqual({ across: [400, 100], along: 600 });
  });
});

describe('stack placement', () => {
  it('stacks along the depth first', () => {
    const cell: CellSpace = { width: 300, height: 300, depth: 600 };
    const boxes = [box(300, 300, 200), box(250, 100, 300), box(300, 300, 300)];
    const placed = stackPlacement(boxes, cell)!;
    expect(placed.map((p) => [p.z, p.dz])).toEqual([[0, 200], [200, 100], [300, 300]]);
    expect(placed.every((p) => p.x === 0 && p.y === 0)).toBe(true);
    checkPlacement(boxes, cell, placed);
  });

  it('stacks along the height when the depth does not hold the stack', () => {
    const cell: CellSpace = { width: 400, height: 500, depth: 300 };
    const boxes = [box(400, 300, 250), box(400, 300, 250)];
    const placed = stackPlacement(boxes, cell)!;
    expect(placed).toEqual([
      { x: 0, y: 0, z: 0, dx: 400, dy: 250, dz: 300 },
      { x: 0, y: 250, z: 0, dx: 400, dy: 250, dz: 300 },
    ]);
    checkPlacement(boxes, cell, placed);
  });

  it('stacks along the width when neither depth nor height holds it', () => {
    const cell: CellSpace = { width: 500, height: 300, depth: 300 };
    const boxes = [box(300, 300, 200), box(300, 250, 300)];
    const placed = stackPlacement(boxes, cell)!;
    expect(placed.map((p) => [p.x, p.dx])).toEqual([[0, 200], [200, 250]]);
    expect(placed.every((p) => p.y === 0 && p.z === 0)).toBe(true);
    checkPlacement(boxes, cell, placed);
  });

  it('refuses boxes no single stack holds, and a box that fits no cross-section', () => {
    const cell: CellSpace = { width: 300, height: 300, depth: 300 };
    expect(stackPlacement([box(200, 200, 200), box(200, 200, 200)], cell)).toBeNull();
    expect(boxesFitCell([box(200, 200, 200), box(200, 200, 200)], cell)).toBe(false);
    expect(stackPlacement([box(100, 100, 100), box(400, 10, 10)], cell)).toBeNull();
  });

  it('places nothing for no boxes, and agrees with boxFitsCell for one', () => {
    const cell: CellSpace = { width: 300, height: 200, depth: 100 };
    expect(stackPlacement([], cell)).toEqual([]);
    for (const b of [box(100, 200, 300), box(300, 300, 10), box(50, 50, 50), box(301, 1, 1)]) {
      expect(boxesFitCell([b], cell)).toBe(boxFitsCell(b, cell));
    }
  });
});

describe('code hashes', () => {
  it('are SHA-256 hex, stable, and salted by kind and locker', () => {
    const h = codeHash(CodeKind.Customer, 'L1', '483920');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(codeHash(CodeKind.Customer, 'L1', '483920')).toBe(h);
    expect(codeHash(CodeKind.Courier, 'L1', '483920')).not.toBe(h);
    expect(codeHash(CodeKind.Customer, 'L2', '483920')).not.toBe(h);
    expect(codeHash(CodeKind.Customer, 'L1', '483921')).not.toBe(h);
  });
});

describe('protocol schemas', () => {
  const order: OrderIntent = {
    orderId: 'o1',
    externalId: 'e1',
    number: null,
    marketplaceId: 'm1',
    state: 3,
    dateDelivery: '2026-11-25',
    holdUntil: 1_700_000_000_000,
    pickupCodeHash: codeHash(CodeKind.Customer, 'L1', '483920'),
    parcels: [{ barcode: 'b1', additionalBarcodes: [], dimension: { length: 10 }, state: 'loaded', cellId: 4 }],
  };

  it('announce every command type, the base ones among them', () => {
    expect(COMMAND_TYPES).toEqual(['locker.config', 'order.upsert', 'order.remove', 'courier.grant', 'courier.revoke', 'cell.flags', 'cell.open', 'order.handover', 'service.code']);
    for (const t of BASE_COMMAND_TYPES) expect(COMMAND_TYPES).toContain(t);
  });

  it('accept a commands message and refuse another version, an empty batch or a cseq of 0', () => {
    const msg = { v: PROTOCOL_VERSION, type: 'commands', items: [{ cseq: 1, at: 0, type: 'order.upsert', order }] };
    expect(downMessageSchema.parse(msg)).toEqual(msg);
    expect(downMessageSchema.safeParse({ ...msg, v: PROTOCOL_VERSION + 1 }).success).toBe(false);
    expect(downMessageSchema.safeParse({ ...msg, items: [] }).success).toBe(false);
    expect(commandSchema.safeParse({ cseq: 0, at: 0, type: 'order.remove', orderId: 'o1' }).success).toBe(false);
  });

  it('refuse an order with a malformed date, code hash or state', () => {
    const cmd = (o: unknown) => commandSchema.safeParse({ cseq: 1, at: 0, type: 'order.upsert', order: o }).success;
    expect(cmd(order)).toBe(true);
    expect(cmd({ ...order, dateDelivery: '25.11.2026' })).toBe(false);
    expect(cmd({ ...order, pickupCodeHash: 'ABC' })).toBe(false);
    expect(cmd({ ...order, state: 1 })).toBe(false);
    expect(cmd({ ...order, parcels: [] })).toBe(false);
  });

  it('accept cell.open with a closed list of reasons', () => {
    expect(commandSchema.safeParse({ cseq: 2, at: 1, type: 'cell.open', cellId: 3, reason: 'inventory', notAfter: 5 }).success).toBe(true);
    expect(commandSchema.safeParse({ cseq: 2, at: 1, type: 'cell.open', cellId: 3, reason: 'because', notAfter: 5 }).success).toBe(false);
  });

  it('accept hello, events and acks upward, and presence', () => {
    expect(upMessageSchema.safeParse({ v: 1, type: 'hello', lockerId: 'L1', appliedCseq: 0, ackedDseq: 0, conn: 1 }).success).toBe(true);
    expect(upMessageSchema.safeParse({ v: 1, type: 'hello', lockerId: 'L1', appliedCseq: 0, ackedDseq: 0, conn: 0 }).success).toBe(false);
    expect(upMessageSchema.safeParse({ v: 1, type: 'ack', appliedCseq: 7 }).success).toBe(true);
    const event = { dseq: 1, at: 2, type: 'code.attempt', kind: 'customer', ok: false };
    expect(eventSchema.parse(event)).toEqual(event);
    expect(upMessageSchema.safeParse({ v: 1, type: 'events', items: [event] }).success).toBe(true);
    expect(eventSchema.safeParse({ ...event, type: 'code.typed' }).success).toBe(false);
    expect(presenceSchema.safeParse({ v: 1, online: true, conn: 3, at: 4 }).success).toBe(true);
    expect(presenceSchema.safeParse({ v: 1, online: true, conn: 3, at: -1 }).success).toBe(false);
  });
});
