/**
 * Bodies of the three outbound operations of the spec (POST {receiver_url}/<kind>), field for
 * field. The outbox stores them (outbox/record-change.ts); the OpenAPI document publishes them as
 * webhooks (http/openapi/webhooks.ts).
 */
import { z } from 'zod';
import { dateTimeSchema } from './common.js';

export const orderStatusBodySchema = z
  .object({
    postamat_id: z.string().regex(/^[1-9][0-9]*$/).optional().describe('the locker id in decimal, as a string (the wire form of the contract); only in the placement event (3)'),
    cell_id: z.int().optional().describe('only in the placement event (3)'),
    id: z.string().describe("the order's externalId"),
    barcode: z.string(),
    event_id: z.enum(['2', '3', '4', '7']).describe('a string (the wire form of the contract): the order state the parcel reached: 3 loaded, 2 taken by the customer, 7 awaiting return, 4 collected by a courier'),
    status: z.string().describe("the state's text: Courier loaded, Client received, Awaiting return, Courier picked up"),
    dt: dateTimeSchema.describe('when it happened (events 3, 2, 4: by the locker\'s clock; 7: when the order became Awaiting return)'),
  })
  .meta({ id: 'OrderStatusNotification' });

export const userAccessCodeBodySchema = z
  .object({
    id: z.string().describe("the order's externalId"),
    postamat_id: z.string().regex(/^[1-9][0-9]*$/).describe('the locker id in decimal, as a string (the wire form of the contract)'),
    access_code: z.string().regex(/^[0-9]+$/).describe("the customer's pick-up code (PICKUP_CODE_LENGTH digits, 6 by default)"),
  })
  .meta({ id: 'UserAccessCodeNotification' });

export const expirationDateChangesBodySchema = z
  .object({
    id: z.string().describe("the order's externalId"),
    event_dt: dateTimeSchema.describe('when the storage period started or was extended'),
    expire_dt: dateTimeSchema.describe("end of storage, already moved past the locker's non-working days"),
  })
  .meta({ id: 'ExpirationDateChangesNotification' });

export type OrderStatusBody = z.infer<typeof orderStatusBodySchema>;
export type UserAccessCodeBody = z.infer<typeof userAccessCodeBodySchema>;
export type ExpirationDateChangesBody = z.infer<typeof expirationDateChangesBodySchema>;
