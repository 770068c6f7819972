// A technician's service code for one locker (POST /operator/lockers/:id/service-codes): issued
// after the reason dialog and shown here once, until the operator hides it or leaves the page.
// The cloud keeps no copy, so the page is the only place to read it.
import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { act, formatTime, html, useCanAct } from '../components.js';
import { t } from '../i18n.js';

export function ServiceCodeButton({ lockerId }) {
  const canAct = useCanAct();
  const [issued, setIssued] = useState(null);
  if (!canAct) return null;
  const issue = async () => {
    const answer = await act({
      title: t('serviceCode'),
      fields: [{ name: 'minutes', label: t('serviceCodeMinutes'), type: 'number', min: 5, max: 720, value: '60' }],
      run: ({ minutes, reason }) => post(`/lockers/${lockerId}/service-codes`, { minutes: Number(minutes), reason }),
    });
    if (answer?.code) setIssued(answer);
  };
  return html`<span class="service-code">
    <button data-action="service-code" onClick=${issue}>${t('serviceCode')}</button>
    ${issued &&
    html`<span role="status" data-service-code=${issued.code}>
      ${t('serviceCodeIs')} <strong class="service-code-value">${issued.code}</strong>, ${t('serviceCodeUntil', formatTime(new Date(issued.validUntil).toISOString()))}
      <button type="button" data-action="hide-service-code" onClick=${() => setIssued(null)}>${t('hideCode')}</button>
    </span>`}
  </span>`;
}
