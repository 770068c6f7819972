/** What the cloud tells a sandbox locker process to run, and the line it answers once running. */
import { z } from 'zod';
import { BOARD_FAMILIES } from '../../../shared/src/enums.js';

export const READY_PREFIX = 'ready ';

export const rigOrderSchema = z.object({
  locker: z.object({
    id: z.int(),
    name: z.string(),
    timezone: z.string(),
    boardFamily: z.enum(BOARD_FAMILIES).optional(),
    equipment: z.object({ barcodeScanner: z.boolean() }),
    cells: z.array(
      z.object({
        id: z.int(),
        width: z.int(),
        height: z.int(),
        bus: z.string(),
        board: z.int(),
        lock: z.int(),
        flags: z.array(z.never()).default([]),
      }),
    ),
  }),
  brokerUrl: z.string(),
  password: z.string(),
  /** Folder of the agent's SQLite file. */
  dataDir: z.string(),
  logLevel: z.string(),
  /** Its slot's ports (port-block.ts); 0 or absent: free ones. */
  ports: z.object({ screenPort: z.int(), simPort: z.int(), hardwarePort: z.int() }).optional(),
});
export type RigOrder = z.input<typeof rigOrderSchema>;

export const rigReadySchema = z.object({ screenUrl: z.string(), simUrl: z.string() });
export type RigReady = z.infer<typeof rigReadySchema>;

/** A running sandbox locker: where its screen and simulator are and how its cells are wired. */
export interface SandboxRig extends RigReady {
  lockerId: number;
  hasScanner: boolean;
  /** Where the cell's lock hangs on the simulator. */
  lockOf(cellId: number): Lock | undefined;
}

export type Lock = { bus: string; board: number; lock: number };
