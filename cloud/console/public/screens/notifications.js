// Notifications: the backlog per marketplace with its oldest undelivered one, and the failing
// deliveries with the receiver's last answer; redeliver one or all (POST /operator/notifications/redeliver).
import { get, post } from '../api.js';
import { Loading, Time, act, ageOf, formatAge, html, toast, useAsync, useCanAct } from '../components.js';
import { t } from '../i18n.js';
import { itemsOf } from './locker.js';

/** The backlog per marketplace: the API's own summary when it gives one, else counted from the pending list. */
async function loadBacklog() {
  const overview = await get('/overview');
  const given = overview?.notifications?.byMarketplace;
  if (Array.isArray(given)) return given;
  const pending = itemsOf(await get('/notifications', { status: 'pending', limit: 1000 }), 'notifications');
  const by = new Map();
  for (const n of pending) {
    const m = by.get(n.marketplaceId) ?? { marketplaceId: n.marketplaceId, undelivered: 0, oldestCreatedAt: n.createdAt };
    m.undelivered += 1;
    if (Date.parse(n.createdAt) < Date.parse(m.oldestCreatedAt)) m.oldestCreatedAt = n.createdAt;
    by.set(n.marketplaceId, m);
  }
  return [...by.values()].sort((a, b) => a.marketplaceId.localeCompare(b.marketplaceId));
}

export function NotificationsScreen() {
  const canAct = useCanAct();
  const backlog = useAsync(loadBacklog, []);
  const failing = useAsync(() => get('/notifications', { status: 'failing' }), []);
  const redeliver = async (title, body) => {
    const answer = await act({ title, run: ({ reason }) => post('/notifications/redeliver', { ...body, reason }) });
    if (!answer) return;
    toast(t('redelivered', answer.notifications ?? 0));
    backlog.reload();
    failing.reload();
  };
  return html`<main data-screen="notifications">
    <h3>${t('perMarketplace')}</h3>
    <${Loading} state=${backlog}>${(rows) => html`<table class="list" data-backlog>
      <thead><tr><th>${t('marketplace')}</th><th>${t('undelivered')}</th><th>${t('oldest')}</th></tr></thead>
      <tbody>${rows.length ? rows.map((m) => html`<tr data-marketplace=${m.marketplaceId}>
        <td>${m.marketplaceId}</td><td>${m.undelivered ?? m.backlog}</td>
        <td>${m.oldestCreatedAt ?? m.oldestUndeliveredAt ? html`<${Time} value=${m.oldestCreatedAt ?? m.oldestUndeliveredAt} /> <span class="muted small">${formatAge(ageOf(m.oldestCreatedAt ?? m.oldestUndeliveredAt))}</span>` : '—'}</td>
      </tr>`) : html`<tr><td colspan="3" class="muted">${t('nothing')}</td></tr>`}</tbody>
    </table>`}</${Loading}>
    <h3>${t('failing')} ${canAct && html`<button data-action="redeliver-all" onClick=${() => redeliver(t('redeliverAll'), { failing: true })}>${t('redeliverAll')}</button>`}</h3>
    <${Loading} state=${failing}>${(data) => {
      const items = itemsOf(data, 'notifications');
      return html`<table class="list" data-failing=${items.length}>
        <thead><tr><th>${t('order')}</th><th>${t('marketplace')}</th><th>${t('kind')}</th><th>${t('attempts')}</th><th>${t('lastAnswer')}</th><th>${t('failingSince')}</th><th></th></tr></thead>
        <tbody>${items.length ? items.map((n) => html`<tr data-notification-id=${n.id}>
          <td><a href=${`#/orders/${encodeURIComponent(n.orderId)}`}>${n.externalId ?? n.orderId}</a></td>
          <td>${n.marketplaceId}</td><td>${n.kind}</td><td>${n.attempts}</td>
          <td class="small">${n.lastStatus != null ? `HTTP ${n.lastStatus}` : ''} ${n.lastError ?? ''}</td>
          <td><${Time} value=${n.failingSince} /></td>
          <td>${canAct && html`<button data-action="redeliver" onClick=${() => redeliver(t('redeliver'), { ids: [n.id] })}>${t('redeliver')}</button>`}</td>
        </tr>`) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table>`;
    }}</${Loading}>
  </main>`;
}
