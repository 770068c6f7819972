/** Order operations of {base_url}: requests and answers. */
import { z } from 'zod';
import { ISSUE_TEXTS } from './issue-texts.js';
import {
  LIMITS,
  dateTimeSchema,
  errorEnvelopeSchema,
  emailSchema,
  identifier,
  int32,
  kopecks,
  phoneSchema,
  positiveInt32,
  requestDate,
  requestString,
  text,
} from './common.js';

export const dimensionSchema = z
  .object({
    height: positiveInt32.optional(),
    length: positiveInt32.optional(),
    width: positiveInt32.optional(),
  })
  .meta({ id: 'Dimension', description: 'box size in mm, each value >= 1' });

export const parcelSchema = z
  .object({
  barcode: identifier,
  additionalBarcodes: z.array(identifier).max(LIMITS.barcodesPerParcel).optional(),
  dimension: dimensionSchema.optional(),
  accessible: z
    .boolean()
    .optional()
    .describe(
      'Extension beyond the contract: true puts the parcel only into a cell reachable from a wheelchair (the fleet file says which); ' +
        'without such a free cell it is rejected like a parcel that does not fit',
    ),
  })
  .meta({ id: 'Parcel' });
export type ParcelInput = z.infer<typeof parcelSchema>;

export const itemSchema = z
  .object({
    count: z.int().min(1).max(2_147_483_647),
    barcode: requestString(LIMITS.idLength).optional(),
    name: text(LIMITS.nameLength).min(1),
    subjectType: int32,
    price: kopecks,
    totalSum: kopecks,
    taxId: int32,
    taxSystemId: int32,
  })
  .meta({ id: 'Item' });

export const clientInvoiceSchema = z
  .object({
    cart: z.object({
      items: z.array(itemSchema).max(LIMITS.itemsPerOrder),
      prePaymentSum: kopecks.describe('paid amount of the whole order, kopecks'),
    }),
  })
  .meta({ id: 'ClientInvoice' });
export type ClientInvoice = z.infer<typeof clientInvoiceSchema>;

export const customerContactsSchema = z
  .object({
    emails: z.array(emailSchema).max(LIMITS.contactsPerOrder),
    phones: z.array(phoneSchema).max(LIMITS.contactsPerOrder),
  })
  .meta({ id: 'CustomerContacts' });

function uniqueBarcodes(parcels: readonly ParcelInput[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  parcels.forEach((p, i) => {
    for (const code of [p.barcode, ...(p.additionalBarcodes ?? [])]) {
      if (seen.has(code)) ctx.addIssue({ code: 'custom', path: [i, 'barcode'], message: `barcode ${code} appears twice in the order`, params: { ru: `штрихкод ${code} встречается в заказе дважды` } });
      seen.add(code);
    }
  });
}

/** Shown to customers and couriers as sent (not trimmed). */
const orderNumber = requestString(LIMITS.idLength);

const parcelsSchema = z.array(parcelSchema).min(1).max(LIMITS.parcelsPerOrder).superRefine(uniqueBarcodes);

export const createOrderSchema = z
  .object({
    externalId: identifier.describe('order identifier in the external system'),
    number: orderNumber.optional(),
    postamatId: positiveInt32,
    dateDelivery: requestDate,
    parcels: parcelsSchema,
    clientInvoice: clientInvoiceSchema,
    notification: customerContactsSchema,
  })
  .meta({ id: 'CreateOrder' });
export type CreateOrderRequest = z.infer<typeof createOrderSchema>;

export const updateOrderSchema = z
  .object({
    externalId: identifier,
    number: orderNumber.optional(),
    postamatId: positiveInt32.optional(),
    dateDelivery: requestDate.optional(),
    parcels: parcelsSchema,
    clientInvoice: clientInvoiceSchema.optional(),
    notification: customerContactsSchema.optional(),
  })
  .meta({ id: 'UpdateOrder' });
export type UpdateOrderRequest = z.infer<typeof updateOrderSchema>;

export const cancelPositionSchema = z.object({ extId: identifier, barcode: identifier }).meta({ id: 'CancelPosition' });
export const extensionSchema = z.object({ extId: identifier }).meta({ id: 'StorageExtension' });

export const orderDetailRequestSchema = z
  .object({
    barcode: identifier,
    courierExternalId: identifier.optional(),
    postamatAccessCode: requestString(LIMITS.accessCodeLength).trim().min(1).optional(),
  })
  .refine((b) => b.courierExternalId !== undefined || b.postamatAccessCode !== undefined, {
    message: ISSUE_TEXTS.courierOrCode.en,
    path: ['courierExternalId'],
  })
  .meta({ id: 'OrderDetailLookup' });
export type OrderDetailRequest = z.infer<typeof orderDetailRequestSchema>;

export const cellOrderSchema = z
  .object({ cellId: z.int(), externalId: z.string(), barcodes: z.array(z.string()) })
  .meta({ id: 'CellOrder', description: 'an order\'s parcels in one cell' });

export const reservationResultSchema = z
  .object({
    reserved: z.array(cellOrderSchema),
    temporarilyRejectedItems: z.array(z.string()).describe('parcels that fit by size but found no free cell'),
    permanentlyRejectedItems: z.array(z.string()).describe('parcels that fit no cell of the locker even rotated'),
    toReturn: z.array(cellOrderSchema).describe("the marketplace's Awaiting-return orders in the locker"),
  })
  .meta({ id: 'ReservationResult' });
export type ReservationResult = z.infer<typeof reservationResultSchema>;

export const orderAckSchema = z
  .object({
    externalId: z.string(),
    state: z.int().describe('order state after the operation'),
  })
  .meta({ id: 'OrderAck', description: 'The spec shows no body; the order and its state are answered' });
export type OrderAck = z.infer<typeof orderAckSchema>;

export const updateAnswerSchema = orderAckSchema
  .extend(reservationResultSchema.partial().shape)
  .meta({ id: 'UpdateAnswer', description: 'The order and its state; for an order created with reservation also its new reservation' });
export type UpdateAnswer = z.infer<typeof updateAnswerSchema>;

export const extensionAnswerSchema = z
  .object({
    externalID: z.string(),
    date_storage: dateTimeSchema.describe('new end of storage'),
  })
  .meta({ id: 'ExtensionAnswer' });

export const createOrderAnswerSchema = orderAckSchema;


export const nearestLockerOut = z.object({
  postamatId: z.int(),
  name: z.string(),
  fullAddress: z.string(),
  distanceMeters: z.int().describe('great-circle distance from the requested locker, by the fleet file coordinates'),
});

/** The envelope of order create and update: code 32 may carry the nearestLockers extension. */
export const noCellsEnvelopeSchema = errorEnvelopeSchema.extend({
  nearestLockers: z
    .array(nearestLockerOut)
    .max(5)
    .optional()
    .describe(
      'Extension beyond the contract, only with code 32: up to 5 other lockers of the marketplace where the same parcels fit ' +
        'on the delivery date, nearest first; absent when there is none',
    ),
});
