/**
 * Reference checks for allocation, written independently of the allocator: a placement checker
 * that only trusts coordinates, and an exhaustive search over every cell id.
 */
import { boxesFitCell, boxFitsCell, cellVolume, stackPlacement, type Box, type CellSpace, type PlacedBox } from '../../shared/src/geometry.js';
import {
  sizeParcel,
  type Allocation,
  type AllocationRequest,
  type SizedParcel,
} from '../../cloud/src/allocation/allocate.js';
import { allocationOptionsSchema } from '../../cloud/src/allocation/options.js';

export function sizedParcels(request: AllocationRequest): SizedParcel[] {
  const options = allocationOptionsSchema.parse(request.options ?? {});
  return request.parcels.map((p) => sizeParcel(p.dimension, options));
}

/** Problems with a placement: extents not a rotation of the box, outside the cell, or overlapping. */
export function placementProblems(boxes: readonly Box[], cell: CellSpace, placed: readonly PlacedBox[]): string[] {
  const problems: string[] = [];
  if (placed.length !== boxes.length) problems.push(`placed ${placed.length} of ${boxes.length} boxes`);
  const sorted = (a: number[]) => a.sort((x, y) => x - y).join(',');
  placed.forEach((p, i) => {
    const box = boxes[i]!;
    if (sorted([p.dx, p.dy, p.dz]) !== sorted([box.length, box.width, box.height])) problems.push(`box ${i} is not rotated, it is resized`);
    if (p.x < 0 || p.y < 0 || p.z < 0) problems.push(`box ${i} starts outside the cell`);
    if (p.x + p.dx > cell.width || p.y + p.dy > cell.height || p.z + p.dz > cell.depth) problems.push(`box ${i} sticks out of the cell`);
    for (let j = 0; j < i; j++) {
      const q = placed[j]!;
      const apart = p.x + p.dx <= q.x || q.x + q.dx <= p.x || p.y + p.dy <= q.y || q.y + q.dy <= p.y || p.z + p.dz <= q.z || q.z + q.dz <= p.z;
      if (!apart) problems.push(`boxes ${j} and ${i} overlap`);
    }
  });
  return problems;
}

export interface Score {
  placed: number;
  volume: number;
}

export function score(request: AllocationRequest, allocation: Allocation): Score {
  const byId = new Map(request.freeCells.map((c) => [c.id, c]));
  let placed = 0;
  let volume = 0;
  for (const cell of allocation.cells) {
    const opening = byId.get(cell.cellId)!;
    placed += cell.barcodes.length;
    volume += cellVolume({ ...opening, depth: request.depth });
  }
  return { placed, volume };
}

/**
 * The best score over every way of putting each parcel into some free cell or nowhere, where a
 * cell's content must pass boxesFitCell() and parcels of unknown size (when they may not share) sit
 * alone. The only shortcut: of several empty cells with the same opening, only the first is tried.
 */
export function exhaustiveBest(request: AllocationRequest): Score {
  const parcels = sizedParcels(request);
  const cells = request.freeCells.map((c) => ({
    space: { width: c.width, height: c.height, depth: request.depth },
    volume: cellVolume({ ...c, depth: request.depth }),
    content: [] as SizedParcel[],
  }));
  let best: Score = { placed: 0, volume: 0 };
  const visit = (k: number, placed: number, volume: number): void => {
    if (k === parcels.length) {
      if (placed > best.placed || (placed === best.placed && volume < best.volume)) best = { placed, volume };
      return;
    }
    const parcel = parcels[k]!;
    const triedEmpty = new Set<string>();
    for (const cell of cells) {
      const empty = cell.content.length === 0;
      if (empty) {
        const opening = `${cell.space.width}x${cell.space.height}`;
        if (triedEmpty.has(opening)) continue;
        triedEmpty.add(opening);
      }
      const content = [...cell.content, parcel];
      if (content.length > 1 && content.some((p) => p.alone)) continue;
      if (!boxesFitCell(content.map((p) => p.box), cell.space)) continue;
      cell.content.push(parcel);
      visit(k + 1, placed + 1, volume + (empty ? cell.volume : 0));
      cell.content.pop();
    }
    visit(k + 1, placed, volume);
  };
  visit(0, 0, 0);
  return best;
}

/** Everything that must hold for any allocation, whatever search produced it. */
export function allocationProblems(request: AllocationRequest, allocation: Allocation): string[] {
  const problems: string[] = [];
  const parcels = sizedParcels(request);
  const indexOf = new Map(request.parcels.map((p, i) => [p.barcode, i]));
  const free = new Map(request.freeCells.map((c) => [c.id, c]));
  const seen = new Map<string, number>();
  const count = (barcode: string) => seen.set(barcode, (seen.get(barcode) ?? 0) + 1);

  const usedIds = new Set<number>();
  for (const cell of allocation.cells) {
    if (usedIds.has(cell.cellId)) problems.push(`cell ${cell.cellId} reserved twice`);
    usedIds.add(cell.cellId);
    const opening = free.get(cell.cellId);
    if (!opening) {
      problems.push(`cell ${cell.cellId} is not free`);
      continue;
    }
    if (cell.barcodes.length === 0) problems.push(`cell ${cell.cellId} reserved empty`);
    const members = cell.barcodes.map((b) => parcels[indexOf.get(b)!]!);
    if (members.length > 1 && members.some((p) => p.alone)) problems.push(`cell ${cell.cellId} shares a parcel of unknown size`);
    const space = { width: opening.width, height: opening.height, depth: request.depth };
    const boxes = members.map((p) => p.box);
    const placement = stackPlacement(boxes, space);
    if (!placement) problems.push(`cell ${cell.cellId} cannot hold ${cell.barcodes.join(',')}`);
    else problems.push(...placementProblems(boxes, space, placement).map((p) => `cell ${cell.cellId}: ${p}`));
    cell.barcodes.forEach(count);
  }
  allocation.temporarilyRejected.forEach(count);
  allocation.permanentlyRejected.forEach(count);
  for (const p of request.parcels) if (seen.get(p.barcode) !== 1) problems.push(`${p.barcode} appears ${seen.get(p.barcode) ?? 0} times`);

  const lockerSpaces = [...request.lockerCells, ...request.freeCells].map((c) => ({ ...c, depth: request.depth }));
  const fitsLocker = (barcode: string) => lockerSpaces.some((s) => boxFitsCell(parcels[indexOf.get(barcode)!]!.box, s));
  for (const b of allocation.permanentlyRejected) if (fitsLocker(b)) problems.push(`${b} is permanently rejected but fits a locker cell`);
  for (const b of allocation.temporarilyRejected) if (!fitsLocker(b)) problems.push(`${b} is temporarily rejected but fits no locker cell`);
  return problems;
}
