// Calendar: events (GET /api/events with startdate/enddate, cancelled ones included, full view) as
// a list or a month (admin-month.js), filtered by course, location (by the API) and instructor
// (here: the list has no instructor filter); create, edit, cancel with a reason, uncancel, lock,
// unlock and delete; seats taken and the wait list of each; the participants' results (admin-results.js).
import { $, api, el, field } from './admin-dom.js';
import { allPages, confirmButton, openEditor } from './admin-forms.js';
import { cancelForm, eventForm } from './admin-event-form.js';
import { lookups, onForget } from './admin-lookups.js';
import { addDays, showSpan, today, monthStart } from './admin-time.js';
import { drawMonth } from './admin-month.js';
import { resultsForm } from './admin-results.js';

const state = { view: 'list', month: null, listening: false };

const say = (text, error = false) => {
  $('#calendar-status').textContent = error ? '' : text;
  $('#calendar-error').textContent = error ? text : '';
};

/** "3 of 10 seats taken · 7 free · 2 on the wait list" from participants, max_participants, places and waitlist. */
export function seats(e) {
  const parts = [e.max_participants === null ? `${e.participants} signed on (no seat limit)` : `${e.participants} of ${e.max_participants} seats taken`];
  if (e.places !== null && e.places !== undefined) parts.push(`${e.places} free`);
  parts.push(`${e.waitlist} on the wait list`);
  return parts.join(' · ');
}

/** The API's filters of the form; `range` gives startdate and enddate (enddate exclusive). */
function query(range) {
  const f = new FormData($('#calendar-filter'));
  const q = new URLSearchParams({ view: 'full', startdate: range.from, enddate: range.to });
  if (f.get('cancelled')) q.set('cancelled', '1');
  for (const k of ['competence_id', 'location_id']) if (f.get(k)) q.set(k, String(f.get(k)));
  return q;
}

async function events(range) {
  const instructor = String(new FormData($('#calendar-filter')).get('instructor') ?? '').trim().toLowerCase();
  const rows = await allPages(api, `/api/events?${query(range)}`, 'events', 500);
  return instructor ? rows.filter((e) => (e.instructor_user_name ?? '').toLowerCase() === instructor) : rows;
}

/** After a change: the visible view is read again and focus goes to `focus` of the event's card, if it is still shown. */
async function changed(message, eventId, focus = 'button.edit') {
  $('#event-new-holder').replaceChildren();
  say(message);
  await reload();
  const card = eventId && document.querySelector(`#calendar li.event[data-event-id="${eventId}"]`);
  ((card && card.querySelector(`:scope > .node ${focus}`)) || (card && card.querySelector(':scope > .node button')) || $('#event-new')).focus();
}

async function act(e, method, path, body, focus) {
  const { status, data } = await api(method, `/api/events/${e.event_id}${path}`, body);
  if (status !== 200) return say(data.message, true);
  await changed(data.message ?? 'done', e.event_id, focus);
}

/** One event with its seats, state and actions; module events nested. */
export function eventCard(e, isModule = false) {
  const holder = el('div', { class: 'editor-holder' });
  const name = e.title;
  const edit = el('button', { type: 'button', class: 'edit', 'aria-label': `Edit ${name}`, onclick: async () => {
    const { status, data } = await api('GET', `/api/events/${e.event_id}?view=full`);
    if (status !== 200) return say(data.message, true);
    await openEditor(holder, (close) => eventForm({ event: data.events[0], onClose: close, onSaved: (saved, message) => changed(message ?? 'event saved', saved.event_id) }), edit);
  } }, 'Edit');
  const cancel = e.cancelled
    ? el('button', { type: 'button', class: 'uncancel', 'aria-label': `Uncancel ${name}`, onclick: () => act(e, 'PUT', '/uncancel', undefined, 'button.cancel') }, 'Uncancel')
    : el('button', { type: 'button', class: 'cancel', 'aria-label': `Cancel event ${name}`,
      onclick: () => openEditor(holder, (close) => cancelForm({ event: e, onClose: close, onDone: (data) => changed(data.message ?? 'event cancelled', e.event_id, 'button.uncancel') }), cancel) }, 'Cancel event');
  // a cancelled event has nobody to lock out and gets no new module events; uncancel first
  const lock = e.cancelled ? '' : e.locked
    ? el('button', { type: 'button', class: 'unlock', 'aria-label': `Unlock ${name}`, onclick: () => act(e, 'PUT', '/unlock', undefined, 'button.lock') }, 'Unlock')
    : el('button', { type: 'button', class: 'lock', 'aria-label': `Lock ${name}`, onclick: () => act(e, 'PUT', '/lock', undefined, 'button.unlock') }, 'Lock');
  const addModule = !isModule && !e.cancelled && e.parent_id === null
    ? el('button', { type: 'button', class: 'add-module', 'aria-label': `Add module event to ${name}`,
      onclick: () => openEditor(holder, (close) => eventForm({ parent: e, onClose: close, onSaved: (saved, message) => changed(message ?? 'event created', saved.event_id) }), addModule) }, 'Add module event')
    : '';
  const del = confirmButton('Delete', name, async () => {
    const { status, data } = await api('DELETE', `/api/events/${e.event_id}`);
    if (status !== 200) return say(data.message, true);
    await changed(data.message ?? 'event deleted');
  }, { class: 'delete' });
  // results and attendance of the signed-on persons (admin-results.js); the API says from when (the event's start)
  const results = e.cancelled ? '' : el('button', { type: 'button', class: 'participants', 'aria-label': `Participants and results of ${name}`,
    onclick: () => openEditor(holder, (close) => resultsForm(e, close), results) }, 'Participants');
  const where = [e.location_name, e.instructor_user_name ? `instructor ${e.instructor_user_name}` : null].filter(Boolean).join(' · ');
  return el('li', { class: `event${e.cancelled ? ' cancelled' : ''}${e.locked ? ' locked' : ''}`, 'data-event-id': String(e.event_id) },
    el('div', { class: 'node' },
      el('span', { class: 'title' }, name),
      e.cancelled ? el('span', { class: 'badge off' }, 'cancelled') : '',
      e.locked ? el('span', { class: 'badge' }, 'locked') : '',
      el('span', { class: 'meta when' }, showSpan(e.startdate, e.enddate)),
      where ? el('span', { class: 'meta where' }, where) : '',
      el('span', { class: 'meta seats' }, seats(e)),
      el('span', { class: 'actions' }, results, edit, cancel, lock, addModule, del)),
    holder,
    (e.children ?? []).length ? el('ul', { class: 'tree events', 'aria-label': `Module events of ${name}` }, e.children.map((c) => eventCard(c, true))) : '');
}

async function drawList() {
  const f = new FormData($('#calendar-filter'));
  const from = String(f.get('from') || today());
  const to = addDays(String(f.get('to') || addDays(from, 180)), 1);
  const rows = await events({ from, to });
  $('#calendar-list').replaceChildren(...rows.map((e) => eventCard(e)));
  if (rows.length === 0) $('#calendar-list').append(el('li', { class: 'meta' }, 'no events in this period'));
  $('#calendar-count').textContent = `${rows.length} event${rows.length === 1 ? '' : 's'}`;
}

export async function reload() {
  const list = state.view === 'list';
  $('#calendar-list-box').hidden = !list;
  $('#calendar-month').hidden = list;
  $('#calendar-range').hidden = !list;
  $('#calendar-list-view').setAttribute('aria-pressed', String(list));
  $('#calendar-month-view').setAttribute('aria-pressed', String(!list));
  if (list) return drawList();
  const from = state.month;
  return drawMonth($('#calendar-month'), from, await events({ from, to: monthStart(from, 1) }), {
    move: (n) => { state.month = monthStart(state.month, n); return reload(); },
    card: (e) => eventCard(e),
  });
}

async function filterForm() {
  const [competences, locations] = await Promise.all([lookups.competences(), lookups.locations()]);
  const courses = competences.filter((c) => c.type === 'course' || c.type === 'ecourse');
  const from = today();
  return el('form', { id: 'calendar-filter', class: 'inline-fields', onsubmit: (ev) => { ev.preventDefault(); reload(); } },
    el('span', { id: 'calendar-range', class: 'inline-fields' },
      field('From', el('input', { name: 'from', type: 'date', value: from })),
      field('To (inclusive)', el('input', { name: 'to', type: 'date', value: addDays(from, 180) }))),
    field('Course', el('select', { name: 'competence_id' }, el('option', { value: '' }, 'all'), courses.map((c) => el('option', { value: String(c.competence_id) }, c.title)))),
    field('Location', el('select', { name: 'location_id' }, el('option', { value: '' }, 'all'), locations.map((l) => el('option', { value: String(l.location_id) }, l.name)))),
    field('Instructor (user name)', el('input', { name: 'instructor', autocomplete: 'off' })),
    el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'cancelled', checked: true }), 'show cancelled'),
    el('button', { type: 'submit' }, 'Show'));
}

export async function showCalendar() {
  state.view = 'list';
  state.month = monthStart(today());
  const holder = el('div', { class: 'editor-holder', id: 'event-new-holder' });
  const newButton = el('button', { type: 'button', id: 'event-new', onclick: () => openEditor(holder, (close) =>
    eventForm({ onClose: close, onSaved: (saved, message) => changed(message ?? `event ${saved.event_id} created`, saved.event_id) }), newButton) }, 'New event');
  const viewButton = (id, view, text) => el('button', { type: 'button', id, 'aria-pressed': 'false', onclick: () => { state.view = view; reload(); } }, text);
  $('#calendar-body').replaceChildren(
    el('article', { class: 'item tool', id: 'calendar-tool', 'aria-labelledby': 'h-events' },
      el('h3', { id: 'h-events' }, 'Events'),
      el('p', { class: 'description' }, 'Upcoming course events with their seats and wait list. Times are in the organisation\'s time zone. Cancelling tells every participant and the wait list.'),
      await filterForm(),
      el('div', { class: 'toolbar' },
        el('span', { role: 'group', 'aria-label': 'View', class: 'view-switch' }, viewButton('calendar-list-view', 'list', 'List'), viewButton('calendar-month-view', 'month', 'Month')),
        newButton),
      holder,
      el('p', { class: 'error', id: 'calendar-error', role: 'alert' }),
      el('p', { class: 'saved', id: 'calendar-status', role: 'status' }),
      el('div', { id: 'calendar-list-box' },
        el('p', { class: 'meta', id: 'calendar-count', 'aria-live': 'polite' }),
        el('ul', { class: 'tree events', id: 'calendar-list', 'aria-label': 'Events' })),
      el('div', { id: 'calendar-month', hidden: true })));
  // new courses and locations appear in the pickers once the catalogue changes them
  if (!state.listening) onForget(async (keys) => {
    if (keys.length && !keys.some((k) => k === 'competences' || k === 'locations')) return;
    const fresh = await filterForm();
    const old = $('#calendar-filter');
    for (const name of ['from', 'to', 'competence_id', 'location_id', 'instructor']) fresh.elements[name].value = old.elements[name].value;
    fresh.elements.cancelled.checked = old.elements.cancelled.checked;
    old.replaceWith(fresh);
  });
  state.listening = true;
  await reload();
}
