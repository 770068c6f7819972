// Orders: search by externalId, barcode or phone (GET /operator/orders; phones come masked), and
// one order's page: a plain summary first (GET /operator/orders/:orderId), its whole history on a
// timeline one click further (GET /operator/orders/:orderId/timeline), and the operator's actions on it:
// the storage extension, a new code, the early return, and opening its cells for the customer; below
// the search, the parcels whose storage ends today (GET /operator/orders/storage-ending-today).
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Badge, Json, Loading, Pager, Time, act, toast, ageOf, formatSpan, formatTime, html, orderStateName, useAsync, useCanAct, useThrottled } from '../components.js';
import { nameOf, t } from '../i18n.js';
import { subscribe } from '../live.js';
import { itemsOf } from './locker.js';

export function OrdersScreen({ initialQuery }) {
  const [typed, setTyped] = useState(initialQuery);
  const [query, setQuery] = useState(initialQuery);
  const [page, setPage] = useState(1);
  const state = useAsync(() => (query ? get('/orders', { query, page }) : Promise.resolve(null)), [query, page]);
  const submit = (e) => {
    e.preventDefault();
    const q = typed.trim();
    setPage(1);
    setQuery(q);
    history.replaceState(null, '', q ? `#/orders?query=${encodeURIComponent(q)}` : '#/orders');
  };
  return html`<main data-screen="orders">
    <form class="filters" onSubmit=${submit}>
      <input id="order-search" type="search" placeholder=${t('searchOrders')} aria-label=${t('search')} maxlength="128" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} />
      <button type="submit" class="primary" data-action="find-orders">${t('find')}</button>
    </form>
    ${query &&
    html`<${Loading} state=${state}>${(data) => {
      const items = itemsOf(data, 'orders');
      return html`<table class="list" data-results=${items.length}>
          <thead><tr><th>${t('order')}</th><th>${t('marketplace')}</th><th>${t('locker')}</th><th>${t('orderState')}</th><th>${t('phone')}</th><th>${t('barcodes')}</th><th>${t('created')}</th></tr></thead>
          <tbody>${items.length ? items.map((o) => html`<tr data-order-id=${o.orderId}>
            <td><a href=${`#/orders/${encodeURIComponent(o.orderId)}`}>${o.externalId}</a></td>
            <td>${o.marketplaceId ?? o.marketplace}</td>
            <td><a href=${`#/lockers/${o.lockerId ?? o.postamatId}`}>${o.lockerId ?? o.postamatId}</a></td>
            <td>${orderStateName(o.state)}</td>
            <td class="phone">${(o.phones ?? (o.phone ? [o.phone] : [])).join(', ')}</td>
            <td>${(o.barcodes ?? []).join(', ')}</td>
            <td><${Time} value=${o.createdAt} /></td>
          </tr>`) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
        </table>
        ${data?.total != null && html`<${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}`;
    }}</${Loading}>`}
    <${StorageEndingToday} />
  </main>`;
}

/** Parcels waiting for pick-up whose storage ends today, in each locker's time zone (GET /operator/orders/storage-ending-today). */
function StorageEndingToday() {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/orders/storage-ending-today', { page }), [page]);
  return html`<section class="ending-today">
    <h2 id="ending-today-title">${t('storageEndingToday')}</h2>
    <${Loading} state=${state}>${(data) => html`<div class="scroll-x" tabindex="0" role="region" aria-labelledby="ending-today-title"><table class="list" data-ending-today=${data.total}>
        <thead><tr><th>${t('order')}</th><th>${t('locker')}</th><th>${t('storageEnds')}</th><th>${t('phone')}</th><th>${t('barcodes')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((o) => html`<tr data-ending-order=${o.orderId}>
          <td><a href=${`#/orders/${encodeURIComponent(o.orderId)}`}>${o.externalId}</a></td>
          <td><a href=${`#/lockers/${o.lockerId}`}>${o.lockerName}</a></td>
          <td><${Time} value=${o.holdUntil} /></td>
          <td class="phone">${o.phones.join(', ')}</td>
          <td>${o.barcodes.join(', ')}</td>
        </tr>`) : html`<tr><td colspan="5" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}</${Loading}>
  </section>`;
}

const kindOf = (e) => e.kind ?? e.type ?? 'event';

/** One line for a timeline entry, in the chosen language, from its structured detail (the API's `summary` is English). */
function timelineTitle(kind, d) {
  if (!d) return null;
  const sev = (s) => t(`severities.${s}`);
  switch (kind) {
    case 'api_call': return t('timeline.apiCall', d.operation, d.resultCode);
    case 'transition': return t('timeline.transition', nameOf('lifecycleEvents', d.event), d.fromState == null ? '—' : orderStateName(d.fromState), orderStateName(d.toState));
    case 'command': return t('timeline.command', nameOf('commandTypes', d.type), d.cseq, d.lockerId, nameOf('commandStatuses', d.status));
    case 'locker_event': return t('timeline.lockerEvent', nameOf('eventTypes', d.type), d.dseq, d.lockerId);
    case 'alert': return t('timeline.alert', nameOf('alertKinds', d.kind), sev(d.severity), nameOf('alertStatuses', d.status));
    case 'notification': return t('timeline.notification', nameOf('notificationKinds', d.kind), d.deliveredAt != null);
    case 'notification_attempt':
      return d.error == null ? t('timeline.delivered', nameOf('notificationKinds', d.kind), d.status) : t('timeline.failed', nameOf('notificationKinds', d.kind), d.status, d.error);
    default: return null;
  }
}

function TimelineEntry({ e }) {
  const kind = kindOf(e);
  const title = timelineTitle(kind, e.detail) ?? e.summary ?? e.title ?? kind;
  const { at, kind: _k, type: _t, summary: _s, title: _ti, detail, ...rest } = e;
  return html`<li class=${`timeline-entry kind-${kind}`} data-kind=${kind}>
    <div class="timeline-when"><${Time} value=${at ?? e.occurredAt ?? e.createdAt} /></div>
    <div class="timeline-what">
      <span class="chip">${t(`kinds.${kind}`)}</span> <strong>${title}</strong>
      <div class="small"><${Json} value=${detail ?? rest} /></div>
    </div>
  </li>`;
}

/** How the marketplace was told something, in words: the status reached, the new end of storage, or "the code" (never shown). */
function toldText(n) {
  if (n.kind === 'order-status') return t('toldStatus', orderStateName(Number(n.said)));
  if (n.kind === 'expiration-date-changes') return t('toldDeadline', formatTime(n.said));
  if (n.kind === 'user-access-code') return t('toldCode');
  return n.kind;
}

function DeliveryBadge({ delivery }) {
  if (!delivery) return html`<span class="muted">—</span>`;
  const kind = delivery === 'delivered' ? 'ok' : delivery === 'failing' ? 'bad' : 'warning';
  return html`<${Badge} kind=${kind}>${t(`deliveryStates.${delivery}`)}</${Badge}>`;
}

/** The order as a person reads it first: state, where its parcels are, the deadline, the code, the contacts, what the marketplace was told. */
function OrderSummary({ s, onRedeliver }) {
  const deadlineAge = s.holdUntil ? ageOf(s.holdUntil) : null;
  return html`<section class="order-summary" data-order-summary>
    <dl class="facts">
      <dt>${t('orderState')}</dt><dd data-summary="state"><span class="chip">${orderStateName(s.state)}</span> <span class="muted small">${t('sinceTime', formatTime(s.stateChangedAt))}</span></dd>
      <dt>${t('locker')}</dt><dd data-summary="locker"><a href=${`#/lockers/${s.lockerId}`}>${s.lockerId}${s.lockerName ? ` · ${s.lockerName}` : ''}</a></dd>
      <dt>${t('parcels')}</dt><dd data-summary="parcels">${s.parcels.map((p) => html`<div data-parcel=${p.barcode}>
        ${p.barcode}: ${t(`parcelStates.${p.state}`)}${p.cellId != null ? html` · <a href=${`#/lockers/${s.lockerId}?cell=${p.cellId}`}>${t('cell', p.cellId)}</a>` : ''}
      </div>`)}</dd>
      <dt>${t('deadline')}</dt><dd data-summary="deadline">${s.holdUntil
        ? html`${formatTime(s.holdUntil)} <span class="muted small">${deadlineAge > 0 ? t('deadlinePassed') : t('deadlineLeft', formatSpan(-deadlineAge))}</span>`
        : '—'}</dd>
      <dt>${t('codeStatus')}</dt><dd data-summary="code">${s.code.active ? t('codeActive') : t('codeNone')}${s.code.sentAt
        ? html` · ${t('codeSent', formatTime(s.code.sentAt))} <${DeliveryBadge} delivery=${s.code.delivery} />`
        : ''}</dd>
      <dt>${t('phone')}</dt><dd data-summary="phones" class="phone">${s.phones.join(', ') || '—'}</dd>
    </dl>
    <h3>${t('marketplaceTold')} ${onRedeliver && s.marketplace.some((n) => n.delivery !== 'delivered') && html`<button data-action="redeliver-order" onClick=${onRedeliver}>${t('redeliverOrder')}</button>`}</h3>
    <ul class="told" data-summary="marketplace">${s.marketplace.length
      ? s.marketplace.map((n) => html`<li data-notification-id=${n.notificationId} data-delivery=${n.delivery}>
          <${DeliveryBadge} delivery=${n.delivery} /> ${toldText(n)} <span class="muted small">${formatTime(n.recordedAt)}</span>
          ${n.delivery !== 'delivered' && n.attempts > 0 && html`<div class="small">${t('attemptsMade', n.attempts)}${n.lastError ? ` · ${n.lastError}` : ''}</div>`}
        </li>`)
      : html`<li class="muted">${t('nothing')}</li>`}</ul>
  </section>`;
}

/** The raw history: every API call, transition, command, locker event, alert and notification. */
function Timeline({ orderId, version }) {
  const state = useAsync(() => get(`/orders/${encodeURIComponent(orderId)}/timeline`), [orderId, version]);
  return html`<${Loading} state=${state}>${(data) => {
    const time = (v) => (typeof v === 'number' ? v : Date.parse(v));
    const entries = [...itemsOf(data, 'entries', 'timeline', 'events')].sort((a, b) => time(a.at) - time(b.at));
    return html`<ol class="timeline" data-entries=${entries.length}>${entries.map((e, i) => html`<${TimelineEntry} key=${i} e=${e} />`)}</ol>`;
  }}</${Loading}>`;
}

export function OrderScreen({ orderId }) {
  const canAct = useCanAct();
  const [showTimeline, setShowTimeline] = useState(false);
  const [version, setVersion] = useState(0);
  // The answer of this page's latest handover: shown until the order's page is left.
  const [handover, setHandover] = useState(null);
  const state = useAsync(() => get(`/orders/${encodeURIComponent(orderId)}`), [orderId, version]);
  const refresh = useThrottled(() => setVersion((v) => v + 1), 500);
  useEffect(() => subscribe('order', (p) => (p === null || String(p.orderId) === orderId) && refresh()), [orderId, refresh]);
  const extend = async () => {
    const done = await act({
      title: t('extend'),
      fields: [{ name: 'days', label: t('extendDays'), type: 'number', value: '1', min: 1, max: 90 }],
      run: ({ days, reason }) => post(`/orders/${encodeURIComponent(orderId)}/extend`, { days: Number(days), reason }),
    });
    if (done) refresh();
  };
  // Every notification of the order the marketplace has not got, due now.
  const redeliver = async () => {
    const done = await act({ title: t('redeliverOrder'), run: ({ reason }) => post('/notifications/redeliver', { orderId, reason }) });
    if (done) {
      toast(t('redelivered', done.notifications ?? 0));
      refresh();
    }
  };
  // A new code (sent to the marketplace) and the early return: each asks why, for the audit.
  const care = (path, title) => async () => {
    const done = await act({ title, run: ({ reason }) => post(`/orders/${encodeURIComponent(orderId)}/${path}`, { reason }) });
    if (done) refresh();
  };
  // The customer is at the locker and the code does not work: the order's cells open for them; the note says why.
  const handOver = async () => {
    const done = await act({ title: t('handOver'), prompt: t('handOverPrompt'), run: ({ reason }) => post(`/orders/${encodeURIComponent(orderId)}/handover`, { note: reason }) });
    if (done) {
      setHandover(done);
      refresh();
    }
  };
  return html`<main data-screen="order" data-order-id=${orderId}>
    <a href="#/orders" class="back">${t('backToOrders')}</a>
    <${Loading} state=${state}>${(s) => html`
      <header class="locker-head">
        <h2>${t('order')} ${s.externalId}</h2>
        <span class="muted">${s.marketplaceId}</span>
        ${canAct && s.state === 3 && html`<div class="actions">
          <button data-action="extend" onClick=${extend}>${t('extend')}</button>
          <button data-action="new-code" onClick=${care('code', t('newCode'))}>${t('newCode')}</button>
          <button data-action="start-return" onClick=${care('return', t('startReturn'))}>${t('startReturn')}</button>
          <button data-action="hand-over" onClick=${handOver}>${t('handOver')}</button>
        </div>`}
      </header>
      ${handover && html`<p class="handover-result" role="status" data-handover-result=${s.state === 2 ? 'received' : 'sent'}>
        ${s.state === 2 ? t('handOverDone') : t('handOverSent', handover.cseq, formatTime(handover.notAfter))}
      </p>`}
      <${OrderSummary} s=${s} onRedeliver=${canAct ? redeliver : null} />`}</${Loading}>
    <button data-action="toggle-timeline" aria-expanded=${showTimeline ? 'true' : 'false'} onClick=${() => setShowTimeline((v) => !v)}>
      ${showTimeline ? t('hideTimeline') : t('showTimeline')}
    </button>
    ${showTimeline && html`<section data-timeline><h3>${t('timeline')}</h3><${Timeline} orderId=${orderId} version=${version} /></section>`}
  </main>`;
}
