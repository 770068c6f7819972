// Flagged cells: where the overview's cell tiles are (GET /operator/cells?flag=): each locker and
// cell with the flag, linking to the cell on its locker's page, and who set each flag, why and when.
// The flag (and the sandbox) live in the address, #/cells?flag=blocked&sandbox=true, so a tile links here.
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Loading, Pager, ageOf, formatAge, formatTime, html, useAsync } from '../components.js';
import { t } from '../i18n.js';

const PAGE_SIZE = 50;
export const CELL_FLAG_FILTERS = ['blocked', 'faulty', 'dirty', 'needs_inventory', 'needs_inspection'];

/** Why a flag is set: the locker's own reasons are fixed words, an operator's are theirs. */
const markReason = (mark) => (mark.setBy === 'locker' ? t(`lockerFlagReasons.${mark.reason}`) : mark.reason);

function Marks({ flags, marks }) {
  return html`<ul class="flag-list">${flags.map((flag) => {
    const mark = marks.find((m) => m.flag === flag);
    const age = mark && formatAge(ageOf(mark.setAt));
    return html`<li data-flag=${flag}>
      <b>${t(`flagNames.${flag}`)}</b>
      ${mark
        ? html`<div class="small" data-flag-mark=${mark.setBy}>
            <span title=${formatTime(mark.setAt)}>${mark.setBy === 'locker' ? t('flagSetByLocker', age) : t('flagSetBy', mark.setBy, age)}</span>
            ${mark.reason && html`<div>${t('why')}: ${markReason(mark)}</div>`}
            ${mark.note && html`<div>${t('note')}: ${mark.note}</div>`}
          </div>`
        : html`<div class="small muted">${t('flagNoMark')}</div>`}
    </li>`;
  })}</ul>`;
}

export function CellsScreen({ params }) {
  const flag = CELL_FLAG_FILTERS.includes(params.get('flag')) ? params.get('flag') : 'needs_inspection';
  const sandbox = params.get('sandbox') === 'true';
  const [page, setPage] = useState(1);
  const list = useAsync(() => get('/cells', { flag, sandbox: String(sandbox), page, pageSize: PAGE_SIZE }), [flag, sandbox, page]);
  const choose = (value) => {
    location.hash = `#/cells?flag=${value}${sandbox ? '&sandbox=true' : ''}`;
  };
  return html`<main data-screen="cells" data-loading=${String(list.loading)}>
    <p><a href="#/fleet">${t('backToFleet')}</a></p>
    <h2>${t('flaggedCells')}${sandbox ? ` · ${t('sandboxSection')}` : ''}</h2>
    <div class="filters">
      <label>${t('flagFilter')}
        <select id="cells-flag" value=${flag} onChange=${(e) => choose(e.currentTarget.value)}>
          ${CELL_FLAG_FILTERS.map((f) => html`<option value=${f}>${t(`cellFlagFilters.${f}`)}</option>`)}
        </select>
      </label>
    </div>
    <${Loading} state=${list}>${(data) => html`
      <div class="scroll-x" tabindex="0" role="region" aria-label=${t('flaggedCells')}><table class="list" data-total=${data.total}>
        <thead><tr><th>${t('locker')}</th><th>${t('cellColumn')}</th><th>${t('size')}</th><th>${t('flagsWhoWhyWhen')}</th></tr></thead>
        <tbody>${data.items.length
          ? data.items.map((c) => html`<tr key=${`${c.lockerId}:${c.cellId}`} data-flagged-cell=${`${c.lockerId}:${c.cellId}`}>
              <td><a href=${`#/lockers/${c.lockerId}`}><strong>${c.lockerId}</strong> ${c.lockerName}</a></td>
              <td><a href=${`#/lockers/${c.lockerId}?cell=${c.cellId}`} data-cell-link>${t('cell', c.cellId)}</a></td>
              <td>${c.size}</td>
              <td><${Marks} flags=${c.flags} marks=${c.flagMarks} /></td>
            </tr>`)
          : html`<tr><td colspan="4" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}
    </${Loading}>
  </main>`;
}
