/** Locker operations of {base_url} and the locker-shaped parts of the order detail. */
import { z } from 'zod';
import { ISSUE_TEXTS } from './issue-texts.js';
import { dateTimeSchema, isoDateSchema, positiveInt32, queryBoolean, requestDate } from './common.js';

const hours = z.object({ start: z.string(), end: z.string() }).meta({ id: 'Hours', description: 'local time HH:MM' });

export const workTimeProfileOut = z.object({
  id: z.int(),
  name: z.string(),
  active: z.boolean(),
  lastUpdate: dateTimeSchema,
  monday: hours.optional(),
  tuesday: hours.optional(),
  wednesday: hours.optional(),
  thursday: hours.optional(),
  friday: hours.optional(),
  saturday: hours.optional(),
  sunday: hours.optional(),
  everyDay: hours.optional().describe('only when no weekday has its own hours'),
  preHoliday: hours.optional(),
  holiday: hours.optional(),
}).meta({ id: 'WorkTimeProfile' });

export const specialDaysOut = z.object({
  holidays: z.array(z.object({ day: z.string(), type: z.int() })),
  days: z.array(z.object({ start: z.string().optional(), end: z.string().optional(), date: z.string(), nonWorking: z.boolean() })),
  daysOfExclusion: z.array(z.object({ date: z.string() })),
}).meta({ id: 'SpecialDays' });

export const locationOut = z.object({
  id: z.int(),
  city: z.string(),
  street: z.string(),
  house: z.string(),
  building: z.string(),
  housing: z.string(),
  entrance: z.string(),
  officeNum: z.string(),
  route: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  fullAddress: z.string(),
  placeTypeId: z.int(),
  placeTypeName: z.string(),
}).meta({ id: 'Location' });

const cellSize = z.object({ id: z.int(), width: z.int(), height: z.int() }).meta({ id: 'CellSize', description: 'a cell size in mm' });

export const lockerListItemOut = z.object({
  id: z.int(),
  name: z.string(),
  workTime: z.string(),
  workTimeProfile: workTimeProfileOut.optional().describe('with schedule=true'),
  specialDays: specialDaysOut.optional().describe('with schedule=true'),
  find: z.string(),
  photos: z.array(z.string()),
  location: locationOut,
  cellSizes: z.array(cellSize).describe('distinct sizes of the cells the marketplace may use'),
  machineEquipment: z.object({ barcodeScannerEquip: z.boolean() }),
  dayOffs: z.array(z.object({ day: isoDateSchema, reason: z.enum(['full', 'broken']) })),
  mos_regestry_id: z.string(),
}).meta({ id: 'LockerListItem' });

export const lockerListOut = z.object({ postamats: z.array(lockerListItemOut) }).meta({ id: 'LockerList' });

export const lockerListQuery = z.object({
  scanner: queryBoolean.optional().describe('true: only lockers with a barcode scanner; false: only without'),
  schedule: queryBoolean.optional().describe('true: working schedule and special days are returned'),
});

export const lockerDetailQuery = z.object({
  postamatId: z.coerce.number().int().pipe(positiveInt32),
  cellsType: z.coerce
    .number()
    .int()
    .pipe(z.union([z.literal(0), z.literal(1)]))
    .default(0)
    .describe('0: every cell the marketplace may use; 1: those free for loading now'),
});

export const lockerCellOut = z.object({
  cellId: z.int(),
  size: z.object({ width: z.int(), height: z.int() }),
  free: z.boolean().describe('not flagged and holds no parcel or reservation'),
}).meta({ id: 'LockerCell' });

export const lockerDetailOut = z.object({
  id: z.int(),
  name: z.string(),
  workTime: z.string(),
  workSchedule: z.object({ workTimeProfile: workTimeProfileOut.optional(), specialDays: specialDaysOut }),
  find: z.string(),
  photos: z.array(z.string()),
  location: locationOut,
  cellSizes: z.array(cellSize),
  machineEquipment: z.object({ barcodeScannerEquip: z.boolean(), heatedCells: z.boolean(), cooledCells: z.boolean() }),
  mos_regestry_id: z.string(),
  active: z.boolean(),
  depth: z.int(),
  cells: z.array(lockerCellOut),
  availableCells: z
    .array(z.object({ cellId: z.int(), size: z.object({ width: z.int(), height: z.int() }) }))
    .optional()
    .describe("present when the locker has cells segmented for the marketplace"),
}).meta({ id: 'LockerDetail' });

/** Lockers one capacity request may ask about (extension `postamatIds`). */
export const CAPACITY_LOCKERS_MAX = 20;

export const capacityRequestSchema = z
  .object({
    postamatId: positiveInt32.optional().describe('the locker (the contract\'s form; required unless postamatIds is sent)'),
    postamatIds: z
      .array(positiveInt32)
      .min(1)
      .max(CAPACITY_LOCKERS_MAX)
      .optional()
      .describe(
        `Extension beyond the contract: up to ${CAPACITY_LOCKERS_MAX} lockers at once, instead of postamatId; ` +
          'the answer is then {postamats: {"<postamatId>": <the one-locker answer>}}',
      ),
    deliveryDate: requestDate,
    parcelSize: z.object({
      length: positiveInt32.optional(),
      width: positiveInt32.optional(),
      height: positiveInt32.optional(),
    }),
  })
  .refine((b) => (b.postamatId === undefined) !== (b.postamatIds === undefined), {
    message: ISSUE_TEXTS.oneOfPostamatIds.en,
    path: ['postamatId'],
  })
  .meta({ id: 'CapacityQuery' });
export type CapacityRequest = z.infer<typeof capacityRequestSchema>;

export const capacityRecordOut = z.object({
  total: z.int().min(0).max(127).describe('free cells the parcel size fits (int8, clamped)'),
  totalCapacity: z.int().min(0).max(127).describe('all cells the marketplace may use (int8, clamped)'),
  isBroken: z.boolean(),
}).meta({ id: 'CapacityOfDate' });
export const capacityOut = z.record(z.string(), capacityRecordOut).meta({ id: 'Capacity', description: 'keyed by date YYYY-MM-DD' });
export const capacityManyOut = z
  .object({ postamats: z.record(z.string(), capacityOut).describe('keyed by postamatId') })
  .meta({ id: 'CapacityOfLockers', description: 'Extension beyond the contract: the answer to postamatIds' });
export const capacityAnswerOut = z.union([capacityOut, capacityManyOut]);

export const orderDetailOut = z.object({
  idPoint: z.int(),
  orderNumber: z.string(),
  workTimeProfile: workTimeProfileOut.optional(),
  location: locationOut,
  pointAccess: z.object({ privateAccess: z.boolean(), accessGuide: z.string(), accessCode: z.string().optional() }),
  holdedCells: z.array(z.object({ cellId: z.int(), barcodes: z.array(z.string()) })),
  holdUntil: dateTimeSchema.optional().describe('only in state 3 (Courier loaded)'),
  state: z.int(),
}).meta({ id: 'OrderDetail' });
export type OrderDetail = z.infer<typeof orderDetailOut>;
