/**
 * Examples of /api/v4/sandbox (docs/sandbox.md). The example run has no sandbox locker running,
 * so its requests with the sandbox key get 503; the success answers show a cloud that runs one.
 */
import type { OperationExamples } from './types.js';

/** The example fleet's sandbox marketplace key (docs/api.md): the sandbox takes no other. */
const SANDBOX_KEY = { 'X-Service-Api-Key': 'demo-sandbox-shop-key' };

const STATUSES = {
  '404': 'Refused (code 3): a production marketplace key; the sandbox answers as if the path did not exist',
  '503': 'The sandbox locker does not run in this cloud process (code 2): start the cloud with the sandbox (docs/sandbox.md)',
  '504': 'The effect did not happen within SANDBOX_TIMEOUT_SECONDS (code 2); look at the order again',
};

const refusals = {
  productionKey: {
    status: 404,
    summary: 'A production key',
    value: { message: 'Неверный формат запроса: no such operation: the sandbox operations take only sandbox marketplace keys', resultCode: 3 },
  },
  notRunning: { status: 503, summary: 'No sandbox locker runs here', value: { message: 'sandbox locker 901 is not running in this cloud process', resultCode: 2 } },
  timedOut: { status: 504, summary: 'The effect did not happen in time', value: { message: 'timed out waiting for order SBX-1 to be Courier loaded', resultCode: 2 } },
};

const orderRequests = (summary: string, externalId: string) => ({
  sandbox: { summary: `${summary}: an order the sandbox shop has not created`, headers: SANDBOX_KEY, body: { externalId }, status: 400, answer: 'code200' },
  productionKey: { summary: 'With a production key', body: { externalId }, status: 404, answer: 'productionKey' },
});

export const sandboxExamples: Record<string, OperationExamples> = {
  listSandboxLockers: {
    success: 'The sandbox lockers of the fleet, and whether this cloud process runs them',
    statuses: STATUSES,
    requests: {
      sandbox: { summary: 'The sandbox lockers', headers: SANDBOX_KEY, status: 200, answer: 'inFleet' },
      productionKey: { summary: 'With a production key', status: 404, answer: 'productionKey' },
    },
    answers: {
      running: {
        summary: 'Locker 901 runs, with its screen and simulator',
        value: { postamats: [{ postamatId: 901, name: 'Sandbox locker', running: true, screenUrl: 'http://127.0.0.1:40123', simUrl: 'http://127.0.0.1:40124' }] },
      },
      inFleet: {
        summary: 'Locker 901 is in the fleet, not run by this process',
        value: { postamats: [{ postamatId: 901, name: 'Sandbox locker', running: false, screenUrl: null, simUrl: null }] },
      },
      ...refusals,
    },
  },
  sandboxCourierLoad: {
    success: 'The order once the cloud has it Courier loaded (3), with the cell of each parcel',
    statuses: STATUSES,
    codes: [200],
    requests: orderRequests('Load SBX-1', 'SBX-1'),
    answers: { loaded: { summary: 'Loaded into cell 2', value: { externalId: 'SBX-1', state: 3, parcels: [{ barcode: 'SBX-1-P1', state: 'loaded', cellId: 2 }] } }, ...refusals },
  },
  sandboxCustomerPickup: {
    codes: [200],
    success: 'The order once the cloud has it Client received (2), or the doors that failed',
    statuses: STATUSES,
    requests: {
      sandbox: { summary: 'The customer types the code the cloud sent (an order not created)', headers: SANDBOX_KEY, body: { externalId: 'SBX-1' }, status: 400, answer: 'code200' },
      withCode: { summary: 'The customer types a code of their own (an order not created)', headers: SANDBOX_KEY, body: { externalId: 'SBX-1', accessCode: '483920' }, status: 400, answer: 'code200' },
      productionKey: { summary: 'With a production key', body: { externalId: 'SBX-1' }, status: 404, answer: 'productionKey' },
    },
    answers: {
      received: {
        summary: 'Taken from cell 2',
        value: { externalId: 'SBX-1', state: 2, parcels: [{ barcode: 'SBX-1-P1', state: 'received', cellId: 2 }], openedCells: [2], failedCells: [] },
      },
      ...refusals,
    },
  },
  sandboxStorageExpiry: {
    success: 'The order once it is Awaiting return (7)',
    statuses: STATUSES,
    codes: [200],
    requests: orderRequests("SBX-1's storage runs out", 'SBX-1'),
    answers: { awaitingReturn: { summary: 'Awaiting return', value: { externalId: 'SBX-1', state: 7, parcels: [{ barcode: 'SBX-1-P1', state: 'awaiting_return', cellId: 2 }] } }, ...refusals },
  },
  sandboxDoorJam: {
    success: "The cell whose lock is jammed now: the next open of the order's cell fails",
    statuses: STATUSES,
    codes: [200],
    requests: orderRequests("Jam SBX-2's cell", 'SBX-2'),
    answers: { jammed: { summary: 'Cell 3 jams', value: { externalId: 'SBX-2', cellId: 3 } }, ...refusals },
  },
  startSandboxReceiverOutage: {
    success: "Until when deliveries to the marketplace's receiver fail",
    statuses: STATUSES,
    requests: {
      anHour: { summary: 'The receiver is down for an hour', headers: SANDBOX_KEY, body: { seconds: 3600 }, status: 200 },
      productionKey: { summary: 'With a production key', body: { seconds: 3600 }, status: 404, answer: 'productionKey' },
    },
    answers: { anHour: { summary: 'Down until 13:00 Moscow time', value: { heldUntil: '2030-03-04T10:00:00.000Z' } }, ...refusals },
  },
  endSandboxReceiverOutage: {
    success: 'The receiver is back: deliveries are due again',
    statuses: STATUSES,
    requests: {
      back: { summary: 'The receiver is back', headers: SANDBOX_KEY, status: 200 },
      productionKey: { summary: 'With a production key', status: 404, answer: 'productionKey' },
    },
    answers: { back: { summary: 'Not held', value: { heldUntil: null } }, ...refusals },
  },
  sandboxCourierReturn: {
    success: 'Where the courier collected, and the orders as they are now (Courier picked up, 4)',
    statuses: STATUSES,
    requests: {
      sandbox: { summary: 'The courier comes for the returns (none await here)', headers: SANDBOX_KEY, status: 200, answer: 'nothing' },
      productionKey: { summary: 'With a production key', status: 404, answer: 'productionKey' },
    },
    answers: {
      collected: {
        summary: 'SBX-2 collected from cell 2',
        value: {
          postamats: [{ postamatId: 901, openedCells: [2], failedCells: [] }],
          orders: [{ externalId: 'SBX-2', state: 4, parcels: [{ barcode: 'SBX-2-P1', state: 'returned', cellId: 2 }] }],
        },
      },
      nothing: { summary: 'Nothing awaits return', value: { postamats: [], orders: [] } },
      ...refusals,
    },
  },
  sandboxDeliverNotifications: {
    success: "How many of the marketplace's notifications are still undelivered after the round",
    statuses: STATUSES,
    requests: {
      sandbox: { summary: 'Deliver what is waiting, now', headers: SANDBOX_KEY, status: 200, answer: 'allDelivered' },
      productionKey: { summary: 'With a production key', status: 404, answer: 'productionKey' },
    },
    answers: { allDelivered: { summary: 'Everything arrived', value: { undelivered: 0 } }, ...refusals },
  },
  resetSandbox: {
    success: 'What the reset cancelled, collected and repaired',
    statuses: STATUSES,
    requests: {
      sandbox: { summary: 'Start again (nothing to clear here)', headers: SANDBOX_KEY, status: 200, answer: 'empty' },
      productionKey: { summary: 'With a production key', status: 404, answer: 'productionKey' },
    },
    answers: {
      cleared: {
        summary: 'Two orders cancelled, one parcel collected, a jammed lock repaired',
        value: {
          cancelledOrders: 2,
          returns: {
            postamats: [{ postamatId: 901, openedCells: [2], failedCells: [] }],
            orders: [{ externalId: 'SBX-2', state: 4, parcels: [{ barcode: 'SBX-2-P1', state: 'returned', cellId: 2 }] }],
          },
          repairedCells: [{ postamatId: 901, cellId: 3 }],
        },
      },
      empty: { summary: 'Nothing to clear', value: { cancelledOrders: 0, returns: { postamats: [], orders: [] }, repairedCells: [] } },
      ...refusals,
    },
  },
};
