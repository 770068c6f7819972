/** Examples of the operator console's /operator views and actions (docs/console-api.md), with the example fleet's operator key. */
import { doorLeftOpenAlert } from './operator.js';
import type { OperationExamples } from './types.js';

const ORDER_1001 = '00000000-0000-4000-8000-000000000003';
const ORDER_1002 = '00000000-0000-4000-8000-000000000004';

const locker101 = {
  lockerId: 101,
  name: 'Постамат Тверская 7',
  city: 'Москва',
  address: 'Москва, Тверская улица, 7',
  latitude: 55.7579,
  longitude: 37.6122,
  active: true,
  broken: false,
  online: false,
  since: null,
  lastSeenAt: null,
  freeToday: { '430x90': 4, '430x190': 3, '430x390': 1 },
  fill: { occupied: 0, usable: 8, percent: 0 },
  openAlerts: 0,
  lastEventAt: null,
  agentVersion: null,
};

const freeCell = (cellId: number, size: '430x90' | '430x190' | '430x390', height: number) => ({
  cellId,
  column: 1,
  row: cellId,
  size,
  width: 430,
  height,
  depth: 600,
  state: 'free',
  doorOpen: null,
  flags: [],
  flagMarks: [],
  orders: [],
});

const order1001 = {
  orderId: ORDER_1001,
  externalId: 'ORD-1001',
  marketplaceId: 'shop-one',
  lockerId: 102,
  state: 0,
  phones: ['+7******4567'],
  barcodes: ['PCL-1001-1', 'PCL-1001-2', 'PCL-1001-3', 'PCL-1001-4'],
  holdUntil: null,
  createdAt: '2030-03-04T09:00:00.000Z',
  stateChangedAt: '2030-03-04T09:00:00.000Z',
};

const alert3 = { ...doorLeftOpenAlert, status: 'acknowledged', acknowledgedAt: '2030-03-05T10:20:00.000Z', acknowledgedBy: 'ops' };

/** A week no locker of the example fleet was seen in and no order moved. */
const unseenWeek = {
  uptime: 0,
  onlineSeconds: 0,
  observedSeconds: 604_800,
  deliveries: 0,
  pickUps: 0,
  returns: 0,
  failed: 0,
  failedByCause: { storageExpired: 0, cancelled: 0, operatorReturn: 0, other: 0 },
  failedRate: null,
  dwellMedianSeconds: null,
  dwellP90Seconds: null,
  pickedUpInTime: 0,
  sla: null,
};

export const consoleExamples: Record<string, OperationExamples> = {
  getOperatorSession: {
    success: 'Who is signed in; with the key header the token is empty (a key needs no CSRF token)',
    requests: { byKey: { summary: 'Signed in by X-Operator-Api-Key', status: 200 } },
    answers: {
      byKey: { summary: 'The operator ops, by key', value: { operator: 'ops', role: 'operator', csrfToken: '', expiresAt: null } },
      bySession: {
        summary: 'By the session cookie',
        value: { operator: 'ops', role: 'operator', csrfToken: 'sh4XGeP7Ew3tAQcdf0w0fYbTACvddAWBAky4QDH9YSs', expiresAt: '2030-03-04T21:00:00.000Z' },
      },
    },
  },
  signInOperator: {
    success: 'Signed in: the session cookie is set (HttpOnly, SameSite=Strict); the answer carries its CSRF token',
    codes: [1],
    requests: {
      wrongKey: { summary: 'A key no operator has', body: { key: 'not-an-operator-key' }, status: 401, answer: 'code1' },
    },
    answers: {
      signedIn: {
        summary: 'Signed in with the key demo-operator-key (the token differs every time)',
        value: { operator: 'ops', role: 'operator', csrfToken: 'sh4XGeP7Ew3tAQcdf0w0fYbTACvddAWBAky4QDH9YSs', expiresAt: '2030-03-04T21:00:00.000Z' },
      },
    },
  },
  getOverview: {
    success: 'The fleet at a glance',
    requests: { now: { summary: 'The example fleet, no agent connected', status: 200 } },
    answers: {
      now: {
        summary: 'Three lockers offline, one blocked cell; the sandbox locker apart',
        value: {
          lockers: { total: 3, online: 0, offline: 3 },
          openAlerts: { critical: 0, warning: 0, info: 0 },
          cells: { needsInspection: 0, blocked: 1 },
          fill: { occupied: 2, usable: 47, percent: 4 },
          notifications: { undelivered: 0, oldestUndeliveredAgeSeconds: null },
          storageEndingToday: 0,
          sandbox: {
            lockers: { total: 1, online: 0, offline: 1 },
            openAlerts: { critical: 0, warning: 0, info: 0 },
            cells: { needsInspection: 0, blocked: 0 },
            fill: { occupied: 0, usable: 8, percent: 0 },
            notifications: { undelivered: 0, oldestUndeliveredAgeSeconds: null },
          },
        },
      },
    },
  },
  listOperatorLockers: {
    success: 'A page of lockers by id',
    requests: { firstTwo: { summary: 'The first two lockers', query: { pageSize: 2 }, status: 200 } },
    answers: {
      firstTwo: {
        summary: 'Lockers 101 and 102 of four',
        value: {
          items: [
            locker101,
            {
              lockerId: 102,
              name: 'Постамат Ленинский 45',
              city: 'Москва',
              address: 'Москва, Ленинский проспект, 45к1',
              latitude: 55.7065,
              longitude: 37.5853,
              active: true,
              broken: false,
              online: false,
              since: null,
              lastSeenAt: null,
              freeToday: { '430x90': 6, '430x190': 5, '430x390': 2, '600x590': 0 },
              fill: { occupied: 2, usable: 15, percent: 13 },
              openAlerts: 0,
              lastEventAt: null,
              agentVersion: null,
            },
          ],
          total: 4,
          page: 1,
          pageSize: 2,
        },
      },
    },
  },
  getOperatorLocker: {
    success: 'The locker with its grid of cells (state, door, flags, orders)',
    requests: {
      locker101: { summary: 'Locker 101', params: { lockerId: 101 }, status: 200 },
      unknown: { summary: 'A locker the fleet does not have', params: { lockerId: 999 }, status: 400, answer: 'code3' },
    },
    answers: {
      locker101: {
        summary: 'Eight cells, all free (the first three shown)',
        value: { ...locker101, cloudStartedAt: '2030-03-04T09:00:00.000Z', agentStartedAt: null, onlineCause: null, timezone: 'Europe/Moscow', depth: 600, grid: [freeCell(1, '430x90', 90), freeCell(2, '430x90', 90), freeCell(3, '430x90', 90)] },
      },
    },
  },
  listLockerOrders: {
    success: "A page of the locker's orders, newest first (phones masked)",
    requests: { locker101: { summary: 'Orders of locker 101', params: { lockerId: 101 }, query: { pageSize: 2 }, status: 200 } },
    answers: {
      locker101: {
        summary: 'One new order',
        value: {
          items: [{ ...order1001, orderId: ORDER_1002, externalId: 'ORD-1002', lockerId: 101, phones: ['+7******4568'], barcodes: ['PCL-1002-1'] }],
          total: 1,
          page: 1,
          pageSize: 2,
        },
      },
    },
  },
  listLockerCommands: {
    success: "A page of the locker's commands, newest first, with their status",
    requests: { locker101: { summary: 'Commands of locker 101', params: { lockerId: 101 }, query: { pageSize: 2 }, status: 200 } },
    answers: {
      locker101: {
        summary: 'The cell.open and cell.flags sent above, not yet acknowledged (no agent runs)',
        value: {
          items: [
            { cseq: 6, type: 'cell.open', body: { type: 'cell.open', cellId: 5, reason: 'customer_support', notAfter: 1898845320000 }, createdAt: '2030-03-04T09:00:00.000Z', status: 'pending' },
            { cseq: 5, type: 'cell.flags', body: { type: 'cell.flags', cellId: 5, flags: [] }, createdAt: '2030-03-04T09:00:00.000Z', status: 'pending' },
          ],
          total: 6,
          page: 1,
          pageSize: 2,
        },
      },
    },
  },
  listLockerAlerts: {
    success: "A page of the locker's alerts (open ones; include=history for all)",
    requests: { locker101: { summary: 'Open alerts of locker 101', params: { lockerId: 101 }, status: 200 } },
    answers: {
      locker101: { summary: 'None', value: { items: [], total: 0, page: 1, pageSize: 50 } },
      doorLeftOpen: { summary: 'A door left open, acknowledged', value: { items: [alert3], total: 1, page: 1, pageSize: 50 } },
    },
  },
  searchOrders: {
    success: 'Orders whose externalId, barcode or phone ends with the query (phones masked)',
    requests: {
      byExternalId: { summary: 'By externalId', query: { query: 'ORD-1001' }, status: 200 },
      byPhoneEnd: { summary: 'By the end of a phone number no order has', query: { query: '0000' }, status: 200 },
    },
    answers: {
      byExternalId: { summary: 'One order', value: { items: [order1001], total: 1, page: 1, pageSize: 50 } },
      byPhoneEnd: { summary: 'None', value: { items: [], total: 0, page: 1, pageSize: 50 } },
    },
  },
  getFleetMap: {
    success: 'Active lockers for the map, by id',
    requests: { firstTwo: { summary: 'The first two lockers', query: { limit: 2 }, status: 200 } },
    answers: {
      firstTwo: {
        summary: 'Lockers 101 and 102 of four, offline, none alarming',
        value: {
          items: [
            { lockerId: 101, name: 'Постамат Тверская 7', address: 'Москва, Тверская улица, 7', latitude: 55.7579, longitude: 37.6122, sandbox: false, online: false, openAlerts: 0, fill: { occupied: 0, usable: 8, percent: 0 } },
            { lockerId: 102, name: 'Постамат Ленинский 45', address: 'Москва, Ленинский проспект, 45к1', latitude: 55.7065, longitude: 37.5853, sandbox: false, online: false, openAlerts: 0, fill: { occupied: 2, usable: 15, percent: 13 } },
          ],
          total: 4,
        },
      },
    },
  },
  listFlaggedCells: {
    success: 'A page of flagged cells, by locker then cell',
    requests: { blocked: { summary: 'The blocked cells', query: { flag: 'blocked' }, status: 200 } },
    answers: {
      blocked: {
        summary: "One cell, blocked by the fleet file (so no mark of who set it)",
        value: { items: [{ lockerId: 102, lockerName: 'Постамат Ленинский 45', cellId: 16, size: '600x590', flags: ['blocked'], flagMarks: [] }], total: 1, page: 1, pageSize: 50 },
      },
    },
  },
  listStorageEndingToday: {
    success: "Parcels waiting for pick-up whose storage ends today in their locker's time zone, earliest first",
    requests: { today: { summary: 'Today', status: 200 } },
    answers: { today: { summary: 'None: no parcel is loaded yet', value: { items: [], total: 0, page: 1, pageSize: 50 } } },
  },
  getOrderSummary: {
    success: 'The order as a person reads it first',
    requests: {
      unknown: { summary: 'An order that does not exist', params: { orderId: '00000000-0000-4000-8000-0000000000ff' }, status: 400, answer: 'code3' },
    },
    answers: {
      loaded: {
        summary: 'An order in its cell: code active and delivered, the placement told, the deadline not yet delivered',
        value: {
          orderId: ORDER_1001,
          externalId: 'ORD-1001',
          marketplaceId: 'shop-one',
          lockerId: 102,
          lockerName: 'Постамат Арбат 12',
          timezone: 'Europe/Moscow',
          state: 3,
          stateChangedAt: '2030-03-04T10:00:00.000Z',
          createdAt: '2030-03-04T09:00:00.000Z',
          loadedAt: '2030-03-04T10:00:00.000Z',
          holdUntil: '2030-03-07T10:00:00.000Z',
          phones: ['+7******4567'],
          parcels: [{ barcode: 'PCL-1001-1', state: 'loaded', cellId: 4 }],
          code: { active: true, sentAt: '2030-03-04T10:00:00.000Z', delivery: 'delivered' },
          marketplace: [
            {
              notificationId: 9,
              kind: 'expiration-date-changes',
              said: '2030-03-07T13:00:00+03:00',
              delivery: 'pending',
              recordedAt: '2030-03-04T10:00:00.000Z',
              deliveredAt: null,
              attempts: 2,
              lastStatus: 503,
              lastError: 'HTTP 503',
            },
            { notificationId: 8, kind: 'user-access-code', said: null, delivery: 'delivered', recordedAt: '2030-03-04T10:00:00.000Z', deliveredAt: '2030-03-04T10:00:01.000Z', attempts: 1, lastStatus: 200, lastError: null },
            { notificationId: 7, kind: 'order-status', said: '3', delivery: 'delivered', recordedAt: '2030-03-04T10:00:00.000Z', deliveredAt: '2030-03-04T10:00:01.000Z', attempts: 1, lastStatus: 200, lastError: null },
          ],
        },
      },
    },
  },
  getOrderTimeline: {
    success: "The order's history: states, commands, notifications and locker facts in time order",
    requests: {
      unknown: { summary: 'An order that does not exist', params: { orderId: '00000000-0000-4000-8000-0000000000ff' }, status: 400, answer: 'code3' },
    },
    answers: {
      order1001: {
        summary: 'ORD-1001: its API calls, transitions and commands (the first of each shown)',
        value: {
          orderId: ORDER_1001,
          externalId: 'ORD-1001',
          marketplaceId: 'shop-one',
          lockerId: 102,
          state: 0,
          entries: [
            {
              at: '2030-03-04T09:00:00.000Z',
              kind: 'api_call',
              summary: 'smartorder/create: resultCode 0',
              detail: { operation: 'smartorder/create', marketplaceId: 'shop-one', resultCode: 0, requestId: '9d543581-5e80-4a5c-a476-575351209b92' },
            },
            {
              at: '2030-03-04T09:00:00.000Z',
              kind: 'transition',
              summary: 'order.create: - -> 0 (C1)',
              detail: {
                seq: 1,
                rule: 'C1',
                event: 'order.create',
                fromState: null,
                toState: 0,
                parcels: [
                  { barcode: 'PCL-1001-1', from: null, to: 'pending' },
                  { barcode: 'PCL-1001-2', from: null, to: 'pending' },
                  { barcode: 'PCL-1001-3', from: null, to: 'pending' },
                ],
              },
            },
            {
              at: '2030-03-04T09:00:00.000Z',
              kind: 'command',
              summary: 'order.upsert #3 to locker 102: pending',
              detail: { lockerId: 102, cseq: 3, type: 'order.upsert', status: 'pending' },
            },
          ],
        },
      },
    },
  },
  extendOrderStorage: {
    success: 'The new storage deadline (as order/extension answers it)',
    codes: [252],
    requests: {
      notLoaded: { summary: 'An order not yet in the locker', params: { orderId: ORDER_1001 }, body: { days: 2, reason: 'customer in hospital' }, status: 400, answer: 'code252' },
    },
    answers: {
      extended: {
        summary: 'Two more days',
        value: { orderId: ORDER_1001, externalId: 'ORD-1001', holdUntil: '2030-03-09T20:59:59.000Z', dateStorage: '2030-03-09T23:59:59+03:00' },
      },
    },
  },
  regenerateOrderCode: {
    success: 'A new code is issued and on its way to the marketplace',
    codes: [252],
    requests: {
      notLoaded: { summary: 'An order not yet in the locker', params: { orderId: ORDER_1001 }, body: { reason: 'customer lost the SMS' }, status: 400, answer: 'code252' },
    },
    answers: { issued: { summary: 'A new code (sent as user-access-code, never answered here)', value: { orderId: ORDER_1001, externalId: 'ORD-1001', state: 3, rule: 'CR1' } } },
  },
  startOrderReturn: {
    success: 'The order is Return initiated; the parcels in the locker are to be returned',
    codes: [252],
    requests: {
      notLoaded: { summary: 'An order not yet in the locker', params: { orderId: ORDER_1001 }, body: { reason: 'refused by the customer', note: 'phoned the desk' }, status: 400, answer: 'code252' },
    },
    answers: { started: { summary: 'Return initiated', value: { orderId: ORDER_1001, externalId: 'ORD-1001', state: 6, rule: 'OR1' } } },
  },
  handOverOrder: {
    success: 'The order.handover command is recorded after the order\'s upsert; the outcome comes back as an operator alert (kind order.handover), the order becomes Client received by the locker\'s parcel.received',
    codes: [252],
    requests: {
      notLoaded: { summary: 'An order not yet in the locker', params: { orderId: ORDER_1001 }, body: { note: 'customer at the locker, code refused' }, status: 400, answer: 'code252' },
    },
    answers: {
      accepted: {
        status: 202,
        summary: 'Recorded as command 7 of the locker, refused by it after 12:02 Moscow time',
        value: { orderId: ORDER_1001, externalId: 'ORD-1001', lockerId: 101, state: 3, rule: 'HO1', cseq: 7, notAfter: 1898845320000 },
      },
      offline: { status: 409, summary: 'The locker is offline', value: { message: 'Operation have bad state: locker 101 is offline', resultCode: 252 } },
    },
  },
  acknowledgeAlert: {
    success: 'The alert, acknowledged (it stays open until resolved)',
    requests: { unknown: { summary: 'An alert that does not exist', params: { alertId: 999 }, body: { reason: 'technician on the way' }, status: 400, answer: 'code3' } },
    answers: { acknowledged: { summary: 'Acknowledged by ops', value: alert3 } },
  },
  assignAlert: {
    success: 'The alert with its assignee',
    requests: { unknown: { summary: 'An alert that does not exist', params: { alertId: 999 }, body: { assignee: 'field-tech-3' }, status: 400, answer: 'code3' } },
    answers: { assigned: { summary: 'Assigned to field-tech-3', value: { ...alert3, assignee: 'field-tech-3' } } },
  },
  addAlertNote: {
    success: 'The alert with its notes',
    requests: { unknown: { summary: 'An alert that does not exist', params: { alertId: 999 }, body: { text: 'customer called' }, status: 400, answer: 'code3' } },
    answers: {
      noted: { summary: 'A note added', value: { ...alert3, notes: [{ at: '2030-03-05T10:25:00.000Z', operator: 'ops', text: 'technician on the way' }] } },
    },
  },
  resolveAlert: {
    success: 'The alert, resolved with its reason',
    requests: { unknown: { summary: 'An alert that does not exist', params: { alertId: 999 }, body: { reason: 'door latch replaced' }, status: 400, answer: 'code3' } },
    answers: {
      resolved: {
        summary: 'Resolved by ops',
        value: { ...alert3, status: 'resolved', resolvedAt: '2030-03-05T11:00:00.000Z', resolvedBy: 'ops', resolveReason: 'door latch replaced' },
      },
    },
  },
  listAudit: {
    success: 'A page of the audit log, newest first',
    requests: { latest: { summary: 'The two latest actions', query: { pageSize: 2 }, status: 200 } },
    answers: {
      latest: {
        summary: 'The cell opened and the flag cleared above',
        value: {
          items: [
            {
              id: 3,
              at: '2030-03-04T09:00:00.000Z',
              operator: 'ops',
              action: 'cell.open',
              target: 'locker:101/cell:5',
              reason: 'customer_support',
              note: 'customer at the locker, code not accepted',
              lockerId: 101,
              orderId: null,
              detail: { cseq: 6, openReason: 'customer_support', notAfter: '2030-03-04T09:02:00.000Z' },
            },
            { id: 2, at: '2030-03-04T09:00:00.000Z', operator: 'ops', action: 'cell.flags', target: 'locker:101/cell:5', reason: null, note: null, lockerId: 101, orderId: null, detail: { before: ['dirty'], after: [] } },
          ],
          total: 3,
          page: 1,
          pageSize: 2,
        },
      },
    },
  },
  getLockersReport: {
    success: 'The figures of the period per locker, the network and the sandbox apart (JSON; CSV with format=csv)',
    requests: {
      lastWeek: { summary: 'A week before the example fleet started', query: { from: '2030-02-25', to: '2030-03-04' }, status: 200 },
      backwards: { summary: 'A period that ends before it begins', query: { from: '2030-03-04', to: '2030-03-01' }, status: 400, invalid: true },
    },
    answers: {
      lastWeek: {
        summary: 'Nothing happened yet: no locker was seen, no order moved',
        value: {
          from: '2030-02-24T21:00:00.000Z',
          to: '2030-03-03T21:00:00.000Z',
          lockers: [{ lockerId: 101, name: 'Постамат Тверская 7', sandbox: false, active: true, ...unseenWeek }],
          network: { lockers: 3, ...unseenWeek, observedSeconds: 3 * 604_800 },
          sandbox: { lockers: 1, ...unseenWeek },
        },
      },
      backwards: { summary: 'Refused: from must be before to', status: 400, value: { message: 'Неверный формат запроса: `from` должен быть раньше `to`', resultCode: 3 } },
    },
  },
  getTrends: {
    success: 'The buckets, oldest first',
    requests: { day: { summary: "The last day of locker 101, hour by hour", query: { span: 'day', lockerId: 101 }, status: 200 } },
    answers: { day: { summary: 'Hourly buckets', value: { span: 'day', timezone: 'Europe/Moscow', lockerId: 101, buckets: [] } } },
  },
  streamEvents: {
    success: 'text/event-stream: `event:` and `data:` lines per change, a heartbeat comment every 15 s; the answer never ends',
    requests: { open: { summary: 'Open the stream', status: 200, notSent: 'the answer never ends: the example run cannot read it whole' } },
    answers: {
      open: {
        summary: 'A locker coming online, then an alert',
        value:
          ': connected\n\nevent: locker\ndata: {"lockerId":101,"online":true}\n\n' +
          'event: alert\ndata: {"alertId":3,"lockerId":101,"cellId":5,"kind":"door.alarm","severity":"warning","status":"open","count":1}\n\n: heartbeat\n\n',
      },
    },
  },
  signOutOperator: {
    success: 'Signed out: the session ends and its cookie is cleared (with the key header nothing is left to end)',
    requests: { signOut: { summary: 'Sign out', status: 200 } },
    answers: { signOut: { summary: 'Signed out', value: { signedOut: true } } },
  },
};
