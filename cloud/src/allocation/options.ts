import { z } from 'zod';

const extent = z.int().min(1);

/** Settings of cell allocation; the cloud's config embeds this schema. */
export const allocationOptionsSchema = z.object({
  /**
   * Extents (mm) taken for the dimensions a parcel does not state. The default of 1 mm means an
   * unstated extent constrains nothing: a parcel without dimensions takes the smallest free cell.
   */
  defaultDimension: z
    .object({ length: extent, width: extent, height: extent })
    .default({ length: 1, width: 1, height: 1 }),
  /** Whether a parcel with any unstated dimension may share a cell with other parcels. */
  unknownSizeSharesCell: z.boolean().default(false),
  /**
   * Orders with up to this many parcels that fit a free cell get the exact optimum; larger ones
   * a greedy fill (see fill-greedily.ts). The exact search costs up to ~3^n steps, hence the cap.
   */
  exactSearchMaxParcels: z.int().min(0).max(16).default(12),
});

export type AllocationOptions = z.infer<typeof allocationOptionsSchema>;

export const DEFAULT_ALLOCATION_OPTIONS: AllocationOptions = allocationOptionsSchema.parse({});
