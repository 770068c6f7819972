/**
 * /operator fleet views (operator/fleet-views.ts): the overview, the locker list, one locker with
 * its cells as the front looks, and the locker's orders, commands and alerts.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CELL_FLAGS } from '../../../../../shared/src/enums.js';
import { positiveInt32, requestString } from '../../../contract/common.js';
import { listAlerts } from '../../../locker-events/alerts.js';
import { ALERT_STATUSES, countAlerts } from '../../../repositories/alerts.js';
import { CELL_STATES, lockerList, lockerWithGrid, overview } from '../../../operator/fleet-views.js';
import { ONLINE_CAUSES } from '../../../operator/online-cause.js';
import { lockerOrders } from '../../../operator/order-views.js';
import { COMMAND_STATUSES, lockerCommandsPage } from '../../../repositories/operator-views.js';
import type { ServiceDeps } from '../../../services.js';
import { alertView, presentAlerts } from './alerts.js';
import { orderItem } from './orders.js';
import { iso, isoTime, operatorErrors, pageOf, paging, security } from './shared.js';

/** Occupied of usable cells: the fill rate (operator/fleet-views.ts). */
export const fillView = z
  .object({
    occupied: z.int().describe('usable cells a parcel holds or has reserved'),
    usable: z.int().describe('cells without a flag (faulty, dirty, needs_inventory, blocked) of active lockers'),
    percent: z.int().nullable().describe('occupied / usable, whole per cent, rounded; null: no usable cell'),
  })
  .meta({ id: 'CellFill' });

const figuresView = z.object({
  lockers: z.object({ total: z.int(), online: z.int(), offline: z.int() }).describe('active lockers'),
  openAlerts: z.object({ critical: z.int(), warning: z.int(), info: z.int() }).describe('open (not yet acknowledged) alerts by severity'),
  cells: z.object({ needsInspection: z.int().describe('faulty, dirty or needs_inventory'), blocked: z.int() }),
  fill: fillView,
  notifications: z.object({ undelivered: z.int(), oldestUndeliveredAgeSeconds: z.int().nullable() }),
});
const exampleFigures = {
  lockers: { total: 5000, online: 4987, offline: 13 },
  openAlerts: { critical: 2, warning: 17, info: 0 },
  cells: { needsInspection: 41, blocked: 6 },
  fill: { occupied: 61200, usable: 148500, percent: 41 },
  notifications: { undelivered: 3, oldestUndeliveredAgeSeconds: 95 },
};

const overviewView = figuresView
  .extend({
    storageEndingToday: z.int().describe("orders waiting for pick-up whose storage ends today in their locker's time zone, as GET /operator/orders/storage-ending-today lists them (sandbox lockers' too)"),
    sandbox: figuresView.describe("the sandbox's lockers, their alerts and cells, and the sandbox marketplaces' notifications: never counted in the network's figures"),
  })
  .describe('the network: real lockers and marketplaces only')
  .meta({
    example: {
      ...exampleFigures,
      storageEndingToday: 12,
      sandbox: { lockers: { total: 2, online: 2, offline: 0 }, openAlerts: { critical: 0, warning: 0, info: 0 }, cells: { needsInspection: 0, blocked: 0 }, fill: { occupied: 1, usable: 40, percent: 3 }, notifications: { undelivered: 0, oldestUndeliveredAgeSeconds: null } },
    },
  });

const lockerItem = z
  .object({
    lockerId: z.int(),
    name: z.string(),
    city: z.string(),
    address: z.string(),
    latitude: z.number().describe("the fleet file's location.latitude"),
    longitude: z.number().describe("the fleet file's location.longitude"),
    active: z.boolean(),
    broken: z.boolean(),
    online: z.boolean(),
    since: isoTime.describe('online since or offline since; null: never connected'),
    lastSeenAt: isoTime,
    freeToday: z.record(z.string(), z.int()).describe('free cells now per size `<width>x<height>` (mm)'),
    fill: fillView.describe('occupied of usable cells now (an inactive locker: none usable)'),
    openAlerts: z.int(),
    lastEventAt: isoTime.describe('when the cloud applied the locker\'s latest event'),
    agentVersion: z.string().nullable().describe("the agent's software version as it last said (hello, presence, update report); null: never said (an older agent)"),
  })
  .meta({
    example: {
      lockerId: 101, name: 'Постамат Тверская 7', city: 'Москва', address: 'Москва, Тверская ул., 7', latitude: 55.7579, longitude: 37.6122, active: true, broken: false, online: true,
      since: '2030-03-04T06:12:00.000Z', lastSeenAt: '2030-03-04T09:00:00.000Z', freeToday: { '400x100': 3, '400x200': 1 }, fill: { occupied: 26, usable: 30, percent: 87 }, openAlerts: 1,
      lastEventAt: '2030-03-04T08:58:40.000Z', agentVersion: '1.4.0',
    },
  });

const gridCell = z.object({
  cellId: z.int(),
  column: z.int().describe('1-based, left to right: the board the cell hangs on (by bus, then address)'),
  row: z.int().describe('1-based, top to bottom: the lock number among the board\'s locks'),
  size: z.string().describe('`<width>x<height>`, mm'),
  width: z.int(),
  height: z.int(),
  depth: z.int(),
  state: z.enum(CELL_STATES),
  doorOpen: z.boolean().nullable().describe('from the latest door fact; null: unknown'),
  flags: z.array(z.enum(CELL_FLAGS)),
  flagMarks: z
    .array(
      z.object({
        flag: z.enum(CELL_FLAGS),
        setBy: z.string().describe('the operator who set it, or `locker` when the locker raised it'),
        reason: z.string().nullable().describe("the operator's reason, or the locker's (e.g. door_unconfirmed)"),
        note: z.string().nullable().describe("the operator's free-text note"),
        setAt: z.string().describe('UTC, ISO 8601'),
      }),
    )
    .describe('who set each current flag, why and when; a flag set by the fleet file has no mark'),
  orders: z.array(z.object({ orderId: z.string(), externalId: z.string(), marketplaceId: z.string() })).describe('orders holding the cell'),
});

const lockerDetail = lockerItem.extend({
  cloudStartedAt: isoTime.describe('when this cloud process started'),
  agentStartedAt: isoTime.describe("when the locker's agent started, from its latest health report; null: no report yet"),
  onlineCause: z
    .enum(ONLINE_CAUSES)
    .nullable()
    .describe('why the current online period began: the cloud restarted (every locker reconnected), the locker restarted, or its link came back; null while offline'),
  timezone: z.string(),
  depth: z.int(),
  grid: z.array(gridCell),
});

const commandItem = z.object({
  cseq: z.int(),
  type: z.string(),
  body: z.unknown(),
  createdAt: isoTime,
  status: z.enum(COMMAND_STATUSES).describe('pending: not yet sent to the current connection; sent: published, not acked; acked: applied by the locker'),
});

const lockerParams = z.object({ lockerId: z.coerce.number().int().pipe(positiveInt32) });

function presentLocker<T extends { since: number | null; lastSeenAt: number | null; lastEventAt: number | null }>(l: T) {
  return { ...l, since: iso(l.since), lastSeenAt: iso(l.lastSeenAt), lastEventAt: iso(l.lastEventAt) };
}

function presentDetail<T extends { since: number | null; lastSeenAt: number | null; lastEventAt: number | null; cloudStartedAt: number; agentStartedAt: number | null }>(l: T) {
  return { ...presentLocker(l), cloudStartedAt: iso(l.cloudStartedAt), agentStartedAt: iso(l.agentStartedAt) };
}

export const lockerRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/overview',
    { schema: { operationId: 'getOverview', tags: ['operator'], summary: 'The fleet at a glance: lockers online, open alerts, cells to look at, notification backlog', security, response: { 200: overviewView, ...operatorErrors } } },
    async () => overview(deps),
  );

  app.get(
    '/lockers',
    {
      schema: {
        operationId: 'listOperatorLockers',
        tags: ['operator'],
        summary: 'Lockers by id, a page at a time, with presence, free cells per size and open alerts',
        security,
        querystring: z.object({
          query: requestString(100).optional().describe('id, or part of the name, city or address'),
          status: z.enum(['online', 'offline']).optional(),
          alarms: z.enum(['open']).optional().describe('open: only lockers with open alerts'),
          ...paging,
        }),
        response: { 200: pageOf(lockerItem), ...operatorErrors },
      },
    },
    async (req) => {
      const list = await lockerList(deps, req.query);
      return { ...list, items: list.items.map(presentLocker) };
    },
  );

  app.get(
    '/lockers/:lockerId',
    {
      schema: {
        operationId: 'getOperatorLocker',
        tags: ['operator'],
        summary: "One locker with its cells as the front looks (column, row, state, door, flags)",
        security,
        params: lockerParams,
        response: { 200: lockerDetail, ...operatorErrors },
      },
    },
    async (req) => presentDetail(await lockerWithGrid(deps, req.params.lockerId)),
  );

  app.get(
    '/lockers/:lockerId/orders',
    {
      schema: {
        operationId: 'listLockerOrders',
        tags: ['operator'],
        summary: "The locker's orders, newest first (phones masked)",
        security,
        params: lockerParams,
        querystring: z.object(paging),
        response: { 200: pageOf(orderItem), ...operatorErrors },
      },
    },
    async (req) => {
      const page = await lockerOrders(deps, req.params.lockerId, req.query.page, req.query.pageSize);
      return { ...page, items: page.items.map((o) => ({ ...o, holdUntil: iso(o.holdUntil), createdAt: iso(o.createdAt), stateChangedAt: iso(o.stateChangedAt) })) };
    },
  );

  app.get(
    '/lockers/:lockerId/commands',
    {
      schema: {
        operationId: 'listLockerCommands',
        tags: ['operator'],
        summary: "The cloud's command queue to the locker, newest first (applied commands are trimmed after a week)",
        security,
        params: lockerParams,
        querystring: z.object({ status: z.enum(COMMAND_STATUSES).optional(), ...paging }),
        response: { 200: pageOf(commandItem), ...operatorErrors },
      },
    },
    async (req) => {
      const { page, pageSize, status } = req.query;
      const { items, total } = await lockerCommandsPage(deps.cdb.db, req.params.lockerId, { status, offset: (page - 1) * pageSize, limit: pageSize });
      return { items: items.map((c) => ({ ...c, createdAt: iso(c.createdAt) })), total, page, pageSize };
    },
  );

  app.get(
    '/lockers/:lockerId/alerts',
    {
      schema: {
        operationId: 'listLockerAlerts',
        tags: ['operator'],
        summary: "The locker's alerts, newest first (routine facts with include=history)",
        security,
        params: lockerParams,
        querystring: z.object({ status: z.enum(ALERT_STATUSES).optional(), include: z.enum(['history']).optional(), ...paging }),
        response: { 200: pageOf(alertView), ...operatorErrors },
      },
    },
    async (req) => {
      const { page, pageSize, status, include } = req.query;
      const statuses = status ? [status] : include === 'history' ? ALERT_STATUSES : undefined;
      const q = { lockerId: req.params.lockerId, statuses };
      const rows = await listAlerts(deps.cdb.db, { ...q, offset: (page - 1) * pageSize, limit: pageSize });
      return { items: await presentAlerts(deps.cdb.db, rows), total: await countAlerts(deps.cdb.db, q), page, pageSize };
    },
  );
  return Promise.resolve();
};
