/** The courier route operation of {courier_base_url}. */
import { z } from 'zod';
import { LIMITS, emailSchema, identifier, isoDateSchema, phoneSchema, positiveInt32 } from './common.js';

/** The spec types `courier.email` as int32 while it carries an e-mail text: both are accepted. */
const courierEmail = z.union([z.string(), z.number()]).transform((v) => String(v)).pipe(emailSchema);
/** Locker ids come as numbers or, as in the spec's example, as digit strings. */
const lockerId = z.union([positiveInt32, z.string().regex(/^\d{1,10}$/).transform(Number).pipe(positiveInt32)]);

export const courierWithRouteSchema = z.object({
  courier: z.object({
    externalId: z.string().trim().max(LIMITS.idLength).describe('empty -> resultCode 604'),
    email: courierEmail,
    inn: z.string().regex(/^(\d{10}|\d{12})$/, 'expected 10 or 12 digits').optional(),
    phone: phoneSchema,
  }),
  route: z.object({
    carNumber: z.string().trim().min(1).max(20),
    date: isoDateSchema,
    externalId: identifier.describe("the route sheet's reference in the external system"),
    postamatIds: z.array(lockerId).min(1).max(LIMITS.lockersPerRoute),
  }),
});
export type CourierWithRouteRequest = z.infer<typeof courierWithRouteSchema>;

export const courierWithRouteOut = z.object({
  mosRegistryDescr: z.string(),
  mosRegistryStatus: z.int(),
  postamatAccessCode: z.string().describe('courier access code for every locker of the route'),
});
export type CourierWithRouteAnswer = z.infer<typeof courierWithRouteOut>;
