/**
 * /operator/reports and /operator/trends (operator/reports.ts): the period's figures per locker
 * and for the network, as JSON or CSV, and the last day's and week's trends. Viewers read them.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32 } from '../../../contract/common.js';
import { DEFAULT_TIMEZONE, localDate } from '../../../lockers/locker-time.js';
import { lockersReportCsv } from '../../../operator/report-csv.js';
import { lockersReport, MAX_REPORT_DAYS, reportPeriod, trend } from '../../../operator/reports.js';
import type { ServiceDeps } from '../../../services.js';
import { messageLanguage } from '../../message-language.js';
import { iso, operatorErrors, security } from './shared.js';

const share = z.number().nullable();
const figures = {
  uptime: share.describe('onlineSeconds / observedSeconds, to four places; null when none of the period has passed'),
  onlineSeconds: z.number().describe('seconds online within the passed part of the period (a locker never seen, or offline before it began, counts offline from its start)'),
  observedSeconds: z.number().describe('seconds of the period passed so far'),
  deliveries: z.int().describe('orders that entered 3 Courier loaded'),
  pickUps: z.int().describe('orders that entered 2 Client received'),
  returns: z.int().describe('orders that entered 4 Courier picked up (what was to return collected)'),
  failed: z.int().describe('orders that left 3 Courier loaded for 6 Return initiated'),
  failedByCause: z.object({ storageExpired: z.int(), cancelled: z.int(), operatorReturn: z.int(), other: z.int() }),
  failedRate: share.describe('failed / (pickUps + failed), to four places'),
  dwellMedianSeconds: z.number().nullable().describe('load to pick-up, median (nearest rank)'),
  dwellP90Seconds: z.number().nullable().describe('load to pick-up, 90th percentile (nearest rank)'),
  pickedUpInTime: z.int().describe('pick-ups within the storage period first given at load'),
  sla: share.describe('pickedUpInTime / (pick-ups of loaded orders + failed), to four places'),
};
const totals = z.object({ lockers: z.int(), ...figures });

const lockersReportView = z
  .object({
    from: z.string().describe('UTC, ISO 8601'),
    to: z.string().describe('UTC, ISO 8601 (excluded)'),
    lockers: z.array(z.object({ lockerId: z.int(), name: z.string(), sandbox: z.boolean(), active: z.boolean(), ...figures })),
    network: totals.describe('the real lockers only'),
    sandbox: totals.describe("the sandbox's lockers: never counted in the network's figures"),
  })
  .describe('JSON; with format=csv or Accept: text/csv the same as CSV (UTF-8 with BOM, header row in the language asked, then one row per locker and the totals)');

const periodBound = z
  .string()
  .max(40)
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/)
  .refine((v) => !Number.isNaN(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v)), 'expected a date or an ISO 8601 instant')
  .describe('YYYY-MM-DD (the start of that day in Europe/Moscow) or ISO 8601 with an offset');

const trendView = z.object({
  span: z.enum(['day', 'week']),
  timezone: z.string().describe("the zone of the week's days: the locker's, or Europe/Moscow for the network"),
  lockerId: z.int().nullable().describe('null: the network (real lockers)'),
  buckets: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      occupancy: z.int().describe("parcels in the cells at the bucket's end (now, for the current bucket)"),
      loads: z.int(),
      pickUps: z.int(),
      returns: z.int(),
      failed: z.int(),
    }),
  ),
});

export const reportRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/reports/lockers',
    {
      schema: {
        operationId: 'getLockersReport',
        tags: ['operator'],
        summary: `Per locker and for the network over [from, to) (at most ${MAX_REPORT_DAYS} days): uptime, deliveries, pick-ups, returns, failed deliveries, dwell time, SLA; JSON or CSV`,
        security,
        querystring: z.object({
          from: periodBound,
          to: periodBound,
          format: z.enum(['json', 'csv']).optional().describe('csv: the same as CSV (also with Accept: text/csv)'),
          lang: z.enum(['ru', 'en']).optional().describe("the CSV header's language; by default from Accept-Language"),
        }),
        response: { 200: lockersReportView, ...operatorErrors },
      },
    },
    async (req, reply) => {
      const { from, to } = reportPeriod(req.query.from, req.query.to);
      const report = await lockersReport(deps, from, to);
      const csv = req.query.format === 'csv' || (req.query.format === undefined && /\btext\/csv\b/.test(req.headers.accept ?? ''));
      if (csv) {
        const lang = req.query.lang ?? messageLanguage(req.headers['accept-language']);
        // The last day of the period, as the console's days (to is excluded).
        const name = `lockers-report_${localDate(from, DEFAULT_TIMEZONE)}_${localDate(to - 1, DEFAULT_TIMEZONE)}.csv`;
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${name}"`)
          // A string with its own type is sent as it is, past the JSON schema of the 200.
          .send(lockersReportCsv(report, lang) as never);
      }
      return {
        from: iso(report.from)!,
        to: iso(report.to)!,
        lockers: report.lockers,
        network: report.network,
        sandbox: report.sandbox,
      };
    },
  );

  app.get(
    '/trends',
    {
      schema: {
        operationId: 'getTrends',
        tags: ['operator'],
        summary: 'The last day (24 hourly buckets) or week (7 daily buckets) of occupancy, loads, pick-ups, returns and failed deliveries, for the network or one locker',
        security,
        querystring: z.object({
          span: z.enum(['day', 'week']).default('day'),
          lockerId: z.coerce.number().int().pipe(positiveInt32).optional().describe('one locker; without it the network (real lockers)'),
        }),
        response: { 200: trendView, ...operatorErrors },
      },
    },
    async (req) => {
      const t = await trend(deps, req.query.span, req.query.lockerId);
      return { ...t, buckets: t.buckets.map((b) => ({ ...b, from: iso(b.from)!, to: iso(b.to)! })) };
    },
  );
  return Promise.resolve();
};
