/** Examples of /operator (operator ops of the example fleet). */
import type { OperationExamples } from './types.js';

/** One door left open, as the alert list shows it while open; the console's examples show it acknowledged and resolved. */
export const doorLeftOpenAlert = {
  id: 3,
  postamatId: 101,
  dseq: 118,
  kind: 'door.alarm',
  severity: 'warning',
  cellId: 5,
  orderId: null,
  detail: { kind: 'left_open' },
  occurredAt: '2030-03-05T10:15:00.000Z',
  receivedAt: '2030-03-05T10:15:01.000Z',
  status: 'open',
  dedupKey: 'door.alarm:101:5',
  count: 1,
  lastSeenAt: '2030-03-05T10:15:01.000Z',
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt: null,
  resolvedBy: null,
  resolveReason: null,
  assignee: null,
  notes: [] as { at: string; operator: string; text: string }[],
};

export const operatorExamples: Record<string, OperationExamples> = {
  setCellFlags: {
    success: 'The cell\'s flags now; a flagged cell is out of allocation at once, and the locker gets them as a cell.flags command',
    requests: {
      markDirty: { summary: 'Mark cell 5 of locker 101 dirty', params: { postamatId: 101, cellId: 5 }, body: { dirty: true }, status: 200 },
      clearDirty: { summary: 'Clear the mark', params: { postamatId: 101, cellId: 5 }, body: { dirty: false }, status: 200 },
      unknownCell: { summary: 'A cell the locker does not have', params: { postamatId: 101, cellId: 99 }, body: { faulty: true }, status: 400, answer: 'code3' },
    },
    answers: {
      markDirty: { summary: 'Dirty', value: { postamatId: 101, cellId: 5, flags: ['dirty'] } },
      clearDirty: { summary: 'No flag left', value: { postamatId: 101, cellId: 5, flags: [] } },
    },
  },
  openCell: {
    success: 'The cell.open command is recorded; the outcome comes back from the locker as an operator alert (kind cell.open)',
    requests: {
      customerSupport: {
        summary: 'Open cell 5 of locker 101 for a customer, at most 2 minutes late',
        params: { lockerId: 101, cellId: 5 },
        body: { reason: 'customer_support', note: 'customer at the locker, code not accepted', maxAgeSeconds: 120 },
        status: 202,
      },
      notAnnounced: {
        summary: 'A locker whose agent has not announced cell.open',
        params: { lockerId: 102, cellId: 1 },
        body: { reason: 'maintenance' },
        status: 400,
        answer: 'code3',
      },
    },
    answers: {
      customerSupport: { status: 202, summary: 'Recorded as command 6 of the locker, refused by it after 12:02 Moscow time', value: { lockerId: 101, cellId: 5, cseq: 6, notAfter: 1898845320000 } },
    },
  },
  reloadFleet: {
    success: 'The fleet file is loaded again; orders are kept',
    requests: { reload: { summary: 'Reload', status: 200 } },
    answers: { reload: { summary: 'Every locker updated (the sandbox locker 901 too)', value: { lockers: { added: [], updated: [101, 102, 103, 901], deactivated: [] }, marketplaces: 3, partners: 2, configChanged: [] } } },
  },
  listNotifications: {
    success: 'Notifications, newest first (pick-up codes masked)',
    requests: {
      failing: { summary: 'Failing notifications of shop-one', query: { status: 'failing', marketplaceId: 'shop-one' }, status: 200 },
    },
    answers: {
      failing: { summary: 'None failing', value: { notifications: [] } },
      pending: {
        summary: 'A pick-up code waiting for its second attempt',
        value: {
          notifications: [
            {
              id: 17,
              uid: '0f8e6a52-3c1d-4b8e-9a57-2f4c6d8e1b90',
              marketplaceId: 'shop-one',
              orderId: '5b0c8a3e-2f7d-4d61-9c1a-7e4b2d9f6a10',
              externalId: 'ORD-1001',
              kind: 'user-access-code',
              body: { id: 'ORD-1001', postamat_id: '102', access_code: '******' },
              createdAt: '2030-03-05T09:00:00.000Z',
              requestId: '3f2a9c1e-7b4d-4e8a-9f61-0c5d2b7e8a14',
              attempts: 1,
              nextAttemptAt: '2030-03-05T09:05:00.000Z',
              lastAttemptAt: '2030-03-05T09:00:00.000Z',
              lastStatus: 503,
              lastError: 'HTTP 503',
              failingSince: null,
              deliveredAt: null,
            },
          ],
        },
      },
    },
  },
  redeliverNotifications: {
    success: 'How many orders and notifications became due now',
    requests: {
      failing: { summary: 'Every failing notification of shop-one', body: { failing: true, marketplaceId: 'shop-one' }, status: 200, answer: 'none' },
      byIds: { summary: 'Chosen notifications (with the rest of their orders)', body: { ids: [17, 18] }, status: 200, answer: 'none' },
      byOrder: { summary: 'Every undelivered notification of an order (none here)', body: { orderId: '00000000-0000-4000-8000-0000000000ff', reason: 'customer asked for the code again' }, status: 200, answer: 'none' },
    },
    answers: {
      none: { summary: 'Nothing to redeliver', value: { orders: 0, notifications: 0 } },
      some: { summary: 'Two orders, five notifications', value: { orders: 2, notifications: 5 } },
    },
  },
  listReceivers: {
    success: "Each marketplace's receiver, failing from its first failed attempt",
    requests: { all: { summary: 'Every receiver', status: 200, answer: 'idle' } },
    answers: {
      idle: {
        summary: 'No notification tried yet',
        value: {
          receivers: ['sandbox-shop', 'shop-one', 'shop-two'].map((marketplaceId) => ({
            marketplaceId,
            state: 'idle',
            undelivered: 0,
            markedFailing: 0,
            oldestUndeliveredAt: null,
            lastAttemptAt: null,
            lastStatus: null,
            lastError: null,
            lastDeliveredAt: null,
          })),
        },
      },
      failing: {
        summary: "shop-one's receiver answers 503 since its latest attempt; shop-two's delivers",
        value: {
          receivers: [
            {
              marketplaceId: 'shop-one',
              state: 'failing',
              undelivered: 3,
              markedFailing: 0,
              oldestUndeliveredAt: '2030-03-05T09:00:00.000Z',
              lastAttemptAt: '2030-03-05T09:00:05.000Z',
              lastStatus: 503,
              lastError: 'HTTP 503',
              lastDeliveredAt: '2030-03-05T08:55:00.000Z',
            },
            {
              marketplaceId: 'shop-two',
              state: 'ok',
              undelivered: 0,
              markedFailing: 0,
              oldestUndeliveredAt: null,
              lastAttemptAt: '2030-03-05T09:00:02.000Z',
              lastStatus: 200,
              lastError: null,
              lastDeliveredAt: '2030-03-05T09:00:02.000Z',
            },
          ],
        },
      },
    },
  },
  getLockerHealth: {
    success: "The latest health report of the locker's agent; report null until the first arrives",
    requests: { locker101: { summary: 'Health of locker 101', params: { lockerId: 101 }, status: 200, answer: 'none' } },
    answers: {
      none: { summary: 'No report yet', value: { lockerId: 101, receivedAt: null, reportedAt: null, report: null } },
      reported: {
        summary: 'A report with a slow board and one door fault',
        value: {
          lockerId: 101,
          receivedAt: '2030-03-05T10:15:01.000Z',
          reportedAt: '2030-03-05T10:15:00.000Z',
          report: {
            at: 1898316900000,
            intervalSeconds: 60,
            uptimeSeconds: 86400,
            version: '0.1.0',
            memory: { rssBytes: 52428800, heapUsedBytes: 18874368 },
            boards: { answers: 118, p50Ms: 14, p99Ms: 41, errors: 2 },
            doorFaults: 1,
            scans: 12,
            outboxDepth: 0,
            link: { reconnects: 0 },
          },
        },
      },
    },
  },
  listAlerts: {
    success: 'Locker facts kept for operators, newest first',
    requests: {
      warnings: { summary: 'Warnings of locker 101', query: { postamatId: 101, severity: 'warning', limit: 50 }, status: 200 },
    },
    answers: {
      warnings: { summary: 'None', value: { alerts: [] } },
      doorLeftOpen: {
        summary: 'A door left open',
        value: {
          alerts: [
            doorLeftOpenAlert,
          ],
        },
      },
    },
  },
};
