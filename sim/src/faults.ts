/** Faults the simulator can switch on, as the library, the HTTP API and the CLI name them. */
import { z } from 'zod';

const lockRef = { bus: z.string().optional(), board: z.number().int().min(0), lock: z.number().int().min(1) };
const boardRef = { bus: z.string().optional(), board: z.number().int().min(0) };

export const simFaultSchema = z.discriminatedUnion('kind', [
  /** The pulse does not release the hook: the door never opens. */
  z.object({ kind: z.literal('jammed'), ...lockRef }),
  /** The door cannot be closed. */
  z.object({ kind: z.literal('door-left-open'), ...lockRef }),
  /** The board stays silent for `count` replies, or until cleared. */
  z.object({ kind: z.literal('no-reply'), ...boardRef, count: z.number().int().min(1).optional() }),
  /** The board's next `count` replies (or all, until cleared) carry a wrong checksum. */
  z.object({ kind: z.literal('bad-checksum'), ...boardRef, count: z.number().int().min(1).optional() }),
  /** `bytes` random bytes before and after every reply on the bus. */
  z.object({ kind: z.literal('noise'), bus: z.string().optional(), bytes: z.number().int().min(1).max(64).optional() }),
  /** A burst of non-printable bytes before every scan. */
  z.object({ kind: z.literal('scanner-garbage') }),
]);

export type SimFault = z.infer<typeof simFaultSchema>;
export type SimFaultKind = SimFault['kind'];
export const SIM_FAULT_KINDS: readonly SimFaultKind[] = ['jammed', 'door-left-open', 'no-reply', 'bad-checksum', 'noise', 'scanner-garbage'];
