// Catalogue: the competence tree (GET /api/competences?mode=all&view=simple, children nested) with
// search and type filter, 20 per page; create, edit and delete competences and add their modules,
// checklist items and questions. Groups, categories, roles and locations: admin-structure.js,
// admin-roles.js, admin-locations.js.
import { $, api, el, field } from './admin-dom.js';
import { confirmButton, openEditor } from './admin-forms.js';
import { CHILD_OF, competenceForm, competenceTypes } from './admin-competence-form.js';
import { forget } from './admin-lookups.js';
import { showStructure } from './admin-structure.js';
import { showRoles } from './admin-roles.js';
import { showLocations } from './admin-locations.js';

const PAGE = 20;
let offset = 0;

const say = (text, error = false) => {
  $('#competences-status').textContent = error ? '' : text;
  $('#competences-error').textContent = error ? text : '';
};

/** After a change: the pickers read the catalogue again, and focus lands on the changed competence's Edit button. */
async function changed(message, focusId) {
  $('#competence-new-holder').replaceChildren();
  forget('competences');
  say(message);
  await load();
  const target = focusId && document.querySelector(`#competence-tree li[data-competence-id="${focusId}"] > .node button.edit`);
  (target ?? $('#competence-new')).focus();
}

async function edit(c, holder, opener) {
  const { status, data } = await api('GET', `/api/competences/${c.competence_id}?view=full`);
  if (status !== 200) return say(data.message, true);
  await openEditor(
    holder,
    (close) =>
      competenceForm({
        competence: data.competences[0],
        onSaved: (saved, _created, message) => changed(message ?? `competence ${saved.competence_id} saved`, saved.competence_id),
        onClose: close,
      }),
    opener,
  );
}

async function addChild(parent, holder, opener) {
  const child = CHILD_OF[parent.type];
  await openEditor(
    holder,
    (close) =>
      competenceForm({
        defaults: { type: child.type, parent_id: parent.competence_id, what: child.what, parentTitle: parent.title },
        onSaved: (saved, _created, message) => changed(message ?? `competence ${saved.competence_id} created`, saved.competence_id),
        onClose: close,
      }),
    opener,
  );
}

function node(c, typeName) {
  const holder = el('div', { class: 'editor-holder' });
  const editButton = el('button', { type: 'button', class: 'edit', 'aria-label': `Edit ${c.title}`, onclick: () => edit(c, holder, editButton) }, 'Edit');
  const child = CHILD_OF[c.type];
  const addButton = child
    ? el(
        'button',
        { type: 'button', class: 'add-child', 'aria-label': `Add ${child.what} to ${c.title}`, onclick: () => addChild(c, holder, addButton) },
        `Add ${child.what}`,
      )
    : '';
  const del = confirmButton(
    'Delete',
    c.title,
    async () => {
      const { status, data } = await api('DELETE', `/api/competences/${c.competence_id}`);
      if (status !== 200) return say(data.message, true);
      await changed(data.message ?? `competence ${c.competence_id} deleted`);
    },
    { class: 'delete' },
  );
  return el(
    'li',
    { class: `competence type-${c.type}${c.active ? '' : ' inactive'}`, 'data-competence-id': String(c.competence_id) },
    el(
      'div',
      { class: 'node' },
      el('span', { class: 'title' }, c.title),
      el('span', { class: 'badge' }, typeName(c.type)),
      c.active ? '' : el('span', { class: 'badge off' }, 'inactive'),
      c.type === 'ecourse' && c.lms_start_url ? el('span', { class: 'meta url' }, c.lms_start_url) : '',
      el('span', { class: 'actions' }, editButton, addButton, del),
    ),
    holder,
    c.children.length
      ? el(
          'ul',
          { class: 'tree' },
          c.children.map((k) => node(k, typeName)),
        )
      : '',
  );
}

async function load() {
  const f = new FormData($('#competence-filter'));
  const q = new URLSearchParams({ mode: 'all', view: 'simple', limit: String(PAGE + 1), offset: String(offset) });
  const term = String(f.get('term') ?? '').trim();
  if (term) q.set('term', term);
  if (f.get('types')) q.set('types', String(f.get('types')));
  const [{ status, data }, types] = await Promise.all([api('GET', `/api/competences?${q}`), competenceTypes()]);
  if (status !== 200) return say(data.message, true);
  const typeName = (id) => types.find((t) => t.competence_type_id === id)?.name ?? id;
  const shown = data.competences.slice(0, PAGE);
  $('#competence-tree').replaceChildren(...shown.map((c) => node(c, typeName)));
  if (shown.length === 0) $('#competence-tree').append(el('li', { class: 'meta' }, 'no competences match'));
  $('#competence-newer').disabled = offset === 0;
  $('#competence-older').disabled = data.competences.length <= PAGE;
  $('#competence-page').textContent = shown.length ? `competences ${offset + 1}-${offset + shown.length}` : '';
}

const page = (delta) => () => {
  offset = Math.max(0, offset + delta);
  load();
};

async function competencesTool() {
  const types = await competenceTypes();
  const holder = el('div', { class: 'editor-holder', id: 'competence-new-holder' });
  const newButton = el(
    'button',
    {
      type: 'button',
      id: 'competence-new',
      onclick: () =>
        openEditor(
          holder,
          (close) =>
            competenceForm({
              onSaved: (saved, _created, message) => changed(message ?? `competence ${saved.competence_id} created`, saved.competence_id),
              onClose: close,
            }),
          newButton,
        ),
    },
    'New competence',
  );
  return el(
    'article',
    { class: 'item tool', id: 'competences-tool', 'aria-labelledby': 'h-competences' },
    el('h3', { id: 'h-competences' }, 'Competences'),
    el(
      'p',
      { class: 'description' },
      'Courses with their modules, e-courses, checklists with their items, and the other competence types. Inactive ones are shown and marked.',
    ),
    el(
      'form',
      {
        id: 'competence-filter',
        class: 'inline-fields',
        role: 'search',
        onsubmit: (ev) => {
          ev.preventDefault();
          offset = 0;
          load();
        },
      },
      field('Search', el('input', { name: 'term', type: 'search', placeholder: 'title' })),
      field(
        'Type',
        el(
          'select',
          { name: 'types' },
          el('option', { value: '' }, 'all types'),
          types.filter((t) => !t.nested_only).map((t) => el('option', { value: t.competence_type_id }, t.name)),
        ),
      ),
      el('button', { type: 'submit' }, 'Search'),
    ),
    el('div', { class: 'toolbar' }, newButton),
    holder,
    el('p', { class: 'error', id: 'competences-error', role: 'alert' }),
    el('p', { class: 'saved', id: 'competences-status', role: 'status' }),
    el('ul', { class: 'tree', id: 'competence-tree', 'aria-label': 'Competence tree' }),
    el(
      'p',
      { class: 'pager' },
      el('button', { id: 'competence-newer', type: 'button', onclick: page(-PAGE) }, 'Previous'),
      el('span', { id: 'competence-page', 'aria-live': 'polite' }),
      el('button', { id: 'competence-older', type: 'button', onclick: page(PAGE) }, 'Next'),
    ),
  );
}

export async function showCatalogue() {
  offset = 0;
  $('#catalogue-body').replaceChildren(await competencesTool(), el('div', { id: 'structure' }), el('div', { id: 'roles' }), el('div', { id: 'locations' }));
  await Promise.all([load(), showStructure(), showRoles(), showLocations()]);
}
