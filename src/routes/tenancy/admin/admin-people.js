// People: the organisation tree (admin-org-tree.js); the chosen organisation with rename / move
// (PUT /api/organisations/:id, organisation_data), delete (DELETE, a 409 naming what it holds is
// shown), its managers (GET/PUT/DELETE /api/organisations/:id/managers, user_name) and its persons
// (admin-persons.js); the import page (admin-import.js) below.
import { $, api, el, uid } from './admin-dom.js';
import { confirmButton, entityForm, openEditor } from './admin-forms.js';
import { drawTree, flattenTree, loadOrganisations, subtreeIds } from './admin-org-tree.js';
import { indented, forget } from './admin-lookups.js';
import { showPersons } from './admin-persons.js';
import { showImport } from './admin-import.js';

const state = { roots: [], open: new Set(), chosen: null };

const say = (text, error = false) => {
  $('#org-status').textContent = error ? '' : text;
  $('#org-error').textContent = error ? text : '';
};

const find = (id) => flattenTree(state.roots).find((n) => n.organisation_id === id) ?? null;

/** Opens every organisation above `id`, so it shows in the tree. */
function reveal(id) {
  const byId = new Map(flattenTree(state.roots).map((n) => [n.organisation_id, n]));
  for (let n = byId.get(id); n && byId.has(n.parent_id); n = byId.get(n.parent_id)) state.open.add(n.parent_id);
}

async function drawOrganisations() {
  state.roots = await loadOrganisations();
  // at first the roots are open: the tree shows two levels
  if (state.open.size === 0) for (const r of state.roots) state.open.add(r.organisation_id);
  if (state.chosen) reveal(state.chosen);
  drawTree($('#org-tree'), state.roots, { open: state.open, chosen: state.chosen, onChoose: (n) => choose(n.organisation_id, true) });
}

/** After a change: tree and pickers read again, the organisation shown again, focus on `focus` (a selector in the panel). */
async function changed(message, focus) {
  forget('organisations');
  say(message);
  await drawOrganisations();
  await choose(state.chosen, false);
  ($(`#org-detail ${focus}`) ?? $('#org-tree button.org-name'))?.focus();
}

function editForm(node, full, close) {
  const below = subtreeIds(node);
  const parents = flattenTree(state.roots).filter((o) => !below.has(o.organisation_id));
  return entityForm({
    id: `organisation-form-${node.organisation_id}`,
    heading: `Rename or move ${node.name}`,
    prefix: 'organisation_data',
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: '200' },
      {
        name: 'parent_id',
        label: 'Belongs to (move with everything below it)',
        type: 'select',
        numeric: true,
        options: [{ value: 0, label: '(none: at the top)' }, ...parents.map((o) => ({ value: o.organisation_id, label: indented(o.depth, o.name) }))],
      },
      { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'off' },
      { name: 'extern_organisation_id', label: 'External id', autocomplete: 'off' },
    ],
    values: full,
    editing: true,
    submitLabel: 'Save organisation',
    onClose: close,
    onSubmit: (body) => api('PUT', `/api/organisations/${node.organisation_id}`, { organisation_data: body }),
    onDone: (data) => changed(data.message ?? 'organisation saved', 'button.org-edit'),
  });
}

async function drawManagers(node) {
  const list = $('#manager-list');
  const { status, data } = await api('GET', `/api/organisations/${node.organisation_id}/managers`);
  if (status !== 200) return list.replaceChildren(el('li', { class: 'error' }, data.message));
  list.replaceChildren(
    ...data.managers.map((m) => {
      const name = [m.firstname, m.lastname].filter(Boolean).join(' ') || m.user_name;
      return el(
        'li',
        { 'data-user-name': m.user_name },
        el('span', { class: 'title' }, name),
        el('span', { class: 'meta' }, m.user_name),
        confirmButton(
          'Remove',
          `${m.user_name} as manager of ${node.name}`,
          async () => {
            const r = await api('DELETE', `/api/organisations/${node.organisation_id}/managers?user_name=${encodeURIComponent(m.user_name)}`);
            if (r.status !== 200) return managerError(r.data.message);
            managerError('');
            $('#manager-status').textContent = r.data.message ?? `${m.user_name} is no longer a manager`;
            await drawManagers(node);
            $('#manager-add input').focus();
          },
          { class: 'remove' },
        ),
      );
    }),
  );
  if (data.managers.length === 0) list.append(el('li', { class: 'meta' }, 'no managers of its own (those of the organisations above it manage it)'));
}

function managerError(text) {
  const input = $('#manager-add input');
  $('#manager-add .field-error').textContent = text;
  if (text) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

function managerForm(node) {
  const inputId = uid('manager-user');
  const errId = uid('manager-err');
  return el(
    'form',
    {
      id: 'manager-add',
      class: 'inline-fields',
      novalidate: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const input = ev.target.elements.user_name;
        const user = input.value.trim();
        const { status, data } = await api('PUT', `/api/organisations/${node.organisation_id}/managers`, { user_name: user });
        $('#manager-status').textContent = status === 200 ? (data.message ?? `${user} manages ${node.name}`) : '';
        if (status !== 200) {
          managerError(data.message);
          return input.focus();
        }
        managerError('');
        input.value = '';
        await drawManagers(node);
        input.focus();
      },
    },
    el(
      'div',
      { class: 'field' },
      el('label', { for: inputId }, 'Add a manager (user name)'),
      el('input', { id: inputId, name: 'user_name', autocomplete: 'off', 'aria-describedby': errId }),
      el('p', { class: 'error field-error', id: errId }),
    ),
    el('button', { type: 'submit' }, 'Add manager'),
  );
}

/** Shows the organisation `id` in the panel; `focusPanel`: focus moves to its heading. */
async function choose(id, focusPanel) {
  const panel = $('#org-detail');
  const node = id && find(id);
  state.chosen = node ? id : null;
  for (const b of document.querySelectorAll('#org-tree button.org-name')) {
    if (Number(b.dataset.organisationId) === state.chosen) b.setAttribute('aria-current', 'true');
    else b.removeAttribute('aria-current');
  }
  if (!node) {
    panel.hidden = true;
    return;
  }
  const parent = find(node.parent_id);
  const holder = el('div', { class: 'editor-holder' });
  const edit = el(
    'button',
    {
      type: 'button',
      class: 'org-edit',
      'aria-label': `Rename or move ${node.name}`,
      onclick: async () => {
        const { status, data } = await api('GET', `/api/organisations/${node.organisation_id}`);
        if (status !== 200) return say(data.message, true);
        await openEditor(holder, (close) => editForm(node, data.organisations[0], close), edit);
      },
    },
    'Rename or move',
  );
  const del = confirmButton(
    'Delete',
    `organisation ${node.name}`,
    async () => {
      const { status, data } = await api('DELETE', `/api/organisations/${node.organisation_id}`);
      if (status !== 200) {
        $('#org-detail-error').textContent = data.message;
        return del.focus();
      }
      state.chosen = null;
      forget('organisations');
      say(data.message ?? `${node.name} deleted`);
      await drawOrganisations();
      await choose(null);
      $('#org-tree button.org-name')?.focus();
    },
    { class: 'delete' },
  );
  panel.replaceChildren(
    el('h3', { id: 'h-org-detail', tabindex: '-1' }, node.name),
    el('p', { class: 'meta' }, parent ? `in ${parent.name}` : 'at the top', node.extern_organisation_id ? ` · external id ${node.extern_organisation_id}` : ''),
    el('div', { class: 'toolbar' }, edit, del),
    holder,
    el('p', { class: 'error', id: 'org-detail-error', role: 'alert' }),
    el('h4', { id: 'h-managers' }, 'Managers'),
    el('p', { class: 'description' }, 'Managers act on the persons of this organisation and of every organisation below it, from their next request on.'),
    el('ul', { class: 'rows', id: 'manager-list', 'aria-labelledby': 'h-managers' }),
    managerForm(node),
    el('p', { class: 'saved', id: 'manager-status', role: 'status' }),
    el('div', { id: 'person-box' }),
  );
  panel.hidden = false;
  // focus moves before the managers and persons load: moved after them, it would take the focus
  // back from a keyboard user who already went on (into the editor, say)
  if (focusPanel) $('#h-org-detail').focus();
  await Promise.all([drawManagers(node), showPersons($('#person-box'), node)]);
}

export async function showPeople() {
  state.chosen = null;
  state.open = new Set();
  $('#people-body').replaceChildren(
    el(
      'div',
      { class: 'people-layout' },
      el(
        'article',
        { class: 'item tool', id: 'org-tool', 'aria-labelledby': 'h-organisations' },
        el('h3', { id: 'h-organisations' }, 'Organisations'),
        el(
          'p',
          { class: 'description' },
          'Choose an organisation to rename or move it, see its managers and persons. Arrow keys move in the tree; right opens, left closes.',
        ),
        el('p', { class: 'error', id: 'org-error', role: 'alert' }),
        el('p', { class: 'saved', id: 'org-status', role: 'status' }),
        el('ul', { class: 'tree org-tree', id: 'org-tree', 'aria-label': 'Organisations' }),
      ),
      el('article', { class: 'item tool', id: 'org-detail', 'aria-labelledby': 'h-org-detail', hidden: true }),
    ),
    el('div', { id: 'import-box' }),
  );
  await Promise.all([drawOrganisations(), showImport($('#import-box'))]);
}
