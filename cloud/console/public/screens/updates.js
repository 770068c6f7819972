// Updates: the lockers' agent software (docs/updates.md). Signed releases, rollouts with their
// waves (#/updates/<rolloutId> shows one with each locker's state), and the version each locker
// runs. Pause, resume, abort and a rollback with a signed rollback release go through the reason
// dialog; viewers see no actions (the API refuses them anyway).
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { Badge, Loading, Pager, Time, act, html, useAsync, useCanAct } from '../components.js';
import { t } from '../i18n.js';

const PAGE_SIZE = 50;
/** Which rollout actions each rollout state allows (the API answers 409 to the rest). */
const ACTIONS = { running: ['pause', 'abort'], paused: ['resume', 'abort'], halted: ['resume', 'abort'] };
const STATE_KIND = { running: 'info', paused: 'warning', halted: 'bad', aborted: 'bad', completed: 'ok', confirmed: 'ok', refused: 'bad', failed: 'bad', rolled_back: 'bad', cancelled: 'warning' };

/** `table`: rolloutStates or memberStates. */
const stateBadge = (state, table = 'memberStates') => html`<${Badge} kind=${STATE_KIND[state] ?? 'info'}>${t(`${table}.${state}`)}</${Badge}>`;
const byState = (counts) =>
  Object.entries(counts ?? {})
    .filter(([, n]) => n > 0)
    .map(([state, n]) => html`<span class="chip" data-count-state=${state}>${t(`memberStates.${state}`)} ${n}</span> `);
const size = (bytes) => (bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

function Releases() {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/releases', { page, pageSize: PAGE_SIZE }), [page]);
  return html`<section aria-labelledby="releases-title">
    <h2 id="releases-title">${t('releases')}</h2>
    <${Loading} state=${state}>${(data) => html`<div class="scroll-x" tabindex="0" role="region" aria-labelledby="releases-title"><table class="list" data-releases=${data.total}>
        <thead><tr><th>${t('version')}</th><th>${t('rollbackFrom')}</th><th>${t('size')}</th><th>${t('signingKey')}</th><th>${t('notes')}</th><th>${t('created')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((r) => html`<tr data-release-id=${r.id}>
          <td><strong>${r.version}</strong></td><td>${r.rollbackFrom.join(', ') || '—'}</td><td>${size(r.size)} · ${t('filesCount', r.files)}</td>
          <td class="small">${r.keyId}</td><td>${r.notes ?? ''}</td><td><${Time} value=${r.createdAt} /> ${r.createdBy}</td>
        </tr>`) : html`<tr><td colspan="6" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}</${Loading}>
  </section>`;
}

function Rollouts() {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/rollouts', { page, pageSize: PAGE_SIZE }), [page]);
  return html`<section aria-labelledby="rollouts-title">
    <h2 id="rollouts-title">${t('rollouts')}</h2>
    <${Loading} state=${state}>${(data) => html`<div class="scroll-x" tabindex="0" role="region" aria-labelledby="rollouts-title"><table class="list" data-rollouts=${data.total}>
        <thead><tr><th>${t('rollout')}</th><th>${t('version')}</th><th>${t('state')}</th><th>${t('waveOf')}</th><th>${t('lockersByState')}</th><th>${t('created')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((r) => html`<tr data-rollout-id=${r.id} data-state=${r.state}>
          <td><a href=${`#/updates/${r.id}`}>#${r.id}</a></td><td>${r.release.version}</td><td>${stateBadge(r.state, 'rolloutStates')}</td>
          <td>${r.wave.current + 1} / ${r.wave.of}</td><td>${byState(r.lockers.byState)}</td><td><${Time} value=${r.createdAt} /> ${r.createdBy}</td>
        </tr>`) : html`<tr><td colspan="6" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}</${Loading}>
  </section>`;
}

function Agents() {
  const [page, setPage] = useState(1);
  const state = useAsync(() => get('/agents', { page, pageSize: PAGE_SIZE }), [page]);
  return html`<section aria-labelledby="agents-title">
    <h2 id="agents-title">${t('agentVersions')}</h2>
    <${Loading} state=${state}>${(data) => html`
      <p class="versions">${data.versions.map((v) => html`<span class="chip" data-version-count=${v.version ?? 'unknown'}>${v.version ?? t('unknownVersion')}: ${v.lockers}</span> `)}</p>
      <div class="scroll-x" tabindex="0" role="region" aria-labelledby="agents-title"><table class="list" data-agents=${data.total}>
        <thead><tr><th>${t('locker')}</th><th>${t('status')}</th><th>${t('version')}</th><th>${t('installsReleases')}</th><th>${t('reportedAt')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((a) => html`<tr data-agent-locker=${a.lockerId} data-version=${a.version ?? ''}>
          <td><a href=${`#/lockers/${a.lockerId}`}><strong>${a.lockerId}</strong> ${a.name}</a></td>
          <td><${Badge} kind=${a.online ? 'ok' : 'bad'}>${a.online ? t('online') : t('offline')}</${Badge}></td>
          <td>${a.version ?? t('unknownVersion')}</td><td>${a.updates == null ? '—' : a.updates ? t('yes') : t('no')}</td>
          <td>${a.reportedAt ? html`<${Time} value=${a.reportedAt} />` : '—'}</td>
        </tr>`) : html`<tr><td colspan="5" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}</${Loading}>
  </section>`;
}

export function UpdatesScreen() {
  return html`<main data-screen="updates">
    <h1 class="visually-hidden">${t('updates')}</h1>
    <${Rollouts} />
    <${Releases} />
    <${Agents} />
  </main>`;
}

function Waves({ rollout }) {
  return html`<ol class="waves" data-waves=${rollout.lockers.waves.length}>
    ${rollout.lockers.waves.map((w) => html`<li data-wave=${w.wave} class=${w.wave - 1 === rollout.wave.current ? 'current' : ''}>
      <strong>${t('waveN', w.wave, rollout.waves[w.wave - 1])}</strong> · ${t('total', w.total)}<div>${byState(w.byState)}</div>
    </li>`)}
  </ol>`;
}

function RolloutActions({ rollout, onChanged }) {
  const canAct = useCanAct();
  // The signed rollback releases that may replace this rollout's version (their rollbackFrom names it).
  const releases = useAsync(() => (canAct ? get('/releases', { pageSize: 200 }) : Promise.resolve({ items: [] })), [rollout.id, canAct]);
  if (!canAct) return null;
  const run = async (name) => {
    const answer = await act({ title: t(`rolloutActions.${name}`), run: ({ reason }) => post(`/rollouts/${rollout.id}/${name}`, { reason }) });
    if (answer) onChanged();
  };
  const backs = (releases.data?.items ?? []).filter((r) => r.rollbackFrom.includes(rollout.release.version));
  // As the API: only lockers that switched to the release are taken back.
  const switched = (rollout.lockers.byState.confirmed ?? 0) + (rollout.lockers.byState.switching ?? 0);
  const rollBack = async () => {
    const answer = await act({
      title: t('rolloutActions.rollback'),
      fields: [{ name: 'releaseId', label: t('rollbackRelease'), options: backs.map((r) => [String(r.id), r.version]), value: String(backs[0].id) }],
      run: ({ reason, releaseId }) => post(`/rollouts/${rollout.id}/rollback`, { reason, releaseId: Number(releaseId) }),
    });
    // The rollback is a rollout of its own; this one is aborted.
    if (answer?.id) location.hash = `#/updates/${answer.id}`;
  };
  return html`<div class="actions">
    ${(ACTIONS[rollout.state] ?? []).map((name) => html`<button data-action=${name} onClick=${() => run(name)}>${t(`rolloutActions.${name}`)}</button>`)}
    ${backs.length > 0 && switched > 0 && html`<button data-action="rollback" onClick=${rollBack}>${t('rolloutActions.rollback')}</button>`}
  </div>`;
}

function Members({ rolloutId, version }) {
  const [page, setPage] = useState(1);
  const [state, setState] = useState('');
  const list = useAsync(() => get(`/rollouts/${rolloutId}/lockers`, { state, page, pageSize: PAGE_SIZE }), [rolloutId, state, page, version]);
  return html`<section aria-labelledby="members-title">
    <h2 id="members-title">${t('rolloutLockers')}</h2>
    <div class="filters"><label>${t('state')}
      <select id="member-state" value=${state} onChange=${(e) => { setState(e.currentTarget.value); setPage(1); }}>
        <option value="">${t('any')}</option>
        ${Object.keys(t('memberStates')).map((s) => html`<option value=${s}>${t(`memberStates.${s}`)}</option>`)}
      </select></label></div>
    <${Loading} state=${list}>${(data) => html`<div class="scroll-x" tabindex="0" role="region" aria-labelledby="members-title"><table class="list" data-members=${data.total}>
        <thead><tr><th>${t('locker')}</th><th>${t('wave')}</th><th>${t('state')}</th><th>${t('why')}</th><th>${t('runs')}</th><th>${t('lastChange')}</th></tr></thead>
        <tbody>${data.items.length ? data.items.map((m) => html`<tr data-member=${m.lockerId} data-state=${m.state}>
          <td><a href=${`#/lockers/${m.lockerId}`}><strong>${m.lockerId}</strong> ${m.name ?? ''}</a> <${Badge} kind=${m.online ? 'ok' : 'bad'}>${m.online ? t('online') : t('offline')}</${Badge}></td>
          <td>${m.wave}</td><td>${stateBadge(m.state)}${m.bytes != null ? html` <span class="small">${size(m.bytes)}</span>` : ''}</td>
          <td>${m.reason ?? ''}</td><td>${m.agentVersion ?? t('unknownVersion')}</td>
          <td>${(m.finishedAt ?? m.switchedAt ?? m.offeredAt) ? html`<${Time} value=${m.finishedAt ?? m.switchedAt ?? m.offeredAt} />` : '—'}</td>
        </tr>`) : html`<tr><td colspan="6" class="muted">${t('nothing')}</td></tr>`}</tbody>
      </table></div>
      <${Pager} page=${data.page} pageSize=${data.pageSize} total=${data.total} onPage=${setPage} />`}</${Loading}>
  </section>`;
}

export function RolloutScreen({ rolloutId }) {
  const state = useAsync(() => get(`/rollouts/${rolloutId}`), [rolloutId]);
  return html`<main data-screen="rollout" data-rollout-id=${rolloutId}>
    <a class="back" href="#/updates">${t('backToUpdates')}</a>
    <${Loading} state=${state}>${(r) => html`
      <div class="locker-head"><h1>${t('rolloutTitle', r.id, r.release.version)}</h1> <span data-rollout-state=${r.state}>${stateBadge(r.state, 'rolloutStates')}</span></div>
      ${r.haltReason && html`<p class="error" data-halt-reason>${r.haltReason}</p>`}
      <dl class="facts">
        <dt>${t('target')}</dt><dd>${r.target.kind === 'city' ? r.target.city : r.target.kind === 'lockers' ? t('lockersN', r.target.lockerIds.length) : t('allLockers')}</dd>
        <dt>${t('waveOf')}</dt><dd>${r.wave.current + 1} / ${r.wave.of}</dd>
        <dt>${t('soak')}</dt><dd>${r.soakSeconds} s</dd>
        <dt>${t('healthWindow')}</dt><dd>${r.healthWindowSeconds} s</dd>
        <dt>${t('maxFailures')}</dt><dd>${r.maxFailurePercent}%</dd>
        <dt>${t('created')}</dt><dd><${Time} value=${r.createdAt} /> ${r.createdBy}</dd>
      </dl>
      <${RolloutActions} rollout=${r} onChanged=${state.reload} />
      <${Waves} rollout=${r} />
      <${Members} rolloutId=${r.id} version=${r.updatedAt} />`}</${Loading}>
  </main>`;
}
