// Flagged cells: where the overview's cell tiles are (GET /operator/cells?flag=): each locker and
// cell with the flag, linking to the cell on its locker's page, and who set each flag, why and when.
// The flag (and the sandbox) live in the address, #/cells?flag=blocked&sandbox=true, so a tile links here.
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { Loading, Pager, html, useAsync } from '../components.js';
import { t } from '../i18n.js';
import { FlagList } from './cell-flags.js';

const PAGE_SIZE = 50;
export const CELL_FLAG_FILTERS = ['blocked', 'faulty', 'dirty', 'needs_inventory', 'needs_inspection'];

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
              <td><${FlagList} flags=${c.flags} marks=${c.flagMarks} /></td>
            </tr>`)
          : html`<tr><td colspan="4" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}
    </${Loading}>
  </main>`;
}
