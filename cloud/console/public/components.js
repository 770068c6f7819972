// Pieces every screen uses: the session context, data loading, paging, badges, times and the
// reason dialog that every action goes through.
import { html } from 'htm/preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { DICTIONARIES, language, nameOf, t } from './i18n.js';

export { html };

/** {operator, role, csrfToken, expiresAt} of the signed-in operator. */
export const SessionContext = createContext(null);
export const useSession = () => useContext(SessionContext);
/** Whether the signed-in operator may act (viewers only read). */
export const useCanAct = () => useSession()?.role === 'operator';

/**
 * Runs `load()` now and whenever `deps` change; `reload()` runs it again keeping the shown data
 * (live updates refresh in place without flashing "Loading…").
 */
export function useAsync(load, deps) {
  const [state, setState] = useState({ loading: true, error: null, data: null });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === seq.current && setState({ loading: false, error: null, data }),
      (error) => mine === seq.current && setState((s) => ({ loading: false, error, data: s.data })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** Calls fn at most once per `ms` (trailing), for bursts of live events. */
export function useThrottled(fn, ms = 300) {
  const timer = useRef(null);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  }, [ms]);
}

export function Loading({ state, children }) {
  if (state.error && !state.data) {
    return html`<div class="error" role="alert">${t('error', state.error.message)} <button onClick=${state.reload}>${t('retry')}</button></div>`;
  }
  if (!state.data) return html`<div class="muted" data-loading="true">${t('loading')}</div>`;
  return children(state.data);
}

export function Pager({ page, pageSize, total, onPage }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return html`<div class="pager">
    <button data-action="prev-page" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>${t('prev')}</button>
    <span>${t('page', page, pages)} · ${t('total', total)}</span>
    <button data-action="next-page" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>${t('next')}</button>
  </div>`;
}

export function Badge({ kind, children, title }) {
  return html`<span class=${`badge badge-${kind}`} title=${title}>${children}</span>`;
}

const toMs = (v) => (v == null ? null : typeof v === 'number' ? v : Date.parse(v));

export function formatTime(value) {
  const ms = toMs(value);
  if (ms == null || Number.isNaN(ms)) return '—';
  return new Intl.DateTimeFormat(language() === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'short', timeStyle: 'medium' }).format(ms);
}

/** A span of time in its largest whole unit: [n, unit] with unit one of s, m, h, d. */
function spanOf(seconds) {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? [s, 's'] : s < 3600 ? [Math.floor(s / 60), 'm'] : s < 86400 ? [Math.floor(s / 3600), 'h'] : [Math.floor(s / 86400), 'd'];
}

/** "3 h": a span of time, as a deadline's time left. */
export function formatSpan(seconds) {
  if (seconds == null) return '—';
  const [n, unit] = spanOf(seconds);
  return `${n} ${t(`units.${unit}`)}`;
}

export function formatAge(seconds) {
  if (seconds == null) return '—';
  const [n, unit] = spanOf(seconds);
  return t('ago', n, t(`units.${unit}`));
}

export const ageOf = (value) => {
  const ms = toMs(value);
  return ms == null ? null : (Date.now() - ms) / 1000;
};

/** "3 Courier loaded": the spec's number with its name. */
export const orderStateName = (state) => (state == null ? '—' : `${state} ${t(`orderStates.${state}`) ?? ''}`.trim());

export function Time({ value }) {
  return html`<time datetime=${value ?? ''} title=${formatAge(ageOf(value))}>${formatTime(value)}</time>`;
}

/** A compact view of a JSON value (alert detail, command body, health report). */
export function Json({ value }) {
  if (value == null) return html`<span class="muted">—</span>`;
  if (typeof value === 'string' && value in (DICTIONARIES.en.detailValues ?? {})) return html`<span title=${value}>${nameOf('detailValues', value)}</span>`;
  if (typeof value === 'boolean') return html`<span>${t(value ? 'yes' : 'no')}</span>`;
  if (typeof value !== 'object') return html`<span>${String(value)}</span>`;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  if (entries.length === 0) return html`<span class="muted">—</span>`;
  // Keys and known values in the chosen language; the identifier stays in the title for support.
  return html`<dl class="json">${entries.map(([k, v]) => html`<dt title=${k}>${typeof k === 'number' ? k : nameOf('detailKeys', k)}</dt><dd><${Json} value=${v} /></dd>`)}</dl>`;
}

/** In a modal dialog's keydown: Tab and Shift+Tab go round the dialog's own controls, never out of it. */
export function keepTabWithin(e, container) {
  if (e.key !== 'Tab' || !container) return;
  const focusable = [...container.querySelectorAll('input:not([disabled]), select, textarea, button:not([disabled])')];
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

// The reason dialog: askReason() opens it and resolves with the values, or null when cancelled.
let openDialog = null;

/**
 * {title, prompt?, fields?: [{name, label, type, value, min, max} | {name, label, options: [[value, text]], value}]}
 * -> Promise<{reason, ...fields} | null>. `prompt` labels the free text (the reason, or a note beside a chosen purpose).
 */
export function askReason(request) {
  return new Promise((resolve) => {
    if (!openDialog) return resolve(null);
    openDialog({ ...request, resolve });
  });
}

export function DialogHost() {
  const [req, setReq] = useState(null);
  const [values, setValues] = useState({});
  useEffect(() => {
    openDialog = (r) => {
      setValues(Object.fromEntries((r.fields ?? []).map((f) => [f.name, f.value ?? ''])));
      setReq(r);
    };
    return () => {
      openDialog = null;
    };
  }, []);
  const form = useRef(null);
  const opener = useRef(null);
  // Focus moves into the dialog when it opens and back to what opened it when it closes.
  useEffect(() => {
    if (!req) return undefined;
    opener.current = document.activeElement;
    form.current?.querySelector('input, select, textarea')?.focus();
    return () => opener.current?.focus?.();
  }, [req]);
  if (!req) return null;
  const close = (result) => {
    setReq(null);
    req.resolve(result);
  };
  // Esc cancels; Tab and Shift+Tab stay among the dialog's own controls.
  const onKeyDown = (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      close(null);
      return;
    }
    keepTabWithin(e, form.current);
  };
  const submit = (e) => {
    e.preventDefault();
    const reason = (values.reason ?? '').trim();
    if (!reason) return;
    close({ ...values, reason });
  };
  const set = (name) => (e) => setValues((v) => ({ ...v, [name]: e.currentTarget.value }));
  return html`<div class="dialog-backdrop">
    <form ref=${form} class="dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-title" data-dialog="reason" onSubmit=${submit} onKeyDown=${onKeyDown}>
      <h3 id="dialog-title">${t('reasonTitle', req.title)}</h3>
      ${(req.fields ?? []).map((f) =>
        f.options
          ? html`<label>${f.label}<select name=${f.name} value=${values[f.name]} onChange=${set(f.name)}>${f.options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}</select></label>`
          : html`<label>${f.label}<input name=${f.name} type=${f.type ?? 'text'} min=${f.min} max=${f.max} required value=${values[f.name]} onInput=${set(f.name)} /></label>`,
      )}
      <label>${req.prompt ?? t('reasonPrompt')}<textarea name="reason" required maxlength="500" value=${values.reason ?? ''} onInput=${set('reason')}></textarea></label>
      <div class="dialog-buttons">
        <button type="button" onClick=${() => close(null)}>${t('cancel')}</button>
        <button type="submit" class="primary" data-action="confirm">${t('confirm')}</button>
      </div>
    </form>
  </div>`;
}

// A short message after an action (or its error), shown at the bottom of the page.
let showToast = null;

export function toast(text, kind = 'ok') {
  showToast?.({ text, kind, at: Date.now() });
}

export function ToastHost() {
  const [msg, setMsg] = useState(null);
  useEffect(() => {
    showToast = setMsg;
    return () => {
      showToast = null;
    };
  }, []);
  useEffect(() => {
    if (!msg) return undefined;
    const timer = setTimeout(() => setMsg(null), 5000);
    return () => clearTimeout(timer);
  }, [msg]);
  return msg ? html`<div class=${`toast toast-${msg.kind}`} role="status">${msg.text}</div>` : null;
}

/** Runs an action after the reason dialog; tells the outcome; returns the answer or null. */
export async function act({ title, prompt, fields, run }) {
  const input = await askReason({ title, prompt, fields });
  if (!input) return null;
  try {
    const answer = await run(input);
    toast(t('done'));
    return answer ?? {};
  } catch (err) {
    toast(t('error', err.message), 'error');
    return null;
  }
}
