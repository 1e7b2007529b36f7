// Locations: where events take place (name, address, seats, position). Create, edit, delete; a
// location events use is refused with the API's 409.
import { $, api, el } from './admin-dom.js';
import { confirmButton, entityForm, openEditor } from './admin-forms.js';
import { forget, lookups } from './admin-lookups.js';

const FIELDS = [
  { name: 'name', label: 'Name', required: true, maxlength: '255' },
  { name: 'address', label: 'Address', maxlength: '500' },
  { name: 'capacity', label: 'Seats', type: 'number', min: '0', step: '1', inputmode: 'numeric' },
  { name: 'latitude', label: 'Latitude (WGS 84)', type: 'number', min: '-90', max: '90', step: 'any' },
  { name: 'longitude', label: 'Longitude (WGS 84)', type: 'number', min: '-180', max: '180', step: 'any' },
];

const say = (text, error = false) => {
  $('#locations-tool .saved').textContent = error ? '' : text;
  $('#locations-tool .error').textContent = error ? text : '';
};

function form(location, close) {
  return entityForm({
    id: location ? `location-form-${location.location_id}` : 'location-form',
    heading: location ? `Edit ${location.name}` : 'New location',
    prefix: 'location_data',
    editing: !!location,
    values: location ?? {},
    fields: FIELDS,
    submitLabel: location ? 'Save location' : 'Create location',
    onClose: close,
    onSubmit: (body) =>
      location ? api('PUT', `/api/locations/${location.location_id}`, { location_data: body }) : api('POST', '/api/locations', { location_data: body }),
    onDone: async (data) => {
      const saved = data.locations?.[0];
      forget('locations');
      $('#location-new-holder').replaceChildren();
      say(data.message ?? 'location saved');
      await draw();
      ((saved && $(`#location-list li[data-location-id="${saved.location_id}"] button.edit`)) || $('#location-new')).focus();
    },
  });
}

function describe(l) {
  const parts = [];
  if (l.address) parts.push(l.address);
  if (l.capacity !== null && l.capacity !== undefined) parts.push(`${l.capacity} seats`);
  if (l.latitude !== null && l.longitude !== null && l.latitude !== undefined) parts.push(`${l.latitude}, ${l.longitude}`);
  return parts.join(' · ');
}

async function draw() {
  const rows = await lookups.locations();
  const list = $('#location-list');
  list.replaceChildren(
    ...rows.map((l) => {
      const holder = el('div', { class: 'editor-holder' });
      const edit = el(
        'button',
        { type: 'button', class: 'edit', 'aria-label': `Edit ${l.name}`, onclick: () => openEditor(holder, (close) => form(l, close), edit) },
        'Edit',
      );
      const del = confirmButton(
        'Delete',
        `location ${l.name}`,
        async () => {
          const { status, data } = await api('DELETE', `/api/locations/${l.location_id}`);
          if (status !== 200) return say(data.message, true);
          forget('locations');
          say(data.message ?? `location ${l.name} deleted`);
          await draw();
          $('#location-new').focus();
        },
        { class: 'delete' },
      );
      return el(
        'li',
        { 'data-location-id': String(l.location_id) },
        el(
          'div',
          { class: 'node' },
          el('span', { class: 'title' }, l.name),
          el('span', { class: 'meta' }, describe(l)),
          el('span', { class: 'actions' }, edit, del),
        ),
        holder,
      );
    }),
  );
  if (rows.length === 0) list.append(el('li', { class: 'meta' }, 'no locations yet'));
}

export async function showLocations() {
  const holder = el('div', { class: 'editor-holder', id: 'location-new-holder' });
  const newButton = el(
    'button',
    { type: 'button', id: 'location-new', onclick: () => openEditor(holder, (close) => form(null, close), newButton) },
    'New location',
  );
  $('#locations').replaceChildren(
    el(
      'article',
      { class: 'item tool', id: 'locations-tool', 'aria-labelledby': 'h-locations' },
      el('h3', { id: 'h-locations' }, 'Locations'),
      el(
        'p',
        { class: 'description' },
        'Where events take place. Seats limit the participants of an event there; two events cannot use a location at the same time.',
      ),
      el('div', { class: 'toolbar' }, newButton),
      holder,
      el('p', { class: 'error', role: 'alert' }),
      el('p', { class: 'saved', role: 'status' }),
      el('ul', { class: 'tree flat', id: 'location-list', 'aria-label': 'Locations' }),
    ),
  );
  await draw();
}
