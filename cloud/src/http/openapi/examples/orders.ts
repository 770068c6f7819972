/** Examples of the order operations of /api/v4 (marketplace shop-one of the example fleet). */
import { ResultCode } from '../../../../../shared/src/enums.js';
import type { OperationExamples } from './types.js';

const kettle = { count: 1, barcode: 'PCL-1001-1', name: 'Чайник электрический', subjectType: 1, price: 150000, totalSum: 150000, taxId: 1, taxSystemId: 1 };
const microwave = { count: 1, barcode: 'PCL-1001-2', name: 'Микроволновая печь', subjectType: 1, price: 700000, totalSum: 700000, taxId: 1, taxSystemId: 1 };
const cups = { count: 2, barcode: 'PCL-1001-4', name: 'Кружка керамическая', subjectType: 1, price: 50000, totalSum: 100000, taxId: 1, taxSystemId: 1 };

const smartOrder = {
  externalId: 'ORD-1001',
  number: '1001',
  postamatId: 102,
  dateDelivery: '2030-03-05',
  parcels: [
    { barcode: 'PCL-1001-1', dimension: { length: 300, width: 200, height: 80 } },
    { barcode: 'PCL-1001-2', additionalBarcodes: ['ALT-1001-2'], dimension: { length: 560, width: 420, height: 380 } },
    { barcode: 'PCL-1001-3', dimension: { length: 900, width: 900, height: 900 } },
  ],
  clientInvoice: { cart: { items: [kettle, microwave], prePaymentSum: 850000 } },
  notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
};

const plainOrder = (externalId: string, barcode: string, size: number, phone: string) => ({
  externalId,
  postamatId: 101,
  dateDelivery: '2030-03-05',
  parcels: [{ barcode, dimension: { length: size, width: size, height: size } }],
  clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
  notification: { emails: [], phones: [phone] },
});

export const orderExamples: Record<string, OperationExamples> = {
  createSmartOrder: {
    success: 'The order is created (state 0, New); which parcels got which cell, and which found none. The same request again answers the same and creates nothing.',
    codes: [],
    requests: {
      threeParcels: { summary: 'An order of three parcels for locker 102', body: smartOrder, status: 200 },
      emptyExternalId: { summary: 'An order without externalId', body: { ...smartOrder, externalId: '' }, invalid: true, status: 400, answer: 'code3' },
    },
    answers: {
      threeParcels: { summary: 'Two parcels reserved; the third fits no cell of the locker even rotated', value: { reserved: [{ cellId: 1, externalId: "ORD-1001", barcodes: ["PCL-1001-1"] }, { cellId: 13, externalId: "ORD-1001", barcodes: ["PCL-1001-2"] }], temporarilyRejectedItems: [], permanentlyRejectedItems: ["PCL-1001-3"], toReturn: [] } },
    },
  },
  createOrder: {
    success: 'The order is created (state 0, New) without holding cells',
    codes: [ResultCode.NoCellsForAllParcels],
    requests: {
      oneParcel: { summary: 'An order of one parcel for locker 101', body: plainOrder('ORD-1002', 'PCL-1002-1', 150, '+79161234568'), status: 200 },
      noCells: { summary: 'A parcel no free cell fits', body: plainOrder('ORD-1003', 'PCL-1003-1', 800, '+79161234569'), status: 400, answer: 'code32' },
    },
    answers: {
      oneParcel: { summary: 'Created', value: { externalId: "ORD-1002", state: 0 } },
    },
  },
  updateOrder: {
    success: 'The order in state New is updated: parcels matched by barcode (replaced when found, added when not); an order created with reservation is reserved again',
    codes: [ResultCode.PostOperationNotFound, ResultCode.PostOperationWrongState, ResultCode.NoCellsForAllParcels],
    requests: {
      addParcel: {
        summary: 'A fourth parcel and its item',
        description: 'prePaymentSum must equal the sum of the items\' totalSum.',
        body: {
          externalId: 'ORD-1001',
          dateDelivery: '2030-03-05',
          parcels: [{ barcode: 'PCL-1001-4', dimension: { length: 300, width: 300, height: 150 } }],
          clientInvoice: { cart: { items: [kettle, microwave, cups], prePaymentSum: 950000 } },
        },
        status: 200,
      },
      unknownOrder: { summary: 'An order that does not exist', body: { externalId: 'ORD-404', parcels: [{ barcode: 'PCL-404-1' }] }, status: 400, answer: 'code205' },
    },
    answers: {
      addParcel: { summary: 'Reserved again', value: { externalId: "ORD-1001", state: 0, reserved: [{ cellId: 7, externalId: "ORD-1001", barcodes: ["PCL-1001-1", "PCL-1001-4"] }, { cellId: 13, externalId: "ORD-1001", barcodes: ["PCL-1001-2"] }], temporarilyRejectedItems: [], permanentlyRejectedItems: ["PCL-1001-3"], toReturn: [] } },
    },
  },
  cancelPosition: {
    success: 'The position is cancelled; every position of a New order cancelled makes it Cancelled (5), of a Courier loaded order Return initiated (6)',
    codes: [ResultCode.PostOperationNotFound, ResultCode.PackagingNotFound, ResultCode.PackagingCanceled, ResultCode.PackagingLoadedOrIssued],
    requests: {
      cancel: { summary: 'Cancel the parcel that fits no cell', body: { extId: 'ORD-1001', barcode: 'PCL-1001-3' }, status: 200 },
      again: { summary: 'The same again', body: { extId: 'ORD-1001', barcode: 'PCL-1001-3' }, status: 400, answer: 'code208' },
      unknownParcel: { summary: 'A barcode the order does not have', body: { extId: 'ORD-1001', barcode: 'PCL-404-1' }, status: 400, answer: 'code207' },
      unknownOrder: { summary: 'An order that does not exist', body: { extId: 'ORD-404', barcode: 'PCL-404-1' }, status: 400, answer: 'code205' },
    },
    answers: {
      cancel: { summary: 'The order stays New', value: { externalId: "ORD-1001", state: 0 } },
    },
  },
  extendStorage: {
    success: 'Storage ends 72 hours later, moved past the locker\'s non-working days; the marketplace also gets an expiration-date-changes notification',
    codes: [ResultCode.OperationNotFound, ResultCode.OperationBadState],
    requests: {
      notLoaded: { summary: 'An order no courier has loaded yet', body: { extId: 'ORD-1001' }, status: 400, answer: 'code252' },
      unknownOrder: { summary: 'An order that does not exist', body: { extId: 'ORD-404' }, status: 400, answer: 'code250' },
    },
    answers: {
      extended: { summary: 'A loaded order: the new end of storage', value: { externalID: 'ORD-1001', date_storage: '2030-03-11T12:00:00+03:00' } },
    },
  },
  getOrderDetail: {
    success: 'Where the courier finds the order: the locker, how to get in, and the cells of its parcels',
    statuses: { '429': 'Refused for now (code 4): the caller is over its rate limit, or the barcode or the marketplace is locked after too many wrong courier codes. Nothing changed.' },
    codes: [ResultCode.OrderNotFound, ResultCode.LogistNotFound, ResultCode.CourierRouteNotFound],
    requests: {
      byCourier: { summary: 'By the courier\'s externalId', body: { barcode: 'PCL-1001-1', courierExternalId: 'CR-77' }, status: 200 },
      byAccessCode: { summary: 'By the courier\'s access code', body: { barcode: 'PCL-1001-2', postamatAccessCode: '40718263' }, status: 200, answer: 'byCourier' },
      unknownCourier: { summary: 'A courier that does not exist (counted as a wrong code)', body: { barcode: 'PCL-1001-1', courierExternalId: 'CR-00' }, status: 400, answer: 'code203' },
      unknownParcel: { summary: 'A barcode no order has', body: { barcode: 'PCL-404-1', courierExternalId: 'CR-77' }, status: 400, answer: 'code200' },
    },
    answers: {
      byCourier: { summary: 'Order ORD-1001 at locker 102', value: { idPoint: 102, orderNumber: "ORD-1001", workTimeProfile: { id: 2, name: "Будни и суббота", active: true, lastUpdate: "2030-03-04T12:00:00+03:00", monday: { start: "09:00", end: "21:00" }, tuesday: { start: "09:00", end: "21:00" }, wednesday: { start: "09:00", end: "21:00" }, thursday: { start: "09:00", end: "21:00" }, friday: { start: "09:00", end: "21:00" }, saturday: { start: "10:00", end: "18:00" }, preHoliday: { start: "09:00", end: "18:00" } }, location: { id: 1102, city: "Москва", street: "Ленинский проспект", house: "45", building: "1", housing: "", entrance: "", officeNum: "", route: "м. Ленинский проспект", latitude: 55.7065, longitude: 37.5853, fullAddress: "Москва, Ленинский проспект, 45к1", placeTypeId: 1, placeTypeName: "Торговый центр" }, pointAccess: { privateAccess: false, accessGuide: "Вход через главный вход ТЦ" }, holdedCells: [{ cellId: 7, barcodes: ["PCL-1001-1", "PCL-1001-4"] }, { cellId: 13, barcodes: ["PCL-1001-2"] }], state: 0 } },
      locked: {
        status: 429,
        summary: 'Locked after too many wrong codes for the barcode (Retry-After: 900)',
        value: { message: 'Слишком много неверных кодов: повторите через 900 с', resultCode: 4 },
      },
    },
  },
};
