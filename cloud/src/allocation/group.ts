/** Parcels (indexes into the search's items) that share one cell of one size class. */
export interface Group {
  members: number[];
  classIndex: number;
}

/** A size class as the search sees it: the volume of one of its cells and how many are free. */
export interface ClassStock {
  volume: number;
  count: number;
}
