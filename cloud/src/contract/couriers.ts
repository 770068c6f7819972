/** The courier route operation of {courier_base_url}. */
import { z } from 'zod';
import { LIMITS, emailSchema, identifier, int32, phoneSchema, positiveInt32, requestDate, requestString } from './common.js';

/** The spec types `courier.email` as int32 while it carries an e-mail text: both are accepted. */
const courierEmail = z.union([requestString(LIMITS.emailLength), int32]).transform((v) => String(v)).pipe(emailSchema);
/** Locker ids come as numbers or, as in the spec's example, as digit strings. */
const lockerId = z.union([positiveInt32, requestString(10).regex(/^\d{1,10}$/).transform(Number).pipe(positiveInt32)]);

export const courierWithRouteSchema = z.object({
  courier: z.object({
    externalId: requestString(LIMITS.idLength).trim().describe('empty -> resultCode 604'),
    email: courierEmail,
    inn: requestString(12).regex(/^(\d{10}|\d{12})$/, 'expected 10 or 12 digits').optional(),
    phone: phoneSchema,
  }),
  route: z.object({
    carNumber: requestString(LIMITS.carNumberLength).trim().min(1),
    date: requestDate,
    externalId: identifier.describe("the route sheet's reference in the external system"),
    postamatIds: z.array(lockerId).min(1).max(LIMITS.lockersPerRoute),
  }),
}).meta({ id: 'CourierWithRoute' });
export type CourierWithRouteRequest = z.infer<typeof courierWithRouteSchema>;

export const courierWithRouteOut = z.object({
  mosRegistryDescr: z.string(),
  mosRegistryStatus: z.int(),
  postamatAccessCode: z.string().describe('courier access code for every locker of the route'),
}).meta({ id: 'CourierWithRouteAnswer' });
export type CourierWithRouteAnswer = z.infer<typeof courierWithRouteOut>;
