// The calendar's month view: a week-per-row table (Monday first) with each day's events as
// buttons; choosing one shows its card (seats, actions) under the table. On a phone the table
// becomes a list of the days that have events (admin.css), so the page never scrolls sideways.
import { el, uid } from './admin-dom.js';
import { addDays, dayName, localDay, localTime, monthName, monthStart, showSpan } from './admin-time.js';

const WEEKDAYS = [
  ['Mon', 'Monday'],
  ['Tue', 'Tuesday'],
  ['Wed', 'Wednesday'],
  ['Thu', 'Thursday'],
  ['Fri', 'Friday'],
  ['Sat', 'Saturday'],
  ['Sun', 'Sunday'],
];

/** Which days of the month each event covers (a two-day course shows on both). */
function byDay(events, first, next) {
  const days = new Map();
  for (const e of events) {
    let day = localDay(e.startdate);
    const last = localDay(e.enddate);
    for (let guard = 0; day <= last && guard < 62; guard++, day = addDays(day, 1)) {
      if (day < first || day >= next) continue;
      days.set(day, [...(days.get(day) ?? []), e]);
    }
  }
  return days;
}

/** `opts.move(n)`: show the month n away; `opts.card(event)`: the event's card (admin-calendar.js). */
export function drawMonth(container, first, events, opts) {
  const next = monthStart(first, 1);
  const days = byDay(events, first, next);
  const titleId = uid('month');
  const detail = el('div', { class: 'month-detail', id: 'calendar-month-detail' });
  const show = (e, chip) => {
    const heading = el('h4', { tabindex: '-1' }, e.title);
    const card = el('ul', { class: 'tree events' }, opts.card(e));
    detail.replaceChildren(heading, card);
    detail.onkeydown = (ev) => {
      if (ev.key !== 'Escape' || ev.defaultPrevented) return;
      detail.replaceChildren();
      chip.focus();
    };
    heading.focus();
  };
  // Monday of the week holding the first day (getUTCDay: 0 = Sunday)
  const weekday = (new Date(`${first}T12:00:00Z`).getUTCDay() + 6) % 7;
  let day = addDays(first, -weekday);
  const weeks = [];
  while (day < next) {
    const cells = [];
    for (let i = 0; i < 7; i++, day = addDays(day, 1)) {
      const inMonth = day >= first && day < next;
      const list = days.get(day) ?? [];
      cells.push(
        el(
          'td',
          { class: `${inMonth ? '' : 'outside'}${list.length ? ' has-events' : ' no-events'}`, 'data-day': day },
          inMonth ? el('span', { class: 'day-short' }, String(Number(day.slice(8)))) : '',
          inMonth ? el('span', { class: 'day-long' }, dayName(day)) : '',
          list.length
            ? el(
                'ul',
                { class: 'day-events' },
                list.map((e) => {
                  const state = [e.cancelled ? 'cancelled' : '', e.locked ? 'locked' : ''].filter(Boolean).join(', ');
                  const shown = `${localDay(e.startdate) === day ? localTime(e.startdate) : '…'} ${e.title}`;
                  const chip = el(
                    'button',
                    {
                      type: 'button',
                      class: `event-chip${e.cancelled ? ' cancelled' : ''}`,
                      'data-event-id': String(e.event_id),
                      title: shown,
                      'aria-label': `${shown}, ${showSpan(e.startdate, e.enddate)}${state ? `, ${state}` : ''}`,
                      onclick: () => show(e, chip),
                    },
                    shown,
                  );
                  return el('li', {}, chip);
                }),
              )
            : '',
        ),
      );
    }
    weeks.push(el('tr', {}, cells));
  }
  container.replaceChildren(
    el(
      'div',
      { class: 'month-nav' },
      el(
        'button',
        { type: 'button', id: 'calendar-prev-month', 'aria-label': `Previous month, ${monthName(monthStart(first, -1))}`, onclick: () => opts.move(-1) },
        '‹ Previous',
      ),
      el('h4', { id: titleId, 'aria-live': 'polite' }, monthName(first)),
      el('button', { type: 'button', id: 'calendar-next-month', 'aria-label': `Next month, ${monthName(next)}`, onclick: () => opts.move(1) }, 'Next ›'),
    ),
    el(
      'table',
      { class: 'month', 'aria-labelledby': titleId },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          WEEKDAYS.map(([short, long]) => el('th', { scope: 'col', abbr: long }, short)),
        ),
      ),
      el('tbody', {}, weeks),
    ),
    events.length ? '' : el('p', { class: 'meta' }, 'no events this month'),
    detail,
  );
}
