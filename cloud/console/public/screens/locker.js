// Locker: the cells in one of two views, each cell's state and door live from the stream: "list"
// (the front's columns, heights to scale, folded to fit a desk screen, and the chosen cell's panel)
// or "by position" (cell-positions.js: the technician's phone view with a dialog per cell); the
// locker's orders, command queue, alarms and the agent's own health report.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post, put } from '../api.js';
import { Badge, Json, Loading, Pager, Time, act, ageOf, formatAge, formatTime, html, orderStateName, useAsync, useCanAct, useThrottled } from '../components.js';
import { nameOf, t } from '../i18n.js';
import { subscribe } from '../live.js';
import { FlagList } from './cell-flags.js';
import { PositionView } from './cell-positions.js';
import { placeOf } from './fleet.js';
import { ServiceCodeButton } from './service-code.js';

/** Lists come as {items, total, page, pageSize} or under a named field. */
export const itemsOf = (data, ...names) => (Array.isArray(data) ? data : (data?.items ?? names.map((n) => data?.[n]).find(Array.isArray) ?? []));

/** What a cell shows: its state, or "door open" over it when the door stands open. */
const shownState = (cell) => (cell.doorOpen ? 'door_open' : cell.state);

/** A locker front is about this tall (mm); a column of the grid that is taller is drawn as several. */
const FRONT_HEIGHT_MM = 2000;

/** Stacks of cells as drawn: by the grid's column, top row first, a column taller than a front folded. */
function columnsOf(grid) {
  const byColumn = new Map();
  for (const cell of grid) {
    const col = cell.column ?? 1;
    if (!byColumn.has(col)) byColumn.set(col, []);
    byColumn.get(col).push(cell);
  }
  const stacks = [];
  for (const [col, cells] of [...byColumn.entries()].sort(([a], [b]) => a - b)) {
    let stack = [];
    let height = 0;
    for (const cell of cells.sort((a, b) => (a.row ?? 0) - (b.row ?? 0))) {
      const h = cell.height || 100;
      if (stack.length > 0 && height + h > FRONT_HEIGHT_MM) {
        stacks.push([`${col}`, stack]);
        stack = [];
        height = 0;
      }
      stack.push(cell);
      height += h;
    }
    if (stack.length > 0) stacks.push([`${col}`, stack]);
  }
  return stacks;
}

/** Pixels per millimetre of cell height: the tallest stack fits ~520 px, the smallest cell keeps room for its label. */
function scaleOf(columns) {
  const heights = columns.flatMap(([, cells]) => cells.map((c) => c.height || 100));
  const tallest = Math.max(...columns.map(([, cells]) => cells.reduce((sum, c) => sum + (c.height || 100), 0)));
  return Math.max(520 / tallest, 32 / Math.min(...heights));
}

function CellTile({ cell, selected, onSelect, scale }) {
  const state = shownState(cell);
  return html`<button
    class=${`cell state-${cell.state} ${cell.doorOpen ? 'door-open' : ''} ${selected ? 'selected' : ''}`}
    style=${{ height: `${Math.round((cell.height || 100) * scale)}px` }}
    data-cell-id=${cell.cellId}
    data-state=${cell.state}
    data-door=${cell.doorOpen ? 'open' : 'closed'}
    title=${`${t('cell', cell.cellId)} · ${cell.size} · ${t(`states.${state}`)}`}
    onClick=${() => onSelect(cell.cellId)}>
    <span class="cell-id">${cell.cellId}</span>
    <span class="cell-state">${t(`states.${state}`)}</span>
  </button>`;
}

function Front({ grid, selected, onSelect }) {
  const columns = columnsOf(grid);
  const scale = columns.length ? scaleOf(columns) : 1;
  return html`<div class="front" data-grid>
    ${columns.map(
      ([col, cells]) => html`<div class="column" data-column=${col}>${cells.map((c) => html`<${CellTile} key=${c.cellId} cell=${c} selected=${selected === c.cellId} onSelect=${onSelect} scale=${scale} />`)}</div>`,
    )}
  </div>`;
}

function Legend() {
  return html`<div class="legend">${['free', 'reserved', 'occupied', 'awaiting_return', 'blocked', 'needs_inspection', 'door_open'].map(
    (s) => html`<span class=${`legend-item state-${s}`}>${t(`states.${s}`)}</span>`,
  )}</div>`;
}

function CellPanel({ lockerId, cell, onChanged }) {
  const canAct = useCanAct();
  if (!cell) return html`<aside class="cell-panel muted">${t('pickCell')}</aside>`;
  const flags = cell.flags ?? [];
  const blocked = flags.includes('blocked');
  const inspect = cell.state === 'needs_inspection' || flags.some((f) => f === 'needs_inventory' || f === 'dirty' || f === 'faulty');
  const flagsPath = `/postamats/${lockerId}/cells/${cell.cellId}/flags`;
  const run = (title, call, fields, prompt) => async () => {
    if (await act({ title, prompt, fields, run: call })) onChanged();
  };
  const purposes = ['maintenance', 'inventory', 'customer_support', 'courier_support', 'other'].map((p) => [p, t(`openReasons.${p}`)]);
  return html`<aside class="cell-panel" data-cell-panel=${cell.cellId}>
    <h3>${t('cell', cell.cellId)}</h3>
    <dl class="facts">
      <dt>${t('state')}</dt><dd><span class=${`chip state-${cell.state}`}>${t(`states.${cell.state}`)}</span></dd>
      <dt>${t('door')}</dt><dd>${cell.doorOpen ? t('doorOpen') : t('doorClosed')}</dd>
      <dt>${t('size')}</dt><dd>${cell.size}</dd>
      <dt>${t('dimensions')}</dt><dd>${[cell.width, cell.height, cell.depth].map((v) => v ?? '?').join(' × ')}</dd>
      <dt>${t('flags')}</dt><dd><${FlagList} flags=${flags} marks=${cell.flagMarks ?? []} /></dd>
      ${cell.orders?.length > 0 &&
      html`<dt>${t('orders')}</dt><dd>${cell.orders.map((o) => html`<div><a href=${`#/orders/${encodeURIComponent(o.orderId)}`}>${o.externalId ?? o.orderId}</a> <span class="muted small">${o.marketplaceId ?? ''}</span></div>`)}</dd>`}
    </dl>
    <a class="small" data-link="cell-audit" href=${`#/audit?target=${encodeURIComponent(`locker:${lockerId}/cell:${cell.cellId}`)}`}>${t('history')}</a>
    ${canAct &&
    html`<div class="actions">
      ${blocked
        ? html`<button data-action="unblock" onClick=${run(t('unblock'), ({ reason }) => put(flagsPath, { blocked: false, reason }))}>${t('unblock')}</button>`
        : html`<button data-action="block" onClick=${run(t('block'), ({ reason }) => put(flagsPath, { blocked: true, reason }))}>${t('block')}</button>`}
      ${inspect &&
      html`<button data-action="inspection-done" onClick=${run(t('inspectionDone'), ({ reason }) => put(flagsPath, { needs_inventory: false, dirty: false, faulty: false, reason }))}>${t('inspectionDone')}</button>`}
      <button data-action="open-cell" onClick=${run(
        t('openForInspection'),
        ({ purpose, reason }) => post(`/lockers/${lockerId}/cells/${cell.cellId}/open`, { reason: purpose, note: reason }),
        [{ name: 'purpose', label: t('purpose'), options: purposes, value: 'maintenance' }],
        t('notePrompt'),
      )}>${t('openForInspection')}</button>
    </div>`}
  </aside>`;
}

function OrdersTab({ lockerId, version }) {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get(`/lockers/${lockerId}/orders`, { page }), [lockerId, page, version]);
  return html`<${Loading} state=${state}>${(data) => {
    const items = itemsOf(data, 'orders');
    return html`<div class="table-scroll" tabindex="0"><table class="list" data-tab-content="orders">
        <thead><tr><th>${t('order')}</th><th>${t('marketplace')}</th><th>${t('orderState')}</th><th>${t('barcodes')}</th><th>${t('created')}</th></tr></thead>
        <tbody>${items.length ? items.map((o) => html`<tr data-order-id=${o.orderId ?? o.id}>
          <td><a href=${`#/orders/${encodeURIComponent(o.orderId ?? o.id)}`}>${o.externalId ?? o.orderId}</a></td>
          <td>${o.marketplaceId ?? o.marketplace ?? ''}</td>
          <td>${orderStateName(o.state)}</td>
          <td>${(o.barcodes ?? []).join(', ')}</td>
          <td><${Time} value=${o.createdAt} /></td>
        </tr>`) : html`<tr><td colspan="5" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      ${data.total != null && html`<${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}`;
  }}</${Loading}>`;
}

function CommandsTab({ lockerId, version }) {
  const [status, setStatus] = useState('pending');
  const [page, setPage] = useState(1);
  const state = useAsync(() => get(`/lockers/${lockerId}/commands`, { status, page }), [lockerId, status, page, version]);
  return html`<div data-tab-content="commands">
    <div class="segmented">${['pending', 'sent', 'acked'].map(
      (s) => html`<button class=${s === status ? 'active' : ''} data-command-status=${s} onClick=${() => { setStatus(s); setPage(1); }}>${t(s)}</button>`,
    )}</div>
    <${Loading} state=${state}>${(data) => {
      const items = itemsOf(data, 'commands');
      return html`<div class="table-scroll" tabindex="0"><table class="list">
          <thead><tr><th>${t('cseq')}</th><th>${t('type')}</th><th>${t('status')}</th><th>${t('created')}</th><th>${t('detail')}</th></tr></thead>
          <tbody>${items.length ? items.map((c) => html`<tr data-cseq=${c.cseq}>
            <td>${c.cseq}</td><td title=${c.type ?? c.body?.type}>${nameOf('commandTypes', c.type ?? c.body?.type)}</td><td>${c.status ? nameOf('commandStatuses', c.status) : ''}</td><td><${Time} value=${c.createdAt ?? c.at} /></td>
            <td class="small"><${Json} value=${c.summary ?? c.body} /></td>
          </tr>`) : html`<tr><td colspan="5" class="muted">${t('nothing')}</td></tr>`}</tbody>
        </table></div>
        ${data.total != null && html`<${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}`;
    }}</${Loading}>
  </div>`;
}

function AlertsTab({ lockerId, version }) {
  const state = useAsync(() => get(`/lockers/${lockerId}/alerts`), [lockerId, version]);
  return html`<${Loading} state=${state}>${(data) => {
    const items = itemsOf(data, 'alerts');
    return html`<div class="table-scroll" tabindex="0"><table class="list" data-tab-content="alerts">
      <thead><tr><th>${t('severity')}</th><th>${t('kind')}</th><th>${t('status')}</th><th>${t('count')}</th><th>${t('lastSeen')}</th><th>${t('detail')}</th></tr></thead>
      <tbody>${items.length ? items.map((a) => html`<tr data-alert-id=${a.id}>
        <td><${Badge} kind=${a.severity}>${t(`severities.${a.severity}`)}</${Badge}></td>
        <td title=${a.kind}>${nameOf('alertKinds', a.kind)}${a.cellId ? ` · ${t('cell', a.cellId)}` : ''}</td>
        <td>${a.status ? t(`alertStatuses.${a.status}`) : ''}</td>
        <td>${a.count ?? 1}</td>
        <td><${Time} value=${a.lastSeenAt ?? a.receivedAt} /></td>
        <td class="small"><${Json} value=${a.detail} /></td>
      </tr>`) : html`<tr><td colspan="6" class="muted">${t('nothing')}</td></tr>`}</tbody>
    </table></div>`;
  }}</${Loading}>`;
}

/** The agent's latest health report (GET /operator/lockers/:id/health); 404 or no report yet: "no report". */
function HealthTab({ lockerId, version }) {
  const state = useAsync(
    () => get(`/lockers/${lockerId}/health`).catch((err) => (err instanceof ApiError && err.status === 404 ? { report: null } : Promise.reject(err))),
    [lockerId, version],
  );
  return html`<${Loading} state=${state}>${(answer) => {
    const report = answer.report;
    if (!report) return html`<div class="muted" data-tab-content="health" data-health="none">${t('noReport')}</div>`;
    const ms = (v) => (v == null ? '—' : `${v} ms`);
    return html`<div data-tab-content="health" data-health="report">
      <section class="tiles">
        <div class="tile"><div class="tile-value">${ms(report.boards?.p50Ms)} / ${ms(report.boards?.p99Ms)}</div><div class="tile-label">${t('boardAnswers')}</div><div class="tile-sub">${report.boards?.answers ?? 0} · ${t('boardErrors', report.boards?.errors ?? 0)}</div></div>
        <div class=${`tile ${report.doorFaults ? 'tile-warn' : ''}`}><div class="tile-value">${report.doorFaults}</div><div class="tile-label">${t('doorFaults')}</div></div>
        <div class="tile"><div class="tile-value">${report.scans}</div><div class="tile-label">${t('scans')}</div></div>
        <div class=${`tile ${report.outboxDepth ? 'tile-warn' : ''}`}><div class="tile-value">${report.outboxDepth}</div><div class="tile-label">${t('outboxDepth')}</div></div>
        <div class="tile"><div class="tile-value">${report.link?.reconnects ?? 0}</div><div class="tile-label">${t('linkReconnects')}</div></div>
      </section>
      <div class="muted small">${t('reportedAt')} <${Time} value=${answer.reportedAt ?? report.at} /> · ${t('interval', report.intervalSeconds)} · ${report.version ?? ''}</div>
    </div>`;
  }}</${Loading}>`;
}

const TABS = [
  ['orders', 'lockerOrders', OrdersTab],
  ['commands', 'commands', CommandsTab],
  ['alerts', 'lockerAlerts', AlertsTab],
  ['health', 'health', HealthTab],
];

/** Why the current online period began: the cloud's restart, the locker's, or a link that came back. */
function onlineCauseText(l) {
  if (l.onlineCause === 'cloud_restart') return t('causeCloudRestart', formatTime(l.cloudStartedAt));
  if (l.onlineCause === 'locker_restart') return t('causeLockerRestart', formatTime(l.agentStartedAt));
  return l.agentStartedAt ? t('causeLinkRestored', formatTime(l.agentStartedAt)) : '';
}

const VIEW_KEY = 'console.lockerView';
const VIEWS = ['positions', 'list'];

/** The view last chosen on this device; without one, "by position" on a phone-wide screen, else the list. */
function initialView() {
  const saved = localStorage.getItem(VIEW_KEY);
  if (VIEWS.includes(saved)) return saved;
  return window.matchMedia('(max-width: 600px)').matches ? 'positions' : 'list';
}

function ViewSwitch({ view, onView }) {
  return html`<div class="segmented view-switch" role="group" aria-label=${t('cellView')}>${VIEWS.map(
    (v) => html`<button type="button" class=${v === view ? 'active' : ''} aria-pressed=${v === view ? 'true' : 'false'} data-view=${v} onClick=${() => onView(v)}>${t(`cellViews.${v}`)}</button>`,
  )}</div>`;
}

export function LockerScreen({ lockerId, initialCell = null }) {
  const [selected, setSelected] = useState(initialCell);
  const [view, setView] = useState(initialView);
  const chooseView = (v) => {
    localStorage.setItem(VIEW_KEY, v);
    setView(v);
  };
  const [tab, setTab] = useState('orders');
  const [version, setVersion] = useState(0);
  const detail = useAsync(() => get(`/lockers/${lockerId}`), [lockerId]);
  const refresh = useThrottled(() => {
    detail.reload();
    setVersion((v) => v + 1);
  }, 300);
  useEffect(() => {
    const mine = (p) => p === null || String(p.lockerId) === String(lockerId);
    const offs = ['locker', 'alert', 'order'].map((type) => subscribe(type, (p) => mine(p) && refresh()));
    return () => offs.forEach((off) => off());
  }, [lockerId, refresh]);

  return html`<main data-screen="locker" data-locker-id=${lockerId}>
    <a href="#/fleet" class="back">${t('backToFleet')}</a>
    <${Loading} state=${detail}>${(l) => {
      const grid = l.grid ?? [];
      const cell = grid.find((c) => c.cellId === selected) ?? null;
      return html`
        <header class="locker-head">
          <h2>${l.lockerId ?? lockerId} · ${l.name}</h2>
          <span class="muted">${placeOf(l)}</span>
          <${Badge} kind=${l.online ? 'ok' : 'bad'}>${l.online ? t('online') : t('offline')}</${Badge}>
          ${l.since && html`<span class="muted small">${l.online ? t('onlineSince', formatAge(ageOf(l.since))) : t('offlineSince', formatAge(ageOf(l.since)))}</span>`}
          ${l.onlineCause && html`<span class="muted small" data-online-cause=${l.onlineCause}>${onlineCauseText(l)}</span>`}
          <${ServiceCodeButton} lockerId=${lockerId} />
        </header>
        <${ViewSwitch} view=${view} onView=${chooseView} />
        ${view === 'positions'
          ? html`<div class="locker-body" data-view-shown="positions"><${PositionView} lockerId=${lockerId} grid=${grid} onChanged=${refresh} initialCell=${initialCell} /></div>`
          : html`<div class="locker-body" data-view-shown="list">
              <div><${Front} grid=${grid} selected=${selected} onSelect=${setSelected} /><${Legend} /></div>
              <${CellPanel} lockerId=${lockerId} cell=${cell} onChanged=${refresh} />
            </div>`}`;
    }}</${Loading}>
    <nav class="tabs">${TABS.map(([id, label]) => html`<button class=${tab === id ? 'active' : ''} data-tab=${id} onClick=${() => setTab(id)}>${t(label)}</button>`)}</nav>
    ${TABS.filter(([id]) => id === tab).map(([id, , Tab]) => html`<${Tab} key=${id} lockerId=${lockerId} version=${version} />`)}
  </main>`;
}
