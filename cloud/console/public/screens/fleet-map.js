// The fleet on a map drawn from the lockers' own coordinates (GET /operator/fleet/map): inline SVG,
// Web-Mercator fitted to the network's bounding box, no tiles or base layer from anywhere, so it
// works offline and owes no attribution. Each locker is a link to its page, coloured by state, with
// its fill rate; the list beside it says the same in words. Sandbox lockers stay off the map, in a
// small group of their own.
import { html } from '../components.js';
import { t } from '../i18n.js';

const WIDTH = 800;
/** The drawing's height follows the network's shape, within these. */
const MIN_HEIGHT = 220;
const MAX_HEIGHT = 450;
const PAD = 48;
/** Labels under the markers only while they can be read. */
const LABELS_UP_TO = 40;
/** The least span (radians, about 1 km) fitted, so one locker or a single street does not blow up. */
const MIN_SPAN = 0.00016;

/** Open alerts first, then presence: what the operator should look at first. */
export const stateOf = (l) => (l.openAlerts > 0 ? 'alerts' : l.online ? 'online' : 'offline');

const stateText = (l) => (l.openAlerts > 0 ? t('mapAlerts', l.openAlerts) : l.online ? t('online') : t('offline'));
const fillText = (l) => (l.fill.percent == null ? t('mapNoUsable') : t('mapFill', l.fill.percent, l.fill.occupied, l.fill.usable));

/** Web-Mercator x, y (radians) of a locker. */
const mercator = (l) => {
  const lat = (Math.max(-85, Math.min(85, l.latitude)) * Math.PI) / 180;
  return [(l.longitude * Math.PI) / 180, Math.log(Math.tan(Math.PI / 4 + lat / 2))];
};

/**
 * The drawing's height and the lockers' positions in it: the bounding box fitted into the drawing,
 * one scale for both axes, north up.
 */
export function project(lockers) {
  if (lockers.length === 0) return { height: MIN_HEIGHT, at: [] };
  const points = lockers.map(mercator);
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const spanX = Math.max(maxX - minX, MIN_SPAN);
  const spanY = Math.max(maxY - minY, MIN_SPAN);
  const height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, (spanY / spanX) * (WIDTH - 2 * PAD) + 2 * PAD)));
  const scale = Math.min((WIDTH - 2 * PAD) / spanX, (height - 2 * PAD) / spanY);
  const [midX, midY] = [(minX + maxX) / 2, (minY + maxY) / 2];
  return { height, at: points.map(([x, y]) => [WIDTH / 2 + (x - midX) * scale, height / 2 - (y - midY) * scale]) };
}

function Marker({ l, at, label }) {
  const [x, y] = at;
  const name = `${t('locker')} ${l.lockerId} ${l.name}: ${stateText(l)}, ${fillText(l)}`;
  return html`<a href=${`#/lockers/${l.lockerId}`} class=${`marker marker-${stateOf(l)}`} data-marker=${l.lockerId} data-state=${stateOf(l)} aria-label=${name}>
    <title>${name}</title>
    <circle cx=${x.toFixed(1)} cy=${y.toFixed(1)} r="9" />
    ${label && html`<text x=${x.toFixed(1)} y=${y.toFixed(1)} dy="1.8em" text-anchor="middle">${l.fill.percent == null ? '—' : `${l.fill.percent}%`}</text>`}
  </a>`;
}

function ListItem({ l }) {
  return html`<li data-map-item=${l.lockerId}>
    <span class=${`dot marker-${stateOf(l)}`} aria-hidden="true"></span>
    <a href=${`#/lockers/${l.lockerId}`}><strong>${l.lockerId}</strong> ${l.name}</a>
    <span class="muted small"> · ${stateText(l)} · ${fillText(l)}</span>
  </li>`;
}

export function FleetMap({ data }) {
  const real = data.items.filter((l) => !l.sandbox);
  const sandbox = data.items.filter((l) => l.sandbox);
  const { height, at } = project(real);
  const labels = real.length <= LABELS_UP_TO;
  return html`<section class="fleet-map" data-map aria-labelledby="fleet-map-title">
    <h2 id="fleet-map-title">${t('mapTitle')}</h2>
    <div class="map-body">
      <figure class="map-figure">
        <svg viewBox=${`0 0 ${WIDTH} ${height}`} class="map-svg" data-map-svg aria-labelledby="fleet-map-caption">
          <rect class="map-ground" x="0" y="0" width=${WIDTH} height=${height} rx="8" />
          ${real.map((l, i) => html`<${Marker} key=${l.lockerId} l=${l} at=${at[i]} label=${labels} />`)}
        </svg>
        <figcaption id="fleet-map-caption" class="small muted">
          <span class="map-key"><span class="dot marker-online" aria-hidden="true"></span>${t('online')}</span>
          <span class="map-key"><span class="dot marker-offline" aria-hidden="true"></span>${t('offline')}</span>
          <span class="map-key"><span class="dot marker-alerts" aria-hidden="true"></span>${t('openAlerts')}</span>
          <span> · ${t('mapNote')}</span>
          ${data.total > data.items.length && html`<span> · ${t('mapCut', data.items.length, data.total)}</span>`}
        </figcaption>
      </figure>
      <div class="map-list" tabindex="0" role="region" aria-label=${t('mapListTitle')}>
        <h3>${t('mapListTitle')}</h3>
        <ul data-map-list>${real.length ? real.map((l) => html`<${ListItem} key=${l.lockerId} l=${l} />`) : html`<li class="muted">${t('nothing')}</li>`}</ul>
        ${sandbox.length > 0 && html`<div data-map-sandbox>
          <h3>${t('sandboxSection')}</h3>
          <ul>${sandbox.map((l) => html`<${ListItem} key=${l.lockerId} l=${l} />`)}</ul>
        </div>`}
      </div>
    </div>
  </section>`;
}
