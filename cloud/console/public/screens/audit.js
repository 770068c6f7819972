// Audit: every operator action, newest first: who, when, what, on what (a link to it), why and the
// operator's note. Filtered by operator, locker, order, action and time; the filters live in the
// address (#/audit?lockerId=101&action=cell.open), so a filtered view can be linked to.
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Json, Loading, Pager, Time, html, useAsync } from '../components.js';
import { DICTIONARIES, nameOf, t } from '../i18n.js';
import { itemsOf } from './locker.js';

// The actions the filter offers: every one the console has a name for (the browser test checks
// that these are exactly the API's AUDIT_ACTIONS).
const ACTIONS = Object.keys(DICTIONARIES.en.auditActions);
const FILTERS = ['operator', 'lockerId', 'orderId', 'action', 'from', 'to', 'target'];

/** The target as words and, where the console has a page for it, the link there. */
export function targetOf(target) {
  let m = /^locker:(\d+)\/cell:(\d+)$/.exec(target);
  if (m) return { text: t('targets.cell', m[1], m[2]), href: `#/lockers/${m[1]}?cell=${m[2]}` };
  m = /^locker:(\d+)$/.exec(target);
  if (m) return { text: t('targets.locker', m[1]), href: `#/lockers/${m[1]}` };
  m = /^order:(.+)$/.exec(target);
  if (m) return { text: t('targets.order', m[1]), href: `#/orders/${encodeURIComponent(m[1])}` };
  m = /^alert:(\d+)$/.exec(target);
  if (m) return { text: t('targets.alert', m[1]), href: '#/alerts' };
  if (target === 'notifications') return { text: t('targets.notifications'), href: '#/notifications' };
  m = /^(release|rollout):(\d+)$/.exec(target);
  if (m) return { text: t(`targets.${m[1]}`, m[2]), href: null };
  return { text: target, href: null };
}

/** An action's name in the operator's language (looked up whole: the names have dots in them). */
export const actionName = (action) => t('auditActions')?.[action] ?? action;

/** A fixed purpose (a cell open's, a handover's, a flag change chosen from the preset list) in words; otherwise the operator's own. */
const reasonText = (e) => (e.reason ? nameOf('openReasons', e.reason) : '');

/** `datetime-local` values are the operator's local time; the API takes ISO 8601 with an offset. */
const toIso = (local) => {
  const ms = Date.parse(local);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

function queryOf(filters, page) {
  const q = { ...filters, page };
  q.from = filters.from ? toIso(filters.from) : undefined;
  q.to = filters.to ? toIso(filters.to) : undefined;
  return q;
}

function Filters({ initial }) {
  const [values, setValues] = useState(initial);
  const set = (name) => (e) => setValues((v) => ({ ...v, [name]: e.currentTarget.value }));
  const submit = (e) => {
    e.preventDefault();
    const qs = new URLSearchParams(Object.entries(values).filter(([, v]) => v !== undefined && String(v).trim() !== '')).toString();
    location.hash = qs ? `#/audit?${qs}` : '#/audit';
  };
  const field = (name, label, type = 'text', extra = {}) => html`<label class="filter-field">${label}
    <input name=${name} type=${type} value=${values[name] ?? ''} onInput=${set(name)} ...${extra} /></label>`;
  return html`<form class="filters audit-filters" data-audit-filters onSubmit=${submit}>
    ${field('operator', t('operatorName'), 'text', { maxlength: 64 })}
    ${field('lockerId', t('locker'), 'number', { min: 1 })}
    ${field('orderId', t('orderId'), 'text', { maxlength: 64 })}
    <label class="filter-field">${t('what')}
      <select name="action" value=${values.action ?? ''} onChange=${set('action')}>
        <option value="">${t('anyAction')}</option>
        ${ACTIONS.map((a) => html`<option value=${a}>${actionName(a)}</option>`)}
      </select></label>
    ${field('from', t('from'), 'datetime-local')}
    ${field('to', t('to'), 'datetime-local')}
    <div class="filter-buttons">
      <button type="submit" class="primary" data-action="filter-audit">${t('filter')}</button>
      <a href="#/audit" data-action="clear-audit">${t('clearFilters')}</a>
    </div>
  </form>`;
}

export function AuditScreen({ params }) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params?.get(f) ?? undefined]).filter(([, v]) => v));
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/audit', queryOf(filters, page)), [page]);
  return html`<main data-screen="audit">
    <${Filters} initial=${filters} />
    ${filters.target && html`<p class="muted small" data-audit-target>${t('target')}: ${targetOf(filters.target).text}</p>`}
    <${Loading} state=${state}>${(data) => {
      const items = itemsOf(data, 'entries');
      return html`<div class="table-scroll" tabindex="0"><table class="list" data-entries=${items.length} data-total=${data.total}>
          <thead><tr><th>${t('when')}</th><th>${t('who')}</th><th>${t('what')}</th><th>${t('target')}</th><th>${t('why')}</th><th>${t('note')}</th><th>${t('detail')}</th></tr></thead>
          <tbody>${items.length ? items.map((e) => {
            const target = targetOf(e.target);
            return html`<tr data-audit-id=${e.id} data-audit-action=${e.action}>
              <td><${Time} value=${e.at} /></td><td>${e.operator}</td><td data-audit-what>${actionName(e.action)}</td>
              <td>${target.href ? html`<a href=${target.href} data-audit-target-link>${target.text}</a>` : target.text}</td>
              <td data-audit-reason>${reasonText(e)}</td><td data-audit-note>${e.note ?? ''}</td>
              <td class="small"><${Json} value=${e.detail} /></td>
            </tr>`;
          }) : html`<tr><td colspan="7" class="muted">${t('nothing')}</td></tr>`}</tbody>
        </table></div>
        ${data.total != null && html`<${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}`;
    }}</${Loading}>
  </main>`;
}
