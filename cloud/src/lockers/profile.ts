/**
 * The descriptive data of a locker (schedule, special days, location, equipment, access), as the
 * fleet file gives it and as the API answers it. Stored as JSON in `lockers.profile` and parsed
 * with these schemas whenever it is read back.
 */
import { z } from 'zod';
import { isCalendarDate } from './locker-time.js';

export const isoDateSchema = z
  .string()
  .refine(isCalendarDate, 'expected a calendar date YYYY-MM-DD')
  .meta({ format: 'date', example: '2025-06-02' });

/** HH:MM; 24:00 is allowed as the end of a day. */
export const hhmmSchema = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'expected HH:MM');

export const hoursSchema = z.strictObject({ start: hhmmSchema, end: hhmmSchema });
export type Hours = z.infer<typeof hoursSchema>;

export const workTimeProfileSchema = z.strictObject({
  id: z.int().min(0).max(2_147_483_647),
  name: z.string(),
  active: z.boolean().default(true),
  /** ISO 8601 timestamp; when absent the locker's last provisioning time is answered. */
  lastUpdate: z.string().optional(),
  monday: hoursSchema.optional(),
  tuesday: hoursSchema.optional(),
  wednesday: hoursSchema.optional(),
  thursday: hoursSchema.optional(),
  friday: hoursSchema.optional(),
  saturday: hoursSchema.optional(),
  sunday: hoursSchema.optional(),
  /** Hours of every day; used only when no weekday has its own hours. */
  everyDay: hoursSchema.optional(),
  preHoliday: hoursSchema.optional(),
  /** Hours on holidays; a holiday without these hours is a non-working day. */
  holiday: hoursSchema.optional(),
});
export type WorkTimeProfile = z.infer<typeof workTimeProfileSchema>;

export const specialDaysSchema = z.strictObject({
  holidays: z.array(z.strictObject({ day: isoDateSchema, type: z.int() })).default([]),
  days: z
    .array(z.strictObject({ start: hhmmSchema.optional(), end: hhmmSchema.optional(), date: isoDateSchema, nonWorking: z.boolean() }))
    .default([]),
  daysOfExclusion: z.array(z.strictObject({ date: isoDateSchema })).default([]),
});
export type SpecialDays = z.infer<typeof specialDaysSchema>;

export const locationSchema = z.strictObject({
  id: z.int().min(0).max(2_147_483_647),
  city: z.string(),
  street: z.string(),
  house: z.string(),
  building: z.string().default(''),
  housing: z.string().default(''),
  entrance: z.string().default(''),
  officeNum: z.string().default(''),
  route: z.string().default(''),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  fullAddress: z.string(),
  placeTypeId: z.int().default(0),
  placeTypeName: z.string().default(''),
});
export type Location = z.infer<typeof locationSchema>;

export const equipmentSchema = z.strictObject({
  barcodeScanner: z.boolean().default(true),
  heatedCells: z.boolean().default(false),
  cooledCells: z.boolean().default(false),
});

export const accessSchema = z.strictObject({
  /** Access to the place is restricted (office, residential complex). */
  privateAccess: z.boolean().default(false),
  accessGuide: z.string().default(''),
  /** Intercom or gate code a courier needs to reach the locker, when the place has one. */
  intercomCode: z.string().optional(),
});

/** What `lockers.profile` holds. */
export const lockerProfileSchema = z.strictObject({
  workTime: z.string().default(''),
  workTimeProfile: workTimeProfileSchema.nullable().default(null),
  specialDays: specialDaysSchema.default({ holidays: [], days: [], daysOfExclusion: [] }),
  find: z.string().default(''),
  photos: z.array(z.string()).default([]),
  location: locationSchema,
  equipment: equipmentSchema.default({ barcodeScanner: true, heatedCells: false, cooledCells: false }),
  access: accessSchema.default({ privateAccess: false, accessGuide: '' }),
  mosRegistryId: z.string().default(''),
  boardFamily: z.string().optional(),
});
export type LockerProfile = z.infer<typeof lockerProfileSchema>;

export function parseProfile(json: string): LockerProfile {
  return lockerProfileSchema.parse(JSON.parse(json));
}
