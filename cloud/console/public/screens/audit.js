// Audit: every operator action, newest first: who, when, what, on what, and why.
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Json, Loading, Pager, Time, html, useAsync } from '../components.js';
import { t } from '../i18n.js';
import { itemsOf } from './locker.js';

export function AuditScreen() {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/audit', { page }), [page]);
  return html`<main data-screen="audit">
    <${Loading} state=${state}>${(data) => {
      const items = itemsOf(data, 'entries');
      return html`<table class="list" data-entries=${items.length}>
          <thead><tr><th>${t('when')}</th><th>${t('who')}</th><th>${t('what')}</th><th>${t('target')}</th><th>${t('why')}</th></tr></thead>
          <tbody>${items.length ? items.map((e) => html`<tr data-audit-action=${e.action}>
            <td><${Time} value=${e.at} /></td><td>${e.operator ?? e.who}</td><td>${e.action}</td>
            <td class="small">${typeof e.target === 'object' ? html`<${Json} value=${e.target} />` : e.target}</td><td>${e.reason ?? ''}</td>
          </tr>`) : html`<tr><td colspan="5" class="muted">${t('nothing')}</td></tr>`}</tbody>
        </table>
        ${data.total != null && html`<${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}`;
    }}</${Loading}>
  </main>`;
}
