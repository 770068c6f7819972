import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxesFitCell, boxFitsCell, stackPlacement, type Box } from '../../shared/src/geometry.js';
import { placementProblems } from './reference.js';

const extent = fc.integer({ min: 1, max: 60 }).map((x) => x * 10);
const box: fc.Arbitrary<Box> = fc.record({ length: extent, width: extent, height: extent });
const cell = fc.record({ width: extent, height: extent, depth: extent });

describe('stack model of parcels sharing a cell', () => {
  it('places accepted boxes inside the cell, rotated but not resized, without overlap', () => {
    fc.assert(
      fc.property(fc.array(box, { maxLength: 6 }), cell, (boxes, space) => {
        const placement = stackPlacement(boxes, space);
        if (placement) expect(placementProblems(boxes, space, placement)).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with boxFitsCell for a single box', () => {
    fc.assert(
      fc.property(box, cell, (b, space) => {
        expect(boxesFitCell([b], space)).toBe(boxFitsCell(b, space));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps fitting when a box is taken out', () => {
    fc.assert(
      fc.property(fc.array(box, { minLength: 1, maxLength: 6 }), fc.nat(), cell, (boxes, k, space) => {
        fc.pre(boxesFitCell(boxes, space));
        const fewer = boxes.filter((_, i) => i !== k % boxes.length);
        expect(boxesFitCell(fewer, space)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts more volume than the cell has', () => {
    fc.assert(
      fc.property(fc.array(box, { maxLength: 6 }), cell, (boxes, space) => {
        fc.pre(boxesFitCell(boxes, space));
        const used = boxes.reduce((sum, b) => sum + b.length * b.width * b.height, 0);
        expect(used).toBeLessThanOrEqual(space.width * space.height * space.depth);
      }),
      { numRuns: 1000 },
    );
  });

  it('stacks along whichever axis holds the boxes, turning each one to take the least room', () => {
    const space = { width: 400, height: 100, depth: 600 };
    // Shoe boxes 330x200x90: lying flat, 200 deep each, three fit one behind the other.
    const shoes = [1, 2, 3].map(() => ({ length: 330, width: 200, height: 90 }));
    expect(stackPlacement(shoes, space)).toEqual([
      { x: 0, y: 0, z: 0, dx: 330, dy: 90, dz: 200 },
      { x: 0, y: 0, z: 200, dx: 330, dy: 90, dz: 200 },
      { x: 0, y: 0, z: 400, dx: 330, dy: 90, dz: 200 },
    ]);
    expect(boxesFitCell([...shoes, shoes[0]!], space)).toBe(false);
    // Two 390x590x40 boards: side by side along the height of the cell.
    const board = { length: 390, width: 590, height: 40 };
    expect(stackPlacement([board, board], space)).toEqual([
      { x: 0, y: 0, z: 0, dx: 390, dy: 40, dz: 590 },
      { x: 0, y: 40, z: 0, dx: 390, dy: 40, dz: 590 },
    ]);
    expect(boxesFitCell([board, board, board], space)).toBe(false);
  });

  it('accepts an empty cell and rejects a box that fits in no rotation', () => {
    expect(stackPlacement([], { width: 1, height: 1, depth: 1 })).toEqual([]);
    expect(boxesFitCell([{ length: 700, width: 10, height: 10 }], { width: 400, height: 400, depth: 600 })).toBe(false);
  });
});
