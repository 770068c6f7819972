/** Requests and answers of the sandbox operations (/api/v4/sandbox, sandbox marketplace keys only; docs/sandbox.md; examples in http/openapi/examples/sandbox.ts). */
import { z } from 'zod';
import { identifier } from './common.js';

export const sandboxOrderRequestSchema = z
  .object({ externalId: identifier.describe("the order's externalId (of the calling marketplace)") });

export const sandboxPickupRequestSchema = z
  .object({
    externalId: identifier.describe("the order's externalId (of the calling marketplace)"),
    accessCode: z
      .string()
      .max(8)
      .regex(/^\d{6,8}$/)
      .optional()
      .describe('the pick-up code to type; absent: the one the cloud sent in user-access-code'),
  });

export const sandboxOutageRequestSchema = z
  .object({
    seconds: z.int().min(1).max(86_400).default(3600).describe('how long the receiver stays down, s (default one hour)'),
  });

const parcelPlace = z.object({
  barcode: z.string(),
  state: z.string().describe('pending, loaded, cancelled, awaiting_return, received, returned'),
  cellId: z.int().nullable().describe('the cell holding it (or reserved for it)'),
});

export const sandboxOrderEffectSchema = z
  .object({ externalId: z.string(), state: z.int().describe('the order state once the effect happened'), parcels: z.array(parcelPlace) });

export const sandboxPickupEffectSchema = sandboxOrderEffectSchema
  .extend({
    openedCells: z.array(z.int()).describe('cells that opened for the customer'),
    failedCells: z.array(z.int()).describe('cells whose doors did not open (a jammed lock)'),
  });

export const sandboxJamEffectSchema = z
  .object({ externalId: z.string(), cellId: z.int().describe('the cell whose lock is jammed now') });

export const sandboxOutageEffectSchema = z
  .object({ heldUntil: z.string().nullable().describe('until when deliveries fail as if the receiver were down (UTC); null: not held') });

export const sandboxLockersSchema = z
  .object({
    postamats: z.array(
      z.object({
        postamatId: z.int(),
        name: z.string(),
        running: z.boolean().describe('this cloud process runs it'),
        screenUrl: z.string().nullable().describe("the locker's screen (to watch; the cloud's own address)"),
        simUrl: z.string().nullable().describe("the simulator's control API"),
      }),
    ),
  });

const lockerReturns = z.object({
  postamatId: z.int(),
  openedCells: z.array(z.int()).describe('cells that opened for the courier'),
  failedCells: z.array(z.int()).describe('cells whose doors did not open (a jammed lock): their parcels stay'),
});

export const sandboxReturnEffectSchema = z.object({
  postamats: z.array(lockerReturns).describe('the sandbox lockers where the courier collected'),
  orders: z.array(sandboxOrderEffectSchema).describe('the orders whose parcels were to be collected, as they are now (4 once all came out)'),
});

export const sandboxResetEffectSchema = z.object({
  cancelledOrders: z.int().describe('orders whose open positions were cancelled'),
  returns: sandboxReturnEffectSchema.describe('what the courier collected'),
  repairedCells: z.array(z.object({ postamatId: z.int(), cellId: z.int() })).describe('cells whose jammed lock was repaired and faulty flag cleared'),
});

export const sandboxDeliveryEffectSchema = z.object({
  undelivered: z.int().describe("the marketplace's notifications still undelivered after this round"),
});
