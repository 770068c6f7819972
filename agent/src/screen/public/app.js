// The locker's touchscreen. The server holds the session; this page renders /api/state and sends
// taps. Plain JavaScript, no build step: it runs in the kiosk browser as it is.
'use strict';

const TEXT = {
  ru: {
    brand: 'Постамат',
    offline: 'нет связи',
    offlineTitle: 'Нет связи с облаком: выдача и закладка работают, данные уйдут при восстановлении связи',
    courier: 'Я курьер',
    customer: 'Получить посылку',
    welcome: 'Здравствуйте!',
    chooseHint: 'Выберите, что вы хотите сделать',
    codeCourier: 'Введите код курьера',
    codeCustomer: 'Введите код получения',
    service: 'Сервис',
    codeService: 'Введите сервисный код',
    serviceTitle: 'Ячейки для проверки',
    serviceHint: 'Сначала ячейки, требующие инвентаризации, затем неисправные',
    serviceNone: 'Ячеек для проверки нет',
    flags: { needs_inventory: 'нужна инвентаризация', faulty: 'неисправна', dirty: 'грязная', blocked: 'заблокирована' },
    cellWithFlags: (c, f) => `Ячейка ${c}: ${f}`,
    inventoryOpen: (c) => `Ячейка ${c} открыта`,
    inventoryLook: 'Осмотрите ячейку. Если в ней посылка — отсканируйте или введите её штрихкод. Затем закройте дверцу',
    inventoryAsk: (c) => `Что в ячейке ${c}?`,
    scanned: (b) => `Штрихкод: ${b}`,
    recordEmpty: 'Ячейка пуста',
    recordFound: (b) => (b ? `Посылка ${b} здесь` : 'Посылка здесь'),
    inventoried: (n) =>
      n.outcome === 'empty'
        ? `Ячейка ${n.cellId} записана пустой`
        : n.placed
          ? `Посылка ${n.barcode} записана в ячейку ${n.cellId}`
          : `Посылка ${n.barcode} не найдена среди заказов: ячейка ${n.cellId} остаётся на проверке, оператор уведомлён`,
    ok: 'OK',
    del: '⌫',
    back: 'Назад',
    logout: 'Выйти',
    done: 'Готово',
    scanTitle: 'Отсканируйте посылку',
    scanHint: 'или введите штрихкод',
    barcode: 'Штрихкод',
    returns: (n) => `Забрать возвраты (${n})`,
    loaded: (b, c) => `Посылка ${b} заложена в ячейку ${c}`,
    returned: (n) => `Возвраты забраны из ячеек: ${n}`,
    cell: 'Ячейка',
    cellOpen: (c) => `Ячейка ${c} открыта`,
    putAndClose: 'Положите посылку и закройте дверцу',
    failedInstead: (f, c) => `Дверца ${cellsText(f)} не открылась — открыта ячейка ${c}`,
    doesNotFit: 'Не помещается',
    cancel: 'Отменить',
    takeOutBigger: 'Выньте посылку и закройте дверцу — затем откроется ячейка побольше',
    takeOutCancel: 'Выньте посылку и закройте дверцу',
    pickupTitle: (cells) => (cells.length === 1 ? `Заберите посылку из ячейки ${cells[0]}` : `Заберите посылки из ячеек ${cells.join(', ')}`),
    returnsTitle: (cells) => (cells.length === 1 ? `Заберите возвраты из ячейки ${cells[0]}` : `Заберите возвраты из ячеек ${cells.join(', ')}`),
    closeDoors: 'и закройте дверцы',
    chooseTitle: 'Этот штрихкод есть у нескольких заказов',
    chooseOrderHint: 'Выберите заказ, номер которого указан на посылке',
    orderLabel: (c) => `Заказ ${c.number || c.externalId}`,
    busy: 'Открываем ячейку…',
    wait: (t) => `Подождите ${t} перед следующей попыткой`,
    errors: {
      wrong_code: 'Неверный код',
      wait: 'Слишком много попыток',
      code_expired: 'Срок действия кода истёк',
      session_expired: 'Доступ курьера закончился',
      unknown_parcel: 'Посылка не найдена',
      already_loaded: (e) => `Эта посылка уже в ячейке ${e.cellId}`,
      not_loadable: 'Эту посылку нельзя заложить: она отменена или уже выдана',
      not_deliverable_yet: (e) => `Эту посылку можно заложить не раньше ${formatDate(e.date)}`,
      not_a_candidate: 'Выберите один из показанных заказов',
      no_free_cell: 'Нет свободной подходящей ячейки',
      door_fault: (e) => `Не открылась дверца ${cellsText(e.cells)}. Сообщите в поддержку`,
      door_unknown: (e) => `Дверца ${cellsText(e.cells)} могла открыться: замок не ответил. Ячейка отложена для проверки. Позвоните в поддержку`,
      nothing_to_collect: 'Возвратов для вас нет',
      nothing_to_pick_up: 'Этот заказ уже выдан',
      not_flagged: 'Эта ячейка не требует проверки',
      no_barcode: 'Сначала отсканируйте или введите штрихкод посылки',
      internal: 'Что-то пошло не так. Попробуйте ещё раз',
    },
    cellsOf: (cells) => (cells.length === 1 ? `ячейки ${cells[0]}` : `ячеек ${cells.join(', ')}`),
  },
  en: {
    brand: 'Parcel locker',
    offline: 'offline',
    offlineTitle: 'No link to the cloud: pick-ups and loads work, the data is sent when the link is back',
    courier: "I'm a courier",
    customer: 'Collect a parcel',
    welcome: 'Hello!',
    chooseHint: 'Choose what you want to do',
    codeCourier: 'Enter your courier code',
    codeCustomer: 'Enter your pick-up code',
    service: 'Service',
    codeService: 'Enter your service code',
    serviceTitle: 'Cells to check',
    serviceHint: 'Cells that need an inventory first, then faulty ones',
    serviceNone: 'No cell needs checking',
    flags: { needs_inventory: 'needs inventory', faulty: 'faulty', dirty: 'dirty', blocked: 'blocked' },
    cellWithFlags: (c, f) => `Cell ${c}: ${f}`,
    inventoryOpen: (c) => `Cell ${c} is open`,
    inventoryLook: "Look inside. If there is a parcel, scan or type its barcode. Then close the door",
    inventoryAsk: (c) => `What is in cell ${c}?`,
    scanned: (b) => `Barcode: ${b}`,
    recordEmpty: 'The cell is empty',
    recordFound: (b) => (b ? `Parcel ${b} is here` : 'A parcel is here'),
    inventoried: (n) =>
      n.outcome === 'empty'
        ? `Cell ${n.cellId} recorded empty`
        : n.placed
          ? `Parcel ${n.barcode} recorded in cell ${n.cellId}`
          : `Parcel ${n.barcode} matches no order: cell ${n.cellId} stays set aside, the operator is told`,
    ok: 'OK',
    del: '⌫',
    back: 'Back',
    logout: 'Sign out',
    done: 'Done',
    scanTitle: 'Scan the parcel',
    scanHint: 'or type its barcode',
    barcode: 'Barcode',
    returns: (n) => `Collect returns (${n})`,
    loaded: (b, c) => `Parcel ${b} is in cell ${c}`,
    returned: (n) => `Returns collected from ${n} cell(s)`,
    cell: 'Cell',
    cellOpen: (c) => `Cell ${c} is open`,
    putAndClose: 'Put the parcel in and close the door',
    failedInstead: (f, c) => `The door of ${cellsText(f)} did not open — cell ${c} is open instead`,
    doesNotFit: 'Does not fit',
    cancel: 'Cancel',
    takeOutBigger: 'Take the parcel out and close the door — a bigger cell will open',
    takeOutCancel: 'Take the parcel out and close the door',
    pickupTitle: (cells) => (cells.length === 1 ? `Take your parcel from cell ${cells[0]}` : `Take your parcels from cells ${cells.join(', ')}`),
    returnsTitle: (cells) => (cells.length === 1 ? `Take the returns from cell ${cells[0]}` : `Take the returns from cells ${cells.join(', ')}`),
    closeDoors: 'and close the doors',
    chooseTitle: 'This barcode belongs to several orders',
    chooseOrderHint: 'Choose the order whose number is on the parcel',
    orderLabel: (c) => `Order ${c.number || c.externalId}`,
    busy: 'Opening the cell…',
    wait: (t) => `Please wait ${t} before trying again`,
    errors: {
      wrong_code: 'Wrong code',
      wait: 'Too many attempts',
      code_expired: 'This code has expired',
      session_expired: 'Your courier access has ended',
      unknown_parcel: 'Parcel not found',
      already_loaded: (e) => `This parcel is already in cell ${e.cellId}`,
      not_loadable: 'This parcel cannot be loaded: it was cancelled or already handed out',
      not_deliverable_yet: (e) => `This parcel cannot be loaded before ${formatDate(e.date)}`,
      not_a_candidate: 'Choose one of the orders shown',
      no_free_cell: 'No free cell fits this parcel',
      door_fault: (e) => `The door of ${cellsText(e.cells)} did not open. Please tell support`,
      door_unknown: (e) => `The door of ${cellsText(e.cells)} may have opened: the lock did not answer. The cell is set aside for inspection. Please call support`,
      nothing_to_collect: 'There are no returns for you',
      nothing_to_pick_up: 'This order has already been collected',
      not_flagged: 'This cell does not need checking',
      no_barcode: "Scan or type the parcel's barcode first",
      internal: 'Something went wrong. Please try again',
    },
    cellsOf: (cells) => (cells.length === 1 ? `cell ${cells[0]}` : `cells ${cells.join(', ')}`),
  },
};

let state = null;
let lastRendered = '';
let code = '';
let barcode = '';

const $ = (id) => document.getElementById(id);
const t = () => TEXT[(state && state.lang) || 'ru'] || TEXT.ru;
const cellsText = (cells) => t().cellsOf(cells);

function formatDate(iso) {
  const [y, m, d] = iso.split('-');
  return state && state.lang === 'en' ? iso : `${d}.${m}.${y}`;
}

function formatWait(ms) {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'onclick') node.addEventListener('click', v);
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

function button(label, action, cls = 'btn', extra = {}, arg) {
  return el('button', { class: cls, 'data-action': action, type: 'button', ...extra, onclick: () => send(action, arg) }, label);
}

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined && path === '/api/state' ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

const ACTIONS = {
  courier: () => api('/api/choose', { kind: 'courier' }),
  customer: () => api('/api/choose', { kind: 'customer' }),
  service: () => api('/api/choose', { kind: 'service' }),
  'open-cell': (cellId) => api('/api/inventory/open', { cellId }),
  'record-empty': () => api('/api/inventory/record', { outcome: 'empty' }),
  'record-found': () => api('/api/inventory/record', { outcome: 'found' }),
  submit: () => api('/api/code', { kind: state.view.kind, code }),
  scan: () => api('/api/scan', { barcode }),
  returns: () => api('/api/returns'),
  'does-not-fit': () => api('/api/does-not-fit'),
  'cancel-load': () => api('/api/cancel-load'),
  back: () => api('/api/back'),
  home: () => api('/api/home'),
};

async function send(action, arg) {
  if (action === 'submit' && code.length === 0) return;
  if (action === 'scan' && barcode.trim().length === 0) return;
  $('busy').hidden = false;
  $('busy-text').textContent = t().busy;
  try {
    const next = await ACTIONS[action](arg);
    if (action === 'submit') code = '';
    if (action === 'scan') barcode = '';
    if (next && next.view) apply(next);
  } finally {
    $('busy').hidden = true;
  }
}

function apply(next) {
  const screenChanged = !state || state.view.screen !== next.view.screen;
  if (screenChanged) {
    code = '';
    barcode = '';
  }
  state = next;
  const key = JSON.stringify(next);
  if (key !== lastRendered) {
    lastRendered = key;
    render();
  }
}

function errorBox() {
  const e = state.error;
  if (!e) return null;
  const text = t().errors[e.code];
  const msg = typeof text === 'function' ? text(e) : text || e.code;
  const wait = e.waitMs > 0 ? ` — ${t().wait(formatWait(e.waitMs))}` : '';
  return el('div', { class: 'error', role: 'alert', 'data-error': e.code }, msg + wait);
}

function renderStart() {
  return [
    el('h1', {}, t().welcome),
    el('h2', {}, t().chooseHint),
    el('div', { class: 'row' }, button(t().customer, 'customer', 'btn huge'), button(t().courier, 'courier', 'btn huge secondary')),
    // Discreet: only technicians with a service code from the operator use it.
    el('div', { class: 'row service-entry' }, button(t().service, 'service', 'btn link')),
  ];
}

function renderCode() {
  const kind = state.view.kind;
  const display = el('div', { class: 'code-display', 'data-testid': 'code' }, code.replace(/./g, '•') || '\u00a0');
  const wait = state.waitMs[kind];
  const keys = ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'del', '0', 'ok'].map((k) => {
    if (k === 'del') return el('button', { class: 'del', type: 'button', 'data-key': 'del', onclick: () => { code = code.slice(0, -1); render(); } }, t().del);
    if (k === 'ok') return el('button', { class: 'ok', type: 'button', 'data-action': 'submit', onclick: () => send('submit') }, t().ok);
    return el('button', { type: 'button', 'data-key': k, onclick: () => { if (code.length < 16) code += k; render(); } }, k);
  });
  const side = el(
    'div',
    { class: 'side' },
    el('h1', {}, kind === 'courier' ? t().codeCourier : kind === 'service' ? t().codeService : t().codeCustomer),
    display,
    errorBox(),
    wait > 0 && !state.error ? el('div', { class: 'error', 'data-error': 'wait' }, t().wait(formatWait(wait))) : null,
    button(t().back, 'home', 'btn secondary'),
  );
  return [el('div', { class: 'split' }, side, el('div', { class: 'keypad' }, keys))];
}

function renderCourier() {
  const n = state.view.notice;
  const notice = n ? el('div', { class: 'notice', 'data-notice': n.kind }, n.kind === 'loaded' ? t().loaded(n.barcode, n.cellId) : t().returned(n.count)) : null;
  const input = el('input', { id: 'barcode', name: 'barcode', autocomplete: 'off', placeholder: t().barcode, inputmode: 'text' });
  input.value = barcode;
  input.addEventListener('input', () => { barcode = input.value; });
  input.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') send('scan'); });
  setTimeout(() => input.focus(), 0);
  return [
    notice,
    el('h1', {}, t().scanTitle),
    el('h2', {}, t().scanHint),
    el('div', { class: 'barcode' }, input, button(t().ok, 'scan', 'btn')),
    el('div', { class: 'row' }, button(t().returns(state.returns), 'returns', 'btn secondary', state.returns > 0 ? {} : { disabled: '' }), button(t().logout, 'home', 'btn secondary')),
  ];
}

// One button per order the scanned barcode may belong to; the courier picks the one on the label.
function renderLoadChoice() {
  const v = state.view;
  const choices = v.candidates.map((c) =>
    el(
      'button',
      { class: 'btn secondary choice', type: 'button', 'data-action': 'choose-order', 'data-order-id': c.orderId, onclick: () => chooseOrder(c.orderId) },
      el('span', {}, t().orderLabel(c)),
      el('span', { class: 'choice-detail' }, c.marketplaceId),
    ),
  );
  return [
    el('h1', {}, t().chooseTitle),
    el('h2', {}, t().chooseOrderHint),
    el('div', { class: 'hint' }, v.barcode),
    el('div', { class: 'choices' }, choices),
    button(t().back, 'back', 'btn secondary'),
  ];
}

async function chooseOrder(orderId) {
  $('busy').hidden = false;
  $('busy-text').textContent = t().busy;
  try {
    const next = await api('/api/choose-order', { orderId });
    if (next && next.view) apply(next);
  } finally {
    $('busy').hidden = true;
  }
}

function renderLoadOpen() {
  const v = state.view;
  const failed = v.failedCells.length > 0 ? el('div', { class: 'error', 'data-error': 'door_fault' }, t().failedInstead(v.failedCells, v.cellId)) : null;
  const hint = v.aborted === 'bigger' ? t().takeOutBigger : v.aborted === 'cancel' ? t().takeOutCancel : t().putAndClose;
  return [
    failed,
    el('div', { class: 'cell-badge', 'data-cell': String(v.cellId) }, String(v.cellId)),
    el('h1', {}, t().cellOpen(v.cellId)),
    el('div', { class: 'hint' }, hint),
    el('div', { class: 'hint' }, v.barcode),
    v.aborted === null ? el('div', { class: 'row' }, button(t().doesNotFit, 'does-not-fit', 'btn secondary'), button(t().cancel, 'cancel-load', 'btn secondary')) : null,
  ];
}

function renderTakeOpen() {
  const v = state.view;
  return [
    el('div', { class: 'cells' }, v.cells.map((c) => el('div', { class: 'cell-badge', 'data-cell': String(c) }, String(c)))),
    el('h1', {}, v.kind === 'pickup' ? t().pickupTitle(v.cells) : t().returnsTitle(v.cells)),
    el('div', { class: 'hint' }, t().closeDoors),
    button(t().done, v.kind === 'pickup' ? 'home' : 'back', 'btn secondary'),
  ];
}

// The technician's menu: one button per flagged cell, in the order the locker gives them.
function renderService() {
  const v = state.view;
  const n = v.notice;
  const notice = n ? el('div', { class: n.outcome === 'found' && !n.placed ? 'error' : 'notice', 'data-notice': n.kind }, t().inventoried(n)) : null;
  const flagText = (flags) => flags.map((f) => t().flags[f] || f).join(', ');
  const cells = v.cells.map((c) => button(t().cellWithFlags(c.cellId, flagText(c.flags)), 'open-cell', 'btn secondary choice', { 'data-cell': String(c.cellId) }, c.cellId));
  return [
    notice,
    el('h1', {}, t().serviceTitle),
    el('h2', {}, v.cells.length > 0 ? t().serviceHint : t().serviceNone),
    v.cells.length > 0 ? el('div', { class: 'choices' }, cells) : null,
    button(t().logout, 'home', 'btn secondary'),
  ];
}

// A flagged cell the technician opened: look, scan or type a barcode, close, then say what is inside.
function renderInventory() {
  const v = state.view;
  const input = el('input', { id: 'barcode', name: 'barcode', autocomplete: 'off', placeholder: t().barcode, 'aria-label': t().barcode, inputmode: 'text' });
  input.value = barcode;
  input.addEventListener('input', () => { barcode = input.value; });
  input.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') send('scan'); });
  setTimeout(() => input.focus(), 0);
  const scanned = v.barcode ? el('div', { class: 'hint', 'data-barcode': v.barcode }, t().scanned(v.barcode)) : null;
  const entry = el('div', { class: 'barcode' }, input, button(t().ok, 'scan', 'btn'));
  if (v.doorOpen) {
    return [el('div', { class: 'cell-badge', 'data-cell': String(v.cellId) }, String(v.cellId)), el('h1', {}, t().inventoryOpen(v.cellId)), el('div', { class: 'hint' }, t().inventoryLook), scanned, entry];
  }
  return [
    el('div', { class: 'cell-badge', 'data-cell': String(v.cellId) }, String(v.cellId)),
    el('h1', {}, t().inventoryAsk(v.cellId)),
    scanned,
    entry,
    el(
      'div',
      { class: 'row' },
      button(t().recordEmpty, 'record-empty', 'btn secondary'),
      button(t().recordFound(v.barcode), 'record-found', 'btn', v.barcode ? {} : { disabled: '' }),
    ),
    button(t().back, 'back', 'btn secondary'),
  ];
}

const SCREENS = {
  start: renderStart,
  code: renderCode,
  courier: renderCourier,
  load_choice: renderLoadChoice,
  load_open: renderLoadOpen,
  take_open: renderTakeOpen,
  service: renderService,
  inventory: renderInventory,
};

function renderHeader() {
  $('brand').textContent = t().brand;
  // A discreet mark for staff: couriers and customers carry on, as the screen works offline.
  const offline = $('offline');
  offline.hidden = !state.offline;
  offline.textContent = state.offline ? t().offline : '';
  offline.title = state.offline ? t().offlineTitle : '';
  document.documentElement.lang = state.lang;
  const langs = $('langs');
  langs.replaceChildren(
    ...state.languages.map((l) =>
      el('button', { type: 'button', class: l === state.lang ? 'active' : '', 'data-lang': l, onclick: () => api('/api/lang', { lang: l }).then(apply) }, l.toUpperCase()),
    ),
  );
}

function render() {
  if (!state) return;
  renderHeader();
  const screen = SCREENS[state.view.screen] || renderStart;
  const body = screen();
  $('app').replaceChildren(...[state.view.screen === 'code' ? null : errorBox(), ...body].filter(Boolean));
  $('app').dataset.screen = state.view.screen;
}

async function poll() {
  try {
    apply(await api('/api/state'));
  } catch {
    // the agent restarts; keep polling
  }
  setTimeout(poll, 400);
}

poll();
