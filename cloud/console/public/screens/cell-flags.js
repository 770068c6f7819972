// A cell's flags with who set each, why and when: the locker page's cell panel and the
// technician's cell dialog show them alike.
import { ageOf, formatAge, formatTime, html } from '../components.js';
import { nameOf, t } from '../i18n.js';

/**
 * Why a flag is set, in the operator's language: the locker's own reasons are fixed words; an
 * operator's is a purpose of the preset list (translated) or their own words.
 */
const markReason = (mark) => (mark.setBy === 'locker' ? t(`lockerFlagReasons.${mark.reason}`) : nameOf('openReasons', mark.reason));

/** The cell's current flags, each with who set it, why and when (flags without a mark came from the fleet file). */
export function FlagList({ flags, marks }) {
  if (flags.length === 0) return '—';
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
