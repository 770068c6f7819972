// The console's shell: sign-in, the header (screens, language, live status, sign-out) and the
// hash router (#/fleet, #/lockers/101, #/orders, #/orders/<id>, #/notifications, #/alerts, #/audit, #/updates, #/updates/<rolloutId>, #/reports).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, onUnauthorized, setCsrfToken } from './api.js';
import { DialogHost, SessionContext, ToastHost, html } from './components.js';
import { LANGUAGES, language, setLanguage, t } from './i18n.js';
import { onLiveStatus, startLive, stopLive } from './live.js';
import { AlertsScreen } from './screens/alerts.js';
import { AuditScreen } from './screens/audit.js';
import { CellsScreen } from './screens/cells.js';
import { FleetScreen } from './screens/fleet.js';
import { LockerScreen } from './screens/locker.js';
import { NotificationsScreen } from './screens/notifications.js';
import { OrderScreen, OrdersScreen } from './screens/orders.js';
import { ReportsScreen } from './screens/reports.js';
import { RolloutScreen, UpdatesScreen } from './screens/updates.js';

const SCREENS = ['fleet', 'orders', 'notifications', 'alerts', 'updates', 'audit', 'reports'];

function parseHash() {
  const [path, qs] = (location.hash.replace(/^#/, '') || '/fleet').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(qs ?? '') };
}

function useRoute() {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const onHash = () => setRoute(parseHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

function Screen({ route }) {
  const [name, id] = route.parts;
  switch (name) {
    case 'lockers':
      return id ? html`<${LockerScreen} lockerId=${id} initialCell=${Number(route.params.get('cell')) || null} />` : html`<${FleetScreen} />`;
    case 'cells':
      return html`<${CellsScreen} key=${route.params.toString()} params=${route.params} />`;
    case 'orders':
      return id ? html`<${OrderScreen} orderId=${id} />` : html`<${OrdersScreen} initialQuery=${route.params.get('query') ?? ''} />`;
    case 'notifications':
      return html`<${NotificationsScreen} />`;
    case 'alerts':
      return html`<${AlertsScreen} />`;
    case 'audit':
      return html`<${AuditScreen} key=${route.params.toString()} params=${route.params} />`;
    case 'updates':
      return id ? html`<${RolloutScreen} rolloutId=${id} />` : html`<${UpdatesScreen} />`;
    case 'reports':
      return html`<${ReportsScreen} />`;
    default:
      return html`<${FleetScreen} key=${route.params.toString()} initialStatus=${route.params.get('status') ?? ''} />`;
  }
}

function LiveIndicator() {
  const [live, setLive] = useState(false);
  useEffect(() => onLiveStatus(setLive), []);
  return html`<span class=${`live ${live ? 'live-on' : 'live-off'}`} data-live=${live ? 'on' : 'off'}>${live ? t('live') : t('reconnecting')}</span>`;
}

function LanguageSwitch({ onChange }) {
  return html`<span class="langs" aria-label=${t('language')}>
    ${LANGUAGES.map(
      (l) => html`<button class=${l === language() ? 'active' : ''} data-lang=${l} onClick=${() => onChange(l)}>${l.toUpperCase()}</button>`,
    )}
  </span>`;
}

function SignIn({ onSignedIn, notice, onLanguage }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(notice);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api('POST', '/session', { body: { key } }));
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? t('wrongKey') : t('error', err.message));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin" data-screen="signin">
    <form onSubmit=${submit}>
      <h1>${t('signInTitle')}</h1>
      <${LanguageSwitch} onChange=${onLanguage} />
      <label>${t('operatorKey')}<input id="operator-key" type="password" autocomplete="current-password" required value=${key} onInput=${(e) => setKey(e.currentTarget.value)} /></label>
      ${error && html`<div class="error" role="alert">${error}</div>`}
      <button class="primary" type="submit" data-action="sign-in" disabled=${busy}>${t('signIn')}</button>
    </form>
  </main>`;
}

function App() {
  const [session, setSession] = useState(undefined);
  const [notice, setNotice] = useState(null);
  const [, setLang] = useState(language());
  const route = useRoute();

  const changeLanguage = (l) => {
    setLanguage(l);
    setLang(l);
  };
  const signedIn = (s) => {
    setCsrfToken(s.csrfToken);
    setNotice(null);
    setSession(s);
  };
  const signedOut = (why) => {
    setCsrfToken(null);
    stopLive();
    setNotice(why);
    setSession(null);
  };

  useEffect(() => {
    document.title = t('title');
    api('GET', '/session').then(signedIn, () => setSession(null));
    return onUnauthorized(() => signedOut(t('sessionEnded')));
  }, []);
  useEffect(() => {
    if (session) startLive();
  }, [session]);

  if (session === undefined) return html`<div class="muted">${t('loading')}</div>`;
  if (!session) return html`<${SignIn} onSignedIn=${signedIn} notice=${notice} onLanguage=${changeLanguage} />`;

  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    signedOut(null);
  };
  const current = route.parts[0] === 'lockers' || route.parts[0] === 'cells' ? 'fleet' : route.parts[0] ?? 'fleet';
  return html`<${SessionContext.Provider} value=${session}>
    <header class="top">
      <strong class="brand">${t('title')}</strong>
      <nav>
        ${SCREENS.map((s) => html`<a href=${`#/${s}`} class=${current === s ? 'active' : ''} data-nav=${s}>${t(s)}</a>`)}
      </nav>
      <span class="spacer"></span>
      <${LiveIndicator} />
      <${LanguageSwitch} onChange=${changeLanguage} />
      <span class="who" data-role=${session.role}>${t('signedInAs', session.operator, session.role)}</span>
      <button data-action="sign-out" onClick=${signOut}>${t('signOut')}</button>
    </header>
    ${session.role !== 'operator' && html`<div class="viewer-note">${t('viewerNote')}</div>`}
    <${Screen} route=${route} />
    <${DialogHost} />
    <${ToastHost} />
  </${SessionContext.Provider}>`;
}

render(html`<${App} />`, document.getElementById('root'));
