/** A parcel row after one row of the parcel table (decide.ts `parcelStep`). */
import type { ParcelRow } from '../db/schema.js';
import type { ParcelStep } from './table.js';

/** Where a locker fact happened: its cell and its own time. */
export interface FactPlace {
  cellId: number;
  at: number;
}

export function stepParcel(parcel: ParcelRow, step: ParcelStep, at: number, fact?: FactPlace): ParcelRow {
  const state = step.to === 'same' || step.to === 'refused' ? parcel.state : step.to;
  let cell = parcel.cell_id;
  if (step.cell === 'clear') cell = null;
  if (step.cell === 'event') {
    if (!fact) throw new Error(`parcel step ${step.id} needs the fact's cell`);
    cell = fact.cellId;
  }
  // A parcel that comes into the locker by a fact is in it since the fact's time.
  const loadedAt = step.cell === 'event' && step.to !== 'same' && fact ? fact.at : parcel.loaded_at;
  return { ...parcel, state, cell_id: cell, loaded_at: loadedAt, updated_at: at };
}
