/** Examples of the locker operations of /api/v4 (the example fleet's lockers 101-103, as marketplace shop-one). */
import type { OperationExamples } from './types.js';

export const postamatExamples: Record<string, OperationExamples> = {
  listLockers: {
    success: 'The active lockers the marketplace may use, with their non-working days (dayOffs)',
    requests: {
      withSchedule: { summary: 'Lockers with a barcode scanner, with their schedules', query: { scanner: true, schedule: true }, status: 200 },
      all: { summary: 'Every locker, without schedules', status: 200 },
    },
    answers: {
      withSchedule: { summary: 'Lockers with a scanner (one of two shown)', value: { postamats: [{ id: 102, name: "Постамат Ленинский 45", workTime: "пн-сб 09:00-21:00, вс выходной", workTimeProfile: { id: 2, name: "Будни и суббота", active: true, lastUpdate: "2030-03-04T12:00:00+03:00", monday: { start: "09:00", end: "21:00" }, tuesday: { start: "09:00", end: "21:00" }, wednesday: { start: "09:00", end: "21:00" }, thursday: { start: "09:00", end: "21:00" }, friday: { start: "09:00", end: "21:00" }, saturday: { start: "10:00", end: "18:00" }, preHoliday: { start: "09:00", end: "18:00" } }, specialDays: { holidays: [{ day: "2027-01-01", type: 1 }, { day: "2027-01-07", type: 1 }], days: [{ start: "09:00", end: "15:00", date: "2026-12-31", nonWorking: false }], daysOfExclusion: [{ date: "2027-01-03" }] }, find: "Торговый центр, 1 этаж, возле банкоматов", photos: ["https://static.parcel-lockers.example/102/front.jpg", "https://static.parcel-lockers.example/102/hall.jpg"], location: { id: 1102, city: "Москва", street: "Ленинский проспект", house: "45", building: "1", housing: "", entrance: "", officeNum: "", route: "м. Ленинский проспект", latitude: 55.7065, longitude: 37.5853, fullAddress: "Москва, Ленинский проспект, 45к1", placeTypeId: 1, placeTypeName: "Торговый центр" }, cellSizes: [{ id: 1, width: 430, height: 90 }, { id: 2, width: 430, height: 190 }, { id: 3, width: 430, height: 390 }, { id: 4, width: 600, height: 590 }], machineEquipment: { barcodeScannerEquip: true }, dayOffs: [], mos_regestry_id: "MOS-0102" }] } },
      all: { summary: 'Every locker (one of three shown)', value: { postamats: [{ id: 101, name: "Постамат Тверская 7", workTime: "ежедневно 08:00-22:00", find: "Вход со стороны двора, у лифтов", photos: ["https://static.parcel-lockers.example/101/front.jpg"], location: { id: 1101, city: "Москва", street: "Тверская улица", house: "7", building: "", housing: "", entrance: "", officeNum: "", route: "м. Охотный ряд, 5 минут пешком", latitude: 55.7579, longitude: 37.6122, fullAddress: "Москва, Тверская улица, 7", placeTypeId: 2, placeTypeName: "Бизнес-центр" }, cellSizes: [{ id: 1, width: 430, height: 90 }, { id: 2, width: 430, height: 190 }, { id: 3, width: 430, height: 390 }], machineEquipment: { barcodeScannerEquip: false }, dayOffs: [], mos_regestry_id: "MOS-0101" }] } },
    },
  },
  getLocker: {
    success: 'The locker with its cells',
    requests: {
      freeCells: { summary: 'The cells free for loading now', query: { postamatId: 101, cellsType: 1 }, status: 200 },
      unknownLocker: { summary: 'A locker that does not exist', query: { postamatId: 999 }, status: 400, answer: 'code3' },
    },
    answers: {
      freeCells: { summary: 'Locker 101 and its cells free now (two of eight shown)', value: { id: 101, name: "Постамат Тверская 7", workTime: "ежедневно 08:00-22:00", workSchedule: { workTimeProfile: { id: 1, name: "Ежедневно 8-22", active: true, lastUpdate: "2030-03-04T12:00:00+03:00", everyDay: { start: "08:00", end: "22:00" } }, specialDays: { holidays: [{ day: "2026-12-31", type: 1 }, { day: "2027-01-01", type: 1 }], days: [], daysOfExclusion: [] } }, find: "Вход со стороны двора, у лифтов", photos: ["https://static.parcel-lockers.example/101/front.jpg"], location: { id: 1101, city: "Москва", street: "Тверская улица", house: "7", building: "", housing: "", entrance: "", officeNum: "", route: "м. Охотный ряд, 5 минут пешком", latitude: 55.7579, longitude: 37.6122, fullAddress: "Москва, Тверская улица, 7", placeTypeId: 2, placeTypeName: "Бизнес-центр" }, cellSizes: [{ id: 1, width: 430, height: 90 }, { id: 2, width: 430, height: 190 }, { id: 3, width: 430, height: 390 }], machineEquipment: { barcodeScannerEquip: false, heatedCells: false, cooledCells: false }, mos_regestry_id: "MOS-0101", active: true, depth: 600, cells: [{ cellId: 1, size: { width: 430, height: 90 }, free: true }, { cellId: 2, size: { width: 430, height: 90 }, free: true }], availableCells: [{ cellId: 1, size: { width: 430, height: 90 } }, { cellId: 2, size: { width: 430, height: 90 } }] } },
    },
  },
  getCapacity: {
    success: 'Per date from deliveryDate (CAPACITY_DAYS dates): free cells the size fits, and all cells the marketplace may use',
    requests: {
      smallBox: { summary: 'Room for a 300 x 200 x 80 mm box', body: { postamatId: 101, deliveryDate: '2030-03-05', parcelSize: { length: 300, width: 200, height: 80 } }, status: 200 },
    },
    answers: {
      smallBox: { summary: 'Seven dates', value: { "2030-03-05": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-06": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-07": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-08": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-09": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-10": { total: 8, totalCapacity: 8, isBroken: false }, "2030-03-11": { total: 8, totalCapacity: 8, isBroken: false } } },
    },
  },
};
