// Reports: a period's figures per locker (uptime, deliveries, pick-ups, returns, failed deliveries,
// dwell time, SLA) with the network's and the sandbox's totals and a CSV download, and the trends
// of the last day (hourly) and week (daily) drawn with uPlot. Every chart has its data as a table
// for screen readers; the canvas itself is hidden from them.
import uPlot from 'uplot';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';
import { Loading, formatSpan, html, useAsync } from '../components.js';
import { language, t } from '../i18n.js';

const ZONE = 'Europe/Moscow';
const DAY_MS = 86_400_000;

/** Today's date in Moscow (the console's days), YYYY-MM-DD. */
const moscowToday = () => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
const plusDays = (date, n) => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

const percent = (r) => (r == null ? '—' : `${(r * 100).toLocaleString(language() === 'ru' ? 'ru-RU' : 'en-GB', { maximumFractionDigits: 1 })} %`);
const dwell = (s) => (s == null ? '—' : formatSpan(s));

/** The API's period: `to` is the day after the last one chosen (it is excluded). */
const periodQuery = (p) => ({ from: p.from, to: plusDays(p.to, 1) });

function PeriodPicker({ period, onPeriod }) {
  const [from, setFrom] = useState(period.from);
  const [to, setTo] = useState(period.to);
  const valid = from && to && from <= to && Date.parse(to) - Date.parse(from) < 366 * DAY_MS;
  const submit = (e) => {
    e.preventDefault();
    if (valid) onPeriod({ from, to });
  };
  return html`<form class="filters report-period" data-report-period onSubmit=${submit}>
    <label class="filter-field">${t('rp.from')}<input type="date" name="from" required value=${from} max=${to} onInput=${(e) => setFrom(e.currentTarget.value)} /></label>
    <label class="filter-field">${t('rp.to')}<input type="date" name="to" required value=${to} min=${from} onInput=${(e) => setTo(e.currentTarget.value)} /></label>
    <button type="submit" class="primary" data-action="show-report" disabled=${!valid}>${t('rp.show')}</button>
    ${!valid && html`<span class="error" role="alert">${t('rp.badPeriod')}</span>`}
  </form>`;
}

const COLUMNS = [
  ['uptime', (r) => percent(r.uptime)],
  ['deliveries', (r) => r.deliveries],
  ['pickUps', (r) => r.pickUps],
  ['returns', (r) => r.returns],
  ['failed', (r) => r.failed],
  ['failedRate', (r) => percent(r.failedRate)],
  ['dwellMedian', (r) => dwell(r.dwellMedianSeconds)],
  ['dwellP90', (r) => dwell(r.dwellP90Seconds)],
  ['sla', (r) => percent(r.sla)],
];

function ReportTable({ report }) {
  const row = (r, head, attrs = {}) => html`<tr ...${attrs}>${head}${COLUMNS.map(([k, f]) => html`<td data-col=${k}>${f(r)}</td>`)}</tr>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label=${t('rp.perLocker')}>
    <table class="list report-table" data-report-rows=${report.lockers.length} aria-label=${t('rp.perLocker')}>
      <thead><tr><th scope="col">${t('locker')}</th>${COLUMNS.map(([k]) => html`<th scope="col">${t(`rp.${k}`)}</th>`)}</tr></thead>
      <tbody>
        ${report.lockers.map((r) =>
          row(r, html`<th scope="row"><a href=${`#/lockers/${r.lockerId}`}>${r.lockerId} ${r.name}</a>${r.sandbox ? html` <span class="muted small">(${t('rp.sandboxShort')})</span>` : ''}</th>`, { 'data-locker-id': r.lockerId }),
        )}
      </tbody>
      <tfoot>
        ${row(report.network, html`<th scope="row">${t('rp.network')}</th>`, { 'data-total': 'network' })}
        ${row(report.sandbox, html`<th scope="row">${t('rp.sandbox')}</th>`, { 'data-total': 'sandbox' })}
      </tfoot>
    </table>
  </div>`;
}

const SERIES = {
  occupancy: [['occupancy', '#1f5fbf']],
  events: [
    ['loads', '#1f5fbf'],
    ['pickUps', '#1a7f37'],
    ['returns', '#8a5a00'],
    ['failed', '#b42318'],
  ],
};

/** A bucket's start as the operator reads it: an hour, or a day. */
function bucketLabel(iso, span) {
  const opts = span === 'day' ? { hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short' } : { weekday: 'short', day: 'numeric', month: 'short' };
  return new Intl.DateTimeFormat(language() === 'ru' ? 'ru-RU' : 'en-GB', { timeZone: ZONE, ...opts }).format(Date.parse(iso));
}

/** An axis tick: the hour (day span) or the date (week span), 24-hour, in the operator's language. */
function tickLabel(seconds, span) {
  const opts = span === 'day' ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : { day: 'numeric', month: 'short' };
  return new Intl.DateTimeFormat(language() === 'ru' ? 'ru-RU' : 'en-GB', { timeZone: ZONE, ...opts }).format(seconds * 1000);
}

/** One uPlot chart sized to its box (it follows the box's width), and its data as a table for screen readers. */
function Chart({ trend, kind }) {
  const box = useRef(null);
  const series = SERIES[kind];
  const title = t(`rp.chart.${kind}`);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = trend.buckets.map((b) => Date.parse(b.from) / 1000);
    const data = [xs, ...series.map(([k]) => trend.buckets.map((b) => b[k]))];
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), ZONE),
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [{ values: (_u, splits) => splits.map((x) => tickLabel(x, trend.span)) }, { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] }],
        series: [{}, ...series.map(([k, color]) => ({ label: t(`rp.${k}`), stroke: color, width: 2, points: { show: true } }))],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [trend, kind]);
  const id = `chart-${kind}`;
  return html`<figure class="chart" data-chart=${kind} aria-labelledby=${`${id}-title`}>
    <figcaption id=${`${id}-title`}>${title}</figcaption>
    <ul class="chart-legend" aria-hidden="true">${series.map(([k, color]) => html`<li><span class="swatch" style=${{ background: color }}></span>${t(`rp.${k}`)}</li>`)}</ul>
    <div class="chart-box" ref=${box} aria-hidden="true"></div>
    <div class="visually-hidden">
      <table data-chart-table=${kind}>
        <caption>${title}</caption>
        <thead><tr><th scope="col">${t('rp.bucket')}</th>${series.map(([k]) => html`<th scope="col">${t(`rp.${k}`)}</th>`)}</tr></thead>
        <tbody>${trend.buckets.map((b) => html`<tr><th scope="row">${bucketLabel(b.from, trend.span)}</th>${series.map(([k]) => html`<td>${b[k]}</td>`)}</tr>`)}</tbody>
      </table>
    </div>
  </figure>`;
}

function Trends({ lockers }) {
  const [span, setSpan] = useState('day');
  const [lockerId, setLockerId] = useState('');
  const state = useAsync(() => get('/trends', { span, lockerId }), [span, lockerId]);
  return html`<section class="trends" aria-labelledby="trends-title">
    <h2 id="trends-title">${t('rp.trends')}</h2>
    <div class="filters">
      <span class="langs" role="group" aria-label=${t('rp.span')}>
        ${['day', 'week'].map((s) => html`<button type="button" class=${span === s ? 'active' : ''} aria-pressed=${span === s} data-span=${s} onClick=${() => setSpan(s)}>${t(`rp.spans.${s}`)}</button>`)}
      </span>
      <label class="filter-field">${t('locker')}
        <select data-trend-locker value=${lockerId} onChange=${(e) => setLockerId(e.currentTarget.value)}>
          <option value="">${t('rp.wholeNetwork')}</option>
          ${lockers.map((l) => html`<option value=${String(l.lockerId)}>${l.lockerId} ${l.name}</option>`)}
        </select>
      </label>
    </div>
    <${Loading} state=${state}>${(trend) => html`<div class="charts" data-trend-span=${trend.span}>
      <${Chart} trend=${trend} kind="occupancy" />
      <${Chart} trend=${trend} kind="events" />
    </div>`}</${Loading}>
  </section>`;
}

export function ReportsScreen() {
  const today = moscowToday();
  const [period, setPeriod] = useState({ from: plusDays(today, -6), to: today });
  const state = useAsync(() => get('/reports/lockers', periodQuery(period)), [period.from, period.to]);
  const csv = `/operator/reports/lockers?${new URLSearchParams({ ...periodQuery(period), format: 'csv', lang: language() })}`;
  return html`<main data-screen="reports">
    <h1>${t('reports')}</h1>
    <${PeriodPicker} period=${period} onPeriod=${setPeriod} />
    <p><a href=${csv} download data-action="download-csv">${t('rp.downloadCsv')}</a></p>
    <${Loading} state=${state}>${(report) => html`
      <${ReportTable} report=${report} />
      <p class="muted small">${t('rp.explain')}</p>
      <${Trends} lockers=${report.lockers} />`}</${Loading}>
  </main>`;
}
