// The persons of the chosen organisation (People section): GET /api/persons with organisation_id,
// recursive, state (active | deactivated | all) and term (user name, names, e-mail, employee code),
// full view (it carries `deactivated`), 50 a page; deactivate / reactivate after confirming
// (PUT /api/persons/:user_name/deactivate | /reactivate), the API's message shown; "Language and
// notices" opens the person's language and notification preferences below the list.
import { api, el, field, scroller } from './admin-dom.js';
import { confirmButton } from './admin-forms.js';
import { showPersonMessages } from './admin-person-messages.js';

const PAGE = 50;

/** Draws the person list of `organisation` into `box` (its filter survives a redraw of the list). */
export async function showPersons(box, organisation) {
  const state = { offset: 0 };
  const error = el('p', { class: 'error', id: 'person-error', role: 'alert' });
  const status = el('p', { class: 'saved', id: 'person-status', role: 'status' });
  const count = el('p', { class: 'meta', id: 'person-count', 'aria-live': 'polite' });
  const body = el('tbody');
  const pager = el('div', { class: 'pager' });
  const messages = el('div', { id: 'person-messages-box' });
  const filter = el(
    'form',
    {
      id: 'person-filter',
      class: 'inline-fields',
      role: 'search',
      'aria-label': `Persons of ${organisation.name}`,
      onsubmit: (ev) => {
        ev.preventDefault();
        state.offset = 0;
        draw();
      },
    },
    field('Search (name, user name, e-mail)', el('input', { name: 'term', type: 'search', autocomplete: 'off' })),
    field(
      'State',
      el(
        'select',
        { name: 'state' },
        el('option', { value: 'active' }, 'active'),
        el('option', { value: 'deactivated' }, 'deactivated'),
        el('option', { value: 'all' }, 'all'),
      ),
    ),
    el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'recursive' }), 'with the organisations below'),
    el('button', { type: 'submit' }, 'Show persons'),
  );

  const query = () => {
    const f = new FormData(filter);
    const q = new URLSearchParams({
      organisation_id: String(organisation.organisation_id),
      view: 'full',
      state: String(f.get('state')),
      limit: String(PAGE + 1),
      offset: String(state.offset),
    });
    const term = String(f.get('term') ?? '').trim();
    if (term) q.set('term', term);
    if (f.get('recursive')) q.set('recursive', '1');
    return q;
  };

  /** Deactivate or reactivate `p`; focus then goes to the row's other button, or the search field when the row left the list. */
  const lifecycle = (p, action) =>
    confirmButton(
      action === 'deactivate' ? 'Deactivate' : 'Reactivate',
      p.user_name,
      async () => {
        const { status: s, data } = await api('PUT', `/api/persons/${encodeURIComponent(p.user_name)}/${action}`);
        if (s !== 200) {
          error.textContent = data.message;
          status.textContent = '';
          return;
        }
        error.textContent = '';
        status.textContent = data.message ?? `${p.user_name} ${action}d`;
        await draw();
        (body.querySelector(`tr[data-user-name="${CSS.escape(p.user_name)}"] button.lifecycle`) ?? filter.elements.term).focus();
      },
      { class: `lifecycle ${action}` },
    );

  const row = (p) => {
    const name = [p.firstname, p.lastname].filter(Boolean).join(' ') || p.user_name;
    return el(
      'tr',
      { 'data-user-name': p.user_name, class: p.deactivated ? 'deactivated' : '' },
      el('td', {}, name),
      el('td', {}, p.user_name),
      el('td', { class: 'url' }, p.email ?? ''),
      el('td', { class: 'state' }, p.deactivated ? `deactivated ${p.deactivated_at ? new Date(p.deactivated_at).toLocaleDateString() : ''}`.trim() : 'active'),
      el(
        'td',
        {},
        lifecycle(p, p.deactivated ? 'reactivate' : 'deactivate'),
        ' ',
        el(
          'button',
          {
            type: 'button',
            class: 'messages',
            'aria-label': `Language and notices of ${p.user_name}`,
            onclick: (ev) => showPersonMessages(messages, p, ev.currentTarget),
          },
          'Language and notices',
        ),
      ),
    );
  };

  async function draw() {
    const { status: s, data } = await api('GET', `/api/persons?${query()}`);
    if (s !== 200) {
      body.replaceChildren();
      count.textContent = '';
      error.textContent = data.message;
      return;
    }
    const rows = data.persons.slice(0, PAGE);
    const more = data.persons.length > PAGE;
    body.replaceChildren(...rows.map(row));
    const from = rows.length ? state.offset + 1 : 0;
    count.textContent = rows.length === 0 ? 'no persons match' : `persons ${from}–${state.offset + rows.length}${more ? ' (more on the next page)' : ''}`;
    pager.replaceChildren(
      state.offset > 0
        ? el(
            'button',
            {
              type: 'button',
              onclick: () => {
                state.offset = Math.max(0, state.offset - PAGE);
                draw();
              },
            },
            'Previous persons',
          )
        : '',
      more
        ? el(
            'button',
            {
              type: 'button',
              onclick: () => {
                state.offset += PAGE;
                draw();
              },
            },
            'Next persons',
          )
        : '',
    );
  }

  box.replaceChildren(
    el('h4', { id: 'h-persons' }, `Persons of ${organisation.name}`),
    filter,
    error,
    status,
    count,
    scroller(
      `Persons of ${organisation.name}`,
      el(
        'table',
        { class: 'grid', id: 'person-table' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Name', 'User name', 'E-mail', 'State', 'Action'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        body,
      ),
    ),
    pager,
    messages,
  );
  await draw();
}
