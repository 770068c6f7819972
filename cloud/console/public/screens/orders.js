// Orders: search by externalId, barcode or phone (GET /operator/orders; phones come masked), and
// one order's whole history on a timeline (GET /operator/orders/:orderId/timeline) with the
// storage extension as its action.
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Json, Loading, Pager, Time, act, html, orderStateName, useAsync, useCanAct, useThrottled } from '../components.js';
import { t } from '../i18n.js';
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
  </main>`;
}

const kindOf = (e) => e.kind ?? e.type ?? 'event';

function TimelineEntry({ e }) {
  const kind = kindOf(e);
  const title = e.summary ?? e.title ?? kind;
  const { at, kind: _k, type: _t, summary: _s, title: _ti, detail, ...rest } = e;
  return html`<li class=${`timeline-entry kind-${kind}`} data-kind=${kind}>
    <div class="timeline-when"><${Time} value=${at ?? e.occurredAt ?? e.createdAt} /></div>
    <div class="timeline-what">
      <span class="chip">${t(`kinds.${kind}`)}</span> <strong>${title}</strong>
      <div class="small"><${Json} value=${detail ?? rest} /></div>
    </div>
  </li>`;
}

export function TimelineScreen({ orderId }) {
  const canAct = useCanAct();
  const state = useAsync(() => get(`/orders/${encodeURIComponent(orderId)}/timeline`), [orderId]);
  const refresh = useThrottled(() => state.reload(), 500);
  useEffect(() => subscribe('order', (p) => (p === null || String(p.orderId) === orderId) && refresh()), [orderId, refresh]);
  const extend = async () => {
    const done = await act({
      title: t('extend'),
      fields: [{ name: 'days', label: t('extendDays'), type: 'number', value: '1', min: 1, max: 30 }],
      run: ({ days, reason }) => post(`/orders/${encodeURIComponent(orderId)}/extend`, { days: Number(days), reason }),
    });
    if (done) state.reload();
  };
  return html`<main data-screen="timeline" data-order-id=${orderId}>
    <a href="#/orders" class="back">${t('backToOrders')}</a>
    <${Loading} state=${state}>${(data) => {
      const order = data.order ?? data;
      const time = (v) => (typeof v === 'number' ? v : Date.parse(v));
      const entries = [...itemsOf(data, 'entries', 'timeline', 'events')].sort((a, b) => time(a.at) - time(b.at));
      return html`
        <header class="locker-head">
          <h2>${t('order')} ${order.externalId ?? orderId}</h2>
          ${order.marketplaceId && html`<span class="muted">${order.marketplaceId}</span>`}
          ${(order.lockerId ?? order.postamatId) && html`<a href=${`#/lockers/${order.lockerId ?? order.postamatId}`}>${t('locker')} ${order.lockerId ?? order.postamatId}</a>`}
          ${order.state != null && html`<span class="chip">${orderStateName(order.state)}</span>`}
          ${canAct && html`<button data-action="extend" onClick=${extend}>${t('extend')}</button>`}
        </header>
        <h3>${t('timeline')}</h3>
        <ol class="timeline" data-entries=${entries.length}>${entries.map((e, i) => html`<${TimelineEntry} key=${i} e=${e} />`)}</ol>`;
    }}</${Loading}>
  </main>`;
}
