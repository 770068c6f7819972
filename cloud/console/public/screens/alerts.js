// Alerts: open (then acknowledged, resolved) alerts with severity and how often they repeated,
// who is on each and the operators' notes, linked to their locker, cell and order; acknowledge,
// resolve, assign and note them. Live: an alert event refreshes the list.
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Badge, Json, Loading, Time, act, formatTime, html, useAsync, useCanAct, useSession, useThrottled } from '../components.js';
import { nameOf, t } from '../i18n.js';
import { subscribe } from '../live.js';
import { itemsOf } from './locker.js';

const STATUSES = ['open', 'acknowledged', 'resolved'];

export function AlertsScreen() {
  const canAct = useCanAct();
  const [status, setStatus] = useState('open');
  const state = useAsync(() => get('/alerts', { status }), [status]);
  const refresh = useThrottled(() => state.reload(), 500);
  useEffect(() => subscribe('alert', refresh), [refresh]);
  const me = useSession()?.operator ?? '';
  const action = (title, alert, verb) => async () => {
    if (await act({ title, run: ({ reason }) => post(`/alerts/${alert.id}/${verb}`, { reason }) })) state.reload();
  };
  const assign = (alert) => async () => {
    const fields = [{ name: 'assignee', label: t('assignee'), value: alert.assignee ?? me }];
    if (await act({ title: t('assign'), prompt: t('notePrompt'), fields, run: ({ assignee, reason }) => post(`/alerts/${alert.id}/assign`, { assignee: assignee.trim(), note: reason }) })) state.reload();
  };
  const note = (alert) => async () => {
    if (await act({ title: t('addNote'), prompt: t('note'), run: ({ reason }) => post(`/alerts/${alert.id}/notes`, { text: reason }) })) state.reload();
  };
  return html`<main data-screen="alerts">
    <div class="segmented">${STATUSES.map(
      (s) => html`<button class=${s === status ? 'active' : ''} data-alert-status=${s} onClick=${() => setStatus(s)}>${t(`alertStatuses.${s}`)}</button>`,
    )}</div>
    <${Loading} state=${state}>${(data) => {
      // Older clouds list every alert regardless of status; show only those of the chosen status when they say.
      const items = itemsOf(data, 'alerts').filter((a) => !a.status || a.status === status);
      return html`<div class="table-scroll" tabindex="0"><table class="list" data-alerts=${items.length}>
        <thead><tr><th>${t('severity')}</th><th>${t('kind')}</th><th>${t('locker')}</th><th>${t('count')}</th><th>${t('firstSeen')}</th><th>${t('lastSeen')}</th><th>${t('assignee')}</th><th>${t('notes')}</th><th>${t('detail')}</th><th></th></tr></thead>
        <tbody>${items.length ? items.map((a) => html`<tr data-alert-id=${a.id} data-status=${a.status ?? ''}>
          <td><${Badge} kind=${a.severity}>${t(`severities.${a.severity}`)}</${Badge}></td>
          <td class="in-text"><span title=${a.kind} data-kind=${a.kind}>${nameOf('alertKinds', a.kind)}</span>${a.cellId ? html` · <a href=${`#/lockers/${a.postamatId}?cell=${a.cellId}`}>${t('cell', a.cellId)}</a>` : ''}${a.orderId ? html` · <a href=${`#/orders/${encodeURIComponent(a.orderId)}`}>${t('order')}</a>` : ''}</td>
          <td><a href=${`#/lockers/${a.lockerId ?? a.postamatId}`}>${a.lockerId ?? a.postamatId}</a></td>
          <td>${a.count ?? 1}</td>
          <td><${Time} value=${a.firstSeenAt ?? a.occurredAt} /></td>
          <td><${Time} value=${a.lastSeenAt ?? a.receivedAt} /></td>
          <td data-assignee>${a.assignee ?? '—'}</td>
          <td class="small" data-notes=${(a.notes ?? []).length}>${(a.notes ?? []).map((n) => html`<div title=${formatTime(n.at)}><b>${n.operator}</b>: ${n.text}</div>`)}</td>
          <td class="small"><${Json} value=${a.detail} /></td>
          <td class="actions">${canAct && a.status !== 'resolved' && html`<button data-action="assign" onClick=${assign(a)}>${t('assign')}</button>`}
            ${canAct && html`<button data-action="add-note" onClick=${note(a)}>${t('addNote')}</button>`}${canAct && a.status === 'open' && html`<button data-action="acknowledge" onClick=${action(t('acknowledge'), a, 'acknowledge')}>${t('acknowledge')}</button>`}
            ${canAct && a.status && a.status !== 'resolved' && html`<button data-action="resolve" onClick=${action(t('resolve'), a, 'resolve')}>${t('resolve')}</button>`}</td>
        </tr>`) : html`<tr><td colspan="10" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>`;
    }}</${Loading}>
  </main>`;
}
