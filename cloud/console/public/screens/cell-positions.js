// The locker page for a technician standing at the locker with a phone: the cells where they are
// on the front (the API's column and row: a board's column of doors, top to bottom by lock), each
// with its state in colour and in words with a sign; a tap opens one dialog with the cell's facts
// and its actions (open the door, block, unblock, clear the inspection flags), each confirmed
// with a purpose from the API's preset list and an optional note.
import { useEffect, useRef, useState } from 'preact/hooks';
import { post, put } from '../api.js';
import { html, keepTabWithin, toast, useCanAct } from '../components.js';
import { t } from '../i18n.js';
import { FlagList } from './cell-flags.js';

/** The purposes the API accepts for opening a cell (CELL_OPEN_REASONS); flag changes take the same list. */
const PURPOSES = ['maintenance', 'inventory', 'customer_support', 'courier_support', 'other'];

/** The flags an inspection clears. */
const INSPECTION_FLAGS = ['faulty', 'needs_inventory', 'dirty'];

/** What a cell is, first that applies: blocked, one of its inspection flags, else the API's state. */
function kindOf(cell) {
  const flags = cell.flags ?? [];
  if (flags.includes('blocked')) return 'blocked';
  return INSPECTION_FLAGS.find((f) => flags.includes(f)) ?? cell.state;
}

/** A sign beside each kind's words, so that no state is told by colour alone. */
const SIGNS = { free: '○', reserved: '◔', occupied: '■', awaiting_return: '↩', blocked: '⊘', faulty: '⚠', needs_inventory: '☰', dirty: '✱', needs_inspection: '⚠', door_open: '⇲' };
const KINDS = ['free', 'reserved', 'occupied', 'awaiting_return', 'blocked', 'faulty', 'needs_inventory', 'door_open'];

const kindText = (kind) => t(`cellKinds.${kind}`);

/** A tile's height: its door's height to scale, never below a comfortable touch target. */
const tileHeight = (cell) => Math.max(52, Math.round((cell.height || 100) * 0.3));

/** Columns left to right, each its cells top to bottom, as the API places them. */
function columnsOf(grid) {
  const byColumn = new Map();
  for (const cell of grid) {
    const col = cell.column ?? 1;
    if (!byColumn.has(col)) byColumn.set(col, []);
    byColumn.get(col).push(cell);
  }
  return [...byColumn.entries()].sort(([a], [b]) => a - b).map(([col, cells]) => [col, cells.sort((a, b) => (a.row ?? 0) - (b.row ?? 0))]);
}

function Tile({ cell, onOpen }) {
  const kind = kindOf(cell);
  const open = cell.doorOpen === true;
  return html`<button
    class=${`pos-cell kind-${kind} ${open ? 'door-open' : ''}`}
    style=${{ height: `${tileHeight(cell)}px` }}
    data-cell-id=${cell.cellId}
    data-state=${cell.state}
    data-kind=${kind}
    data-door=${open ? 'open' : 'closed'}
    data-column=${cell.column}
    data-row=${cell.row}
    onClick=${(e) => onOpen(cell.cellId, e.currentTarget)}>
    <span class="pos-id">${cell.cellId}</span>
    <span class="pos-state"><span aria-hidden="true">${SIGNS[kind] ?? ''}</span> ${kindText(kind)}</span>
    ${open && html`<span class="pos-door"><span aria-hidden="true">${SIGNS.door_open}</span> ${kindText('door_open')}</span>`}
    <span class="visually-hidden">, ${t('place', cell.column, cell.row)}</span>
  </button>`;
}

function PositionLegend() {
  return html`<ul class="pos-legend" aria-label=${t('legend')}>${KINDS.map(
    (k) => html`<li class=${`kind-${k}`}><span aria-hidden="true">${SIGNS[k]}</span> ${kindText(k)}</li>`,
  )}</ul>`;
}

/** The actions a cell offers: [action, label, call(purpose, note)]. */
function actionsOf(lockerId, cell) {
  const flags = cell.flags ?? [];
  const flagsPath = `/postamats/${lockerId}/cells/${cell.cellId}/flags`;
  const setFlags = (changes) => (reason, note) => put(flagsPath, { ...changes, reason, ...(note ? { note } : {}) });
  const actions = [['open-cell', t('openDoor'), (reason, note) => post(`/lockers/${lockerId}/cells/${cell.cellId}/open`, { reason, ...(note ? { note } : {}) })]];
  actions.push(flags.includes('blocked') ? ['unblock', t('unblock'), setFlags({ blocked: false })] : ['block', t('block'), setFlags({ blocked: true })]);
  if (INSPECTION_FLAGS.some((f) => flags.includes(f))) actions.push(['inspection-done', t('clearFault'), setFlags({ faulty: false, dirty: false, needs_inventory: false })]);
  return actions;
}

/** Step two of the dialog: the purpose (required), a note (optional), confirm. */
function ReasonStep({ label, call, onBack, onDone }) {
  const [purpose, setPurpose] = useState(null);
  const [note, setNote] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const group = useRef(null);
  useEffect(() => group.current?.querySelector('input')?.focus(), []);
  const submit = async (e) => {
    e.preventDefault();
    if (!purpose) {
      setError(t('choosePurpose'));
      group.current?.querySelector('input')?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await call(purpose, note.trim());
      onDone();
    } catch (err) {
      setError(t('error', err.message));
      setBusy(false);
    }
  };
  return html`<form class="cell-reason" data-step="reason" onSubmit=${submit}>
    <fieldset ref=${group} class="purposes">
      <legend>${t('actionReason', label)}</legend>
      ${PURPOSES.map((p) => html`<label class="purpose">
        <input type="radio" name="purpose" value=${p} checked=${purpose === p} onChange=${() => setPurpose(p)} />
        <span>${t(`openReasons.${p}`)}</span>
      </label>`)}
    </fieldset>
    <label class="note">${t('noteOptional')}<textarea name="note" maxlength="500" value=${note} onInput=${(e) => setNote(e.currentTarget.value)}></textarea></label>
    ${error && html`<div class="error" role="alert">${error}</div>`}
    <div class="dialog-buttons">
      <button type="button" data-action="back" onClick=${onBack}>${t('back')}</button>
      <button type="submit" class="primary" data-action="confirm" disabled=${busy}>${t('confirm')}</button>
    </div>
  </form>`;
}

/** The tapped cell's dialog: its facts, and for an operator its actions, each then asking why. */
function CellDialog({ lockerId, cell, onClose, onChanged }) {
  const canAct = useCanAct();
  const [action, setAction] = useState(null);
  const box = useRef(null);
  const chosen = useRef(null);
  // The focus moves in: to the first action, or (a viewer) to the close button.
  useEffect(() => {
    (box.current?.querySelector('[data-step="actions"] button') ?? box.current?.querySelector('button'))?.focus();
  }, []);
  // Back from the reason: the focus returns to the action that was chosen.
  useEffect(() => {
    if (!action && chosen.current) box.current?.querySelector(`[data-action="${chosen.current}"]`)?.focus();
  }, [action]);
  const onKeyDown = (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
      return;
    }
    keepTabWithin(e, box.current);
  };
  const actions = canAct ? actionsOf(lockerId, cell) : [];
  const current = actions.find(([id]) => id === action);
  const kind = kindOf(cell);
  return html`<div class="dialog-backdrop">
    <div ref=${box} class="dialog cell-dialog" role="dialog" aria-modal="true" aria-labelledby="cell-dialog-title" data-dialog="cell" data-cell=${cell.cellId} onKeyDown=${onKeyDown}>
      <div class="cell-dialog-head">
        <h3 id="cell-dialog-title">${t('cell', cell.cellId)} · ${t('place', cell.column, cell.row)}</h3>
        <button type="button" class="close" data-action="close" aria-label=${t('close')} onClick=${onClose}>×</button>
      </div>
      <dl class="facts">
        <dt>${t('state')}</dt><dd><span class=${`chip kind-${kind}`} data-cell-kind=${kind}><span aria-hidden="true">${SIGNS[kind]}</span> ${kindText(kind)}</span></dd>
        <dt>${t('door')}</dt><dd>${cell.doorOpen === true ? t('doorOpen') : cell.doorOpen === false ? t('doorClosed') : '—'}</dd>
        <dt>${t('size')}</dt><dd>${cell.size}</dd>
        <dt>${t('flags')}</dt><dd><${FlagList} flags=${cell.flags ?? []} marks=${cell.flagMarks ?? []} /></dd>
      </dl>
      ${current
        ? html`<${ReasonStep}
            key=${current[0]}
            label=${current[1]}
            call=${current[2]}
            onBack=${() => setAction(null)}
            onDone=${() => {
              toast(t('done'));
              onChanged();
              onClose();
            }} />`
        : actions.length > 0 &&
          html`<div class="cell-actions" data-step="actions">${actions.map(
            ([id, label]) => html`<button type="button" data-action=${id} onClick=${() => {
              chosen.current = id;
              setAction(id);
            }}>${label}</button>`,
          )}</div>`}
    </div>
  </div>`;
}

/**
 * The cells by position, and the dialog of the tapped one (kept current by the page's live
 * reloads). A front wider than the screen scrolls in its own box, which takes the focus for it.
 */
export function PositionView({ lockerId, grid, onChanged, initialCell = null }) {
  // A link to a cell (the audit's target) opens its dialog.
  const [openId, setOpenId] = useState(initialCell);
  const opener = useRef(null);
  const cell = grid.find((c) => c.cellId === openId) ?? null;
  const columns = columnsOf(grid);
  const close = () => {
    setOpenId(null);
    opener.current?.focus();
  };
  return html`<div class="positions-wrap">
    <div class="positions" data-positions role="group" aria-label=${t('cellsByPosition')} tabindex="0">
      ${columns.map(
        ([col, cells]) => html`<div class="pos-column" data-pos-column=${col}>
          <div class="pos-column-head" aria-hidden="true">${t('columnN', col)}</div>
          ${cells.map((c) => html`<${Tile} key=${c.cellId} cell=${c} onOpen=${(id, el) => {
            opener.current = el;
            setOpenId(id);
          }} />`)}
        </div>`,
      )}
    </div>
    <${PositionLegend} />
    ${cell && html`<${CellDialog} lockerId=${lockerId} cell=${cell} onClose=${close} onChanged=${onChanged} />`}
  </div>`;
}
