/**
 * The lockers report as CSV (RFC 4180): a header row in the caller's language, one row per
 * locker, then the network's and the sandbox's totals; UTF-8 with a BOM so that Excel reads
 * Cyrillic. A cell that a spreadsheet would take for a formula (= + - @, tab, CR) is prefixed
 * with an apostrophe.
 */
import type { LockersReport, OrderFigures, UptimeFigures } from './reports.js';

const COLUMNS = {
  ru: ['Постамат', 'Название', 'Песочница', 'Доступность, %', 'Закладки', 'Выдачи', 'Возвраты курьеру', 'Невыдачи', 'Доля невыдач, %', 'Хранение медиана, ч', 'Хранение p90, ч', 'SLA, %'],
  en: ['Locker', 'Name', 'Sandbox', 'Uptime, %', 'Deliveries', 'Pick-ups', 'Returns', 'Failed', 'Failed rate, %', 'Dwell median, h', 'Dwell p90, h', 'SLA, %'],
} as const;

const TOTALS = { ru: { network: 'Сеть', sandbox: 'Песочница', yes: 'да', no: 'нет' }, en: { network: 'Network', sandbox: 'Sandbox', yes: 'yes', no: 'no' } } as const;

/** One cell, quoted when it must be and disarmed when a spreadsheet would run it. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const percent = (r: number | null): number | null => (r === null ? null : Math.round(r * 10_000) / 100);
const hours = (s: number | null): number | null => (s === null ? null : Math.round((s / 3600) * 100) / 100);

function figures(f: OrderFigures & UptimeFigures): (number | null)[] {
  return [percent(f.uptime), f.deliveries, f.pickUps, f.returns, f.failed, percent(f.failedRate), hours(f.dwellMedianSeconds), hours(f.dwellP90Seconds), percent(f.sla)];
}

export function lockersReportCsv(report: LockersReport, lang: 'ru' | 'en'): string {
  const t = TOTALS[lang];
  const rows: (string | number | null)[][] = [[...COLUMNS[lang]]];
  for (const l of report.lockers) rows.push([l.lockerId, l.name, l.sandbox ? t.yes : t.no, ...figures(l)]);
  rows.push([null, t.network, t.no, ...figures(report.network)]);
  rows.push([null, t.sandbox, t.yes, ...figures(report.sandbox)]);
  return `\uFEFF${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
