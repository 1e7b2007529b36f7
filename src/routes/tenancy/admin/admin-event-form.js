// The event form (POST /api/events, PUT /api/events/:id with event_data) and the cancel form
// (PUT /api/events/:id/cancel with a reason). Dates are entered in the tenant's time zone.
import { api } from './admin-dom.js';
import { entityForm } from './admin-forms.js';
import { indented, lookups } from './admin-lookups.js';
import { localInput } from './admin-time.js';

/** Types an event can train (the API refuses others with a 420). */
const EVENT_TYPES = new Set(['course', 'ecourse']);

function valuesOf(e) {
  const v = { ...e };
  for (const k of ['startdate', 'enddate', 'signon_opens', 'signon_closes']) v[k] = localInput(e[k]);
  for (const [name, value] of Object.entries(e.custom_attributes ?? {})) v[`custom_attributes.${name}`] = value;
  return v;
}

/**
 * A new event (`event` undefined; `parent`: the course event a module event belongs to) or an
 * edit of one (full view). `onSaved(event, message)` after a 200.
 */
export async function eventForm({ event, parent, defaults = {}, onSaved, onClose }) {
  const [competences, locations, organisations, custom] = await Promise.all([
    lookups.competences(),
    lookups.locations(),
    lookups.organisations(),
    lookups.customAttributes('event'),
  ]);
  const editing = !!event;
  const parentCompetence = parent && competences.find((c) => c.competence_id === parent.competence_id);
  const choices = parent
    ? (parentCompetence?.children ?? []).filter((c) => c.type === 'module')
    : competences.filter(
        (c) => (editing && c.competence_id === event.competence_id) || (EVENT_TYPES.has(c.type) && c.active) || (event?.parent_id && c.type === 'module'),
      );
  const values = editing ? valuesOf(event) : { ...defaults, ...(parent ? { parent_id: parent.event_id } : {}) };
  const fields = [
    {
      name: 'competence_id',
      label: parent ? 'Module' : 'Course',
      type: 'select',
      numeric: true,
      required: true,
      options: [{ value: '', label: '(choose)' }, ...choices.map((c) => ({ value: c.competence_id, label: `${c.title} (${c.type})` }))],
    },
    { name: 'title', label: 'Title', maxlength: '200', hint: editing ? undefined : "empty: the course's title" },
    { name: 'startdate', label: 'Starts', type: 'datetime-local', required: true },
    { name: 'enddate', label: 'Ends', type: 'datetime-local', required: true },
    {
      name: 'location_id',
      label: 'Location',
      type: 'select',
      numeric: true,
      options: [
        { value: '', label: '(none)' },
        ...locations.map((l) => ({ value: l.location_id, label: l.capacity === null ? l.name : `${l.name} (${l.capacity} seats)` })),
      ],
    },
    { name: 'max_participants', label: 'Seats (empty: no limit)', type: 'number', min: '1', step: '1', inputmode: 'numeric' },
    { name: 'instructor_user_name', label: 'Instructor (user name)', autocomplete: 'off' },
    {
      name: 'host_organisation_id',
      label: 'Hosted by (empty: open to every organisation)',
      type: 'select',
      numeric: true,
      options: [{ value: '', label: '(every organisation)' }, ...organisations.map((o) => ({ value: o.organisation_id, label: indented(o.depth, o.name) }))],
    },
    { name: 'signon_opens', label: 'Sign-on opens', type: 'datetime-local' },
    { name: 'signon_closes', label: 'Sign-on closes (empty: when it starts)', type: 'datetime-local' },
    { name: 'min_age', label: 'Minimum age', type: 'number', min: '0', step: '1', inputmode: 'numeric' },
    { name: 'description', label: 'Description', type: 'textarea' },
    ...custom.map((d) => ({
      name: `custom_attributes.${d.name}`,
      label: d.label || d.name,
      type: d.type === 'boolean' ? 'checkbox' : d.type === 'number' ? 'number' : 'text',
      step: d.type === 'number' ? 'any' : undefined,
    })),
  ];
  return entityForm({
    id: editing ? `event-form-${event.event_id}` : parent ? `event-form-in-${parent.event_id}` : 'event-form',
    heading: editing ? `Edit ${event.title}` : parent ? `New module event of ${parent.title}` : 'New event',
    prefix: 'event_data',
    fields,
    values,
    editing,
    submitLabel: editing ? 'Save event' : 'Create event',
    onClose,
    onSubmit: (body) => {
      if (editing) return api('PUT', `/api/events/${event.event_id}`, { event_data: body });
      return api('POST', '/api/events', { event_data: parent ? { ...body, parent_id: parent.event_id } : body });
    },
    onDone: (data) => onSaved(data.events[0], data.message),
  });
}

/** Asks for the reason (optional; participants are told it) before PUT /api/events/:id/cancel. */
export function cancelForm({ event, onDone, onClose }) {
  return entityForm({
    id: `cancel-form-${event.event_id}`,
    heading: `Cancel ${event.title}`,
    prefix: 'event_data',
    fields: [{ name: 'reason', label: 'Reason (sent to the participants and the wait list)', type: 'textarea', maxlength: '2000' }],
    submitLabel: 'Cancel event',
    closeLabel: 'Keep event',
    onClose,
    onSubmit: (body) => api('PUT', `/api/events/${event.event_id}/cancel`, body),
    onDone: (data) => onDone(data),
  });
}
