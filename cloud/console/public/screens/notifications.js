// Notifications: each marketplace's receiver (failing from its first failed attempt, its answer,
// its backlog), and the notifications marked failing with the receiver's last answer; redeliver one,
// all failing, or everything a receiver has not got (POST /operator/notifications/redeliver).
import { get, post } from '../api.js';
import { Badge, Loading, Time, act, ageOf, formatAge, html, toast, useAsync, useCanAct } from '../components.js';
import { t } from '../i18n.js';
import { itemsOf } from './locker.js';

const RECEIVER_BADGE = { ok: 'ok', failing: 'bad', idle: 'info' };

/** Each receiver: failing from its first failed attempt, with its answer, its backlog and a redelivery of everything it has not got. */
function Receivers({ state, canAct, redeliver }) {
  return html`<${Loading} state=${state}>${(data) => {
    const rows = data.receivers ?? [];
    return html`<div class="table-scroll" tabindex="0"><table class="list" data-receivers=${rows.length}>
      <thead><tr><th>${t('marketplace')}</th><th>${t('status')}</th><th>${t('lastAnswer')}</th><th>${t('undelivered')}</th><th>${t('oldest')}</th><th>${t('lastDelivered')}</th><th></th></tr></thead>
      <tbody>${rows.length ? rows.map((r) => html`<tr data-marketplace=${r.marketplaceId} data-receiver-state=${r.state}>
        <td>${r.marketplaceId}</td>
        <td><${Badge} kind=${RECEIVER_BADGE[r.state]}>${t(`receiverStates.${r.state}`)}</${Badge}></td>
        <td class="small">${r.lastAttemptAt ? html`${r.lastStatus != null ? `HTTP ${r.lastStatus}` : t('noAnswer')} ${r.lastError ?? ''} · <${Time} value=${r.lastAttemptAt} />` : '—'}</td>
        <td>${r.undelivered}${r.markedFailing ? html` <span class="muted small">(${t('markedFailing', r.markedFailing)})</span>` : ''}</td>
        <td>${r.oldestUndeliveredAt ? html`<${Time} value=${r.oldestUndeliveredAt} /> <span class="muted small">${formatAge(ageOf(r.oldestUndeliveredAt))}</span>` : '—'}</td>
        <td>${r.lastDeliveredAt ? html`<${Time} value=${r.lastDeliveredAt} />` : '—'}</td>
        <td>${canAct && r.undelivered > 0 && html`<button data-action="redeliver-receiver" onClick=${() => redeliver(t('redeliverReceiver', r.marketplaceId), { undelivered: true, marketplaceId: r.marketplaceId })}>${t('redeliverUndelivered')}</button>`}</td>
      </tr>`) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
    </table></div>`;
  }}</${Loading}>`;
}

export function NotificationsScreen() {
  const canAct = useCanAct();
  const receivers = useAsync(() => get('/notifications/receivers'), []);
  const failing = useAsync(() => get('/notifications', { status: 'failing' }), []);
  const redeliver = async (title, body) => {
    const answer = await act({ title, run: ({ reason }) => post('/notifications/redeliver', { ...body, reason }) });
    if (!answer) return;
    toast(t('redelivered', answer.notifications ?? 0));
    receivers.reload();
    failing.reload();
  };
  return html`<main data-screen="notifications">
    <h3>${t('receivers')}</h3>
    <${Receivers} state=${receivers} canAct=${canAct} redeliver=${redeliver} />
    <h3>${t('failing')} ${canAct && html`<button data-action="redeliver-all" onClick=${() => redeliver(t('redeliverAll'), { failing: true })}>${t('redeliverAll')}</button>`}</h3>
    <${Loading} state=${failing}>${(data) => {
      const items = itemsOf(data, 'notifications');
      return html`<div class="table-scroll" tabindex="0"><table class="list" data-failing=${items.length}>
        <thead><tr><th>${t('order')}</th><th>${t('marketplace')}</th><th>${t('kind')}</th><th>${t('attempts')}</th><th>${t('lastAnswer')}</th><th>${t('failingSince')}</th><th></th></tr></thead>
        <tbody>${items.length ? items.map((n) => html`<tr data-notification-id=${n.id}>
          <td><a href=${`#/orders/${encodeURIComponent(n.orderId)}`}>${n.externalId ?? n.orderId}</a></td>
          <td>${n.marketplaceId}</td><td>${n.kind}</td><td>${n.attempts}</td>
          <td class="small">${n.lastStatus != null ? `HTTP ${n.lastStatus}` : ''} ${n.lastError ?? ''}</td>
          <td><${Time} value=${n.failingSince} /></td>
          <td>${canAct && html`<button data-action="redeliver" onClick=${() => redeliver(t('redeliver'), { ids: [n.id] })}>${t('redeliver')}</button>`}</td>
        </tr>`) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>`;
    }}</${Loading}>
  </main>`;
}
