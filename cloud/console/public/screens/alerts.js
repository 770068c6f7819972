// Alerts: open (then acknowledged, resolved) alerts with severity and how often they repeated;
// acknowledge and resolve with a reason. Live: an alert event refreshes the list.
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Badge, Json, Loading, Time, act, html, useAsync, useCanAct, useThrottled } from '../components.js';
import { t } from '../i18n.js';
import { subscribe } from '../live.js';
import { itemsOf } from './locker.js';

const STATUSES = ['open', 'acknowledged', 'resolved'];

export function AlertsScreen() {
  const canAct = useCanAct();
  const [status, setStatus] = useState('open');
  const state = useAsync(() => get('/alerts', { status }), [status]);
  const refresh = useThrottled(() => state.reload(), 500);
  useEffect(() => subscribe('alert', refresh), [refresh]);
  const action = (title, alert, verb) => async () => {
    if (await act({ title, run: ({ reason }) => post(`/alerts/${alert.id}/${verb}`, { reason }) })) state.reload();
  };
  return html`<main data-screen="alerts">
    <div class="segmented">${STATUSES.map(
      (s) => html`<button class=${s === status ? 'active' : ''} data-alert-status=${s} onClick=${() => setStatus(s)}>${t(`alertStatuses.${s}`)}</button>`,
    )}</div>
    <${Loading} state=${state}>${(data) => {
      // Older clouds list every alert regardless of status; show only those of the chosen status when they say.
      const items = itemsOf(data, 'alerts').filter((a) => !a.status || a.status === status);
      return html`<table class="list" data-alerts=${items.length}>
        <thead><tr><th>${t('severity')}</th><th>${t('kind')}</th><th>${t('locker')}</th><th>${t('count')}</th><th>${t('firstSeen')}</th><th>${t('lastSeen')}</th><th>${t('detail')}</th><th></th></tr></thead>
        <tbody>${items.length ? items.map((a) => html`<tr data-alert-id=${a.id} data-status=${a.status ?? ''}>
          <td><${Badge} kind=${a.severity}>${t(`severities.${a.severity}`)}</${Badge}></td>
          <td>${a.kind}${a.cellId ? ` · ${t('cell', a.cellId)}` : ''}</td>
          <td><a href=${`#/lockers/${a.lockerId ?? a.postamatId}`}>${a.lockerId ?? a.postamatId}</a></td>
          <td>${a.count ?? 1}</td>
          <td><${Time} value=${a.firstSeenAt ?? a.occurredAt} /></td>
          <td><${Time} value=${a.lastSeenAt ?? a.receivedAt} /></td>
          <td class="small"><${Json} value=${a.detail} /></td>
          <td class="actions">${canAct && a.status === 'open' && html`<button data-action="acknowledge" onClick=${action(t('acknowledge'), a, 'acknowledge')}>${t('acknowledge')}</button>`}
            ${canAct && a.status && a.status !== 'resolved' && html`<button data-action="resolve" onClick=${action(t('resolve'), a, 'resolve')}>${t('resolve')}</button>`}</td>
        </tr>`) : html`<tr><td colspan="8" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table>`;
    }}</${Loading}>
  </main>`;
}
