// Fleet: the network at a glance (GET /operator/overview; the sandbox's lockers apart, in their own section),
// each tile a link to the list behind it, the map (fleet-map.js), and every locker, paged and filtered on
// the server (GET /operator/lockers), so thousands of lockers stay fast. Live: a locker event
// refreshes the page shown. #/fleet?status=offline opens the list filtered.
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';
import { Badge, Loading, Pager, Time, ageOf, formatAge, html, useAsync, useThrottled } from '../components.js';
import { t } from '../i18n.js';
import { subscribe } from '../live.js';
import { FleetMap } from './fleet-map.js';

const PAGE_SIZE = 50;
/** Sizes are named `<width>x<height>` (mm): smallest first. */
const area = (name) => {
  const m = /^(\d+)x(\d+)$/.exec(name);
  return m ? Number(m[1]) * Number(m[2]) : Number.MAX_SAFE_INTEGER;
};
const sortSizes = (obj) => Object.entries(obj ?? {}).sort(([a], [b]) => area(a) - area(b) || a.localeCompare(b));

/** A figure; with `href`, a link to the list of what it counts. */
function Tile({ label, value, sub, kind, name, href }) {
  const body = html`<div class="tile-value">${value ?? '—'}</div><div class="tile-label">${label}</div>${sub && html`<div class="tile-sub">${sub}</div>`}`;
  const cls = `tile ${kind ? `tile-${kind}` : ''}`;
  return href ? html`<a class=${`${cls} tile-link`} href=${href} data-tile=${name}>${body}</a>` : html`<div class=${cls} data-tile=${name}>${body}</div>`;
}

/** `occupied of usable` as a percentage, or a dash when no cell is usable. */
export const fillPercent = (fill) => (fill?.percent == null ? '—' : `${fill.percent}%`);

/** Reads either a flat number or {critical, warning, info} sums. */
const sum = (v) => (v == null ? null : typeof v === 'number' ? v : Object.values(v).reduce((a, b) => a + (Number(b) || 0), 0));

function Overview({ data }) {
  const lockers = data.lockers ?? {};
  const alerts = data.openAlerts ?? data.alerts ?? {};
  const notifications = data.notifications ?? {};
  const oldestAge = notifications.oldestUndeliveredAgeSeconds ?? ageOf(notifications.oldestUndeliveredAt);
  const fill = data.fill;
  return html`<section class="tiles" data-overview>
    <${Tile} name="lockers" href="#/fleet" label=${t('lockersTotal')} value=${lockers.total} sub=${`${lockers.online ?? 0} ${t('online')} · ${lockers.offline ?? 0} ${t('offline')}`} kind=${lockers.offline ? 'warn' : ''} />
    <${Tile} name="offline" href="#/fleet?status=offline" label=${t('offlineLockers')} value=${lockers.offline} kind=${lockers.offline ? 'warn' : ''} />
    <${Tile} name="alerts" href="#/alerts" label=${t('openAlerts')} value=${sum(alerts)} sub=${typeof alerts === 'object' ? Object.entries(alerts).map(([k, v]) => `${t(`severities.${k}`)} ${v}`).join(' · ') : ''} kind=${alerts.critical ? 'bad' : ''} />
    <${Tile} name="fill" label=${t('fillRate')} value=${fillPercent(fill)} sub=${fill ? t('fillOf', fill.occupied, fill.usable) : ''} />
    <${Tile} name="inspection" href="#/cells?flag=needs_inspection" label=${t('needsInspection')} value=${data.cellsNeedingInspection ?? data.cells?.needsInspection} />
    <${Tile} name="blocked" href="#/cells?flag=blocked" label=${t('blockedCells')} value=${data.cellsBlocked ?? data.cells?.blocked} />
    <${Tile} name="ending" href="#/orders" label=${t('storageEndingToday')} value=${data.storageEndingToday} />
    <${Tile} name="backlog" href="#/notifications" label=${t('backlog')} value=${notifications.undelivered ?? notifications.backlog} sub=${oldestAge != null ? t('oldestUndelivered', formatAge(oldestAge)) : ''} />
  </section>`;
}

/** The sandbox's own figures, apart: its lockers never count in the network's tiles above. */
function SandboxOverview({ data }) {
  const lockers = data.lockers ?? {};
  return html`<section class="sandbox-overview" data-sandbox-overview>
    <h2>${t('sandboxSection')}</h2>
    <div class="tiles">
      <${Tile} name="sandbox-lockers" label=${t('lockersTotal')} value=${lockers.total} sub=${`${lockers.online ?? 0} ${t('online')} · ${lockers.offline ?? 0} ${t('offline')}`} />
      <${Tile} name="sandbox-alerts" href="#/alerts" label=${t('openAlerts')} value=${sum(data.openAlerts)} />
      <${Tile} name="sandbox-fill" label=${t('fillRate')} value=${fillPercent(data.fill)} />
      <${Tile} name="sandbox-inspection" href="#/cells?flag=needs_inspection&sandbox=true" label=${t('needsInspection')} value=${data.cells?.needsInspection} />
      <${Tile} name="sandbox-blocked" href="#/cells?flag=blocked&sandbox=true" label=${t('blockedCells')} value=${data.cells?.blocked} />
    </div>
  </section>`;
}

/** The address, with the city in front unless the address already starts with it. */
export const placeOf = (l) => (l.address && l.city && !l.address.startsWith(l.city) ? `${l.city}, ${l.address}` : l.address || l.city || '');

export function LockerRow({ l }) {
  return html`<tr data-locker-id=${l.lockerId} data-online=${String(l.online)}>
    <td><a href=${`#/lockers/${l.lockerId}`}><strong>${l.lockerId}</strong> ${l.name}</a></td>
    <td>${placeOf(l)}</td>
    <td>
      <${Badge} kind=${l.online ? 'ok' : 'bad'}>${l.online ? t('online') : t('offline')}</${Badge}>
      <div class="muted small">${l.since ? formatAge(ageOf(l.since)) : ''}</div>
    </td>
    <td class="sizes">${sortSizes(l.freeToday).map(([size, n]) => html`<span class=${`size ${n === 0 ? 'size-none' : ''}`} data-size=${size}>${size} <b>${n}</b></span>`)}</td>
    <td data-fill=${l.fill?.percent ?? ''}>${fillPercent(l.fill)}${l.fill && html`<div class="muted small">${t('fillOf', l.fill.occupied, l.fill.usable)}</div>`}</td>
    <td data-open-alerts=${l.openAlerts}>${l.openAlerts ? html`<${Badge} kind="bad">${l.openAlerts}</${Badge}>` : '0'}</td>
    <td>${l.lastEventAt ? html`<${Time} value=${l.lastEventAt} />` : '—'}</td>
  </tr>`;
}

export function FleetScreen({ initialStatus = '' }) {
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState(['online', 'offline'].includes(initialStatus) ? initialStatus : '');
  const [alarms, setAlarms] = useState(false);
  const [page, setPage] = useState(1);

  // Typing settles for a moment before the server is asked.
  useEffect(() => {
    const timer = setTimeout(() => {
      setQuery(typed.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(timer);
  }, [typed]);

  const overview = useAsync(() => get('/overview'), []);
  const map = useAsync(() => get('/fleet/map'), []);
  const list = useAsync(() => get('/lockers', { query, status, alarms: alarms ? 'open' : '', page, pageSize: PAGE_SIZE }), [query, status, alarms, page]);
  const refresh = useThrottled(() => {
    overview.reload();
    list.reload();
  }, 1000);
  // The map carries every locker: redrawn at most every 10 s, so a burst of reconnections is not a burst of whole-fleet answers.
  const refreshMap = useThrottled(() => map.reload(), 10_000);
  useEffect(() => {
    const offs = [subscribe('locker', refresh), subscribe('alert', refresh), subscribe('locker', refreshMap), subscribe('alert', refreshMap)];
    return () => offs.forEach((off) => off());
  }, [refresh, refreshMap]);

  return html`<main data-screen="fleet" data-loading=${String(list.loading || map.loading)}>
    <${Loading} state=${overview}>${(data) => html`<${Overview} data=${data} />${data.sandbox?.lockers?.total > 0 && html`<${SandboxOverview} data=${data.sandbox} />`}`}</${Loading}>
    <${Loading} state=${map}>${(data) => html`<${FleetMap} data=${data} />`}</${Loading}>
    <div class="filters">
      <input id="fleet-search" type="search" placeholder=${t('searchLockers')} aria-label=${t('search')} maxlength="100" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} />
      <label>${t('status')}
        <select id="fleet-status" value=${status} onChange=${(e) => { setStatus(e.currentTarget.value); setPage(1); }}>
          <option value="">${t('any')}</option>
          <option value="online">${t('online')}</option>
          <option value="offline">${t('offline')}</option>
        </select>
      </label>
      <label><input id="fleet-alarms" type="checkbox" checked=${alarms} onChange=${(e) => { setAlarms(e.currentTarget.checked); setPage(1); }} /> ${t('withOpenAlarms')}</label>
    </div>
    <${Loading} state=${list}>${(data) => html`
      <div class="scroll-x" tabindex="0" role="region" aria-label=${t('lockersTotal')}><table class="list" data-total=${data.total}>
        <thead><tr><th>${t('locker')}</th><th>${t('address')}</th><th>${t('status')}</th><th>${t('freeToday')}</th><th>${t('fillRate')}</th><th>${t('openAlerts')}</th><th>${t('lastEvent')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((l) => html`<${LockerRow} key=${l.lockerId} l=${l} />`) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}
    </${Loading}>
  </main>`;
}
