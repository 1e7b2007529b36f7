// Roles and their requirements: create, edit and delete roles (role, special role, position);
// per role the competences it requires, each mandatory or optional, added, switched or removed
// (PUT/DELETE /api/roles/:id/requirements). A holder's missing list follows at once.
import { $, api, el, uid } from './admin-dom.js';
import { allPages, confirmButton, entityForm, openEditor } from './admin-forms.js';
import { lookups } from './admin-lookups.js';

const META = [
  { value: 'role', label: 'role' },
  { value: 'specialrole', label: 'special role' },
  { value: 'position', label: 'position' },
];
const NESTED = new Set(['module', 'checklist_item', 'question']);

const say = (text, error = false) => {
  $('#roles-tool > .saved').textContent = error ? '' : text;
  $('#roles-tool > .error').textContent = error ? text : '';
};

function roleForm(role, close) {
  return entityForm({
    id: role ? `role-form-${role.role_id}` : 'role-form',
    heading: role ? `Edit ${role.name}` : 'New role',
    prefix: 'role_data',
    editing: !!role,
    values: role ?? { meta_type: 'role' },
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: '255' },
      { name: 'meta_type', label: 'Kind', type: 'select', options: META },
      { name: 'description', label: 'Description', type: 'textarea' },
    ],
    submitLabel: role ? 'Save role' : 'Create role',
    onClose: close,
    onSubmit: (body) => (role ? api('PUT', `/api/roles/${role.role_id}`, { role_data: body }) : api('POST', '/api/roles', { role_data: body })),
    onDone: async (data) => {
      $('#role-new-holder').replaceChildren();
      say(data.message ?? 'role saved');
      await draw();
      const id = data.roles?.[0]?.role_id;
      ((id && $(`#role-list li[data-role-id="${id}"] button.requirements`)) || $('#role-new')).focus();
    },
  });
}

/** The requirements of one role, with the form that adds one. */
async function requirements(role, panel) {
  const { status, data } = await api('GET', `/api/roles/${role.role_id}`);
  if (status !== 200) return panel.replaceChildren(el('p', { class: 'error', role: 'alert' }, data.message));
  const reqs = data.roles[0].requirements ?? [];
  const error = el('p', { class: 'error', role: 'alert' });
  const reload = async (focusSelector) => {
    await requirements(role, panel);
    (panel.querySelector(focusSelector) ?? panel.querySelector('select'))?.focus();
  };
  const change = async (method, body, focusSelector) => {
    const q = method === 'DELETE' ? `?competence_id=${body.competence_id}` : '';
    const { status: s, data: d } = await api(method, `/api/roles/${role.role_id}/requirements${q}`, method === 'DELETE' ? undefined : body);
    if (s !== 200) {
      error.textContent = d.message;
      return;
    }
    say(d.message ?? 'requirement saved');
    await reload(focusSelector);
  };
  const rows = reqs.map((r) =>
    el(
      'li',
      { 'data-competence-id': String(r.competence_id), class: r.mandatory ? 'mandatory' : 'optional' },
      el(
        'div',
        { class: 'node' },
        el('span', { class: 'title' }, r.title),
        el('span', { class: 'badge' }, r.mandatory ? 'mandatory' : 'optional'),
        el(
          'span',
          { class: 'actions' },
          el(
            'button',
            {
              type: 'button',
              class: 'toggle',
              'aria-label': `Make ${r.mandatory ? 'optional' : 'mandatory'}: ${r.title} for ${role.name}`,
              onclick: () =>
                change('PUT', { competence_id: r.competence_id, mandatory: r.mandatory ? 0 : 1 }, `li[data-competence-id="${r.competence_id}"] button.toggle`),
            },
            r.mandatory ? 'Make optional' : 'Make mandatory',
          ),
          confirmButton('Remove', `${r.title} from ${role.name}`, () => change('DELETE', { competence_id: r.competence_id }, 'select'), { class: 'remove' }),
        ),
      ),
    ),
  );
  const competences = (await lookups.competences()).filter((c) => !NESTED.has(c.type) && !reqs.some((r) => r.competence_id === c.competence_id));
  const pickId = uid('req');
  const errId = uid('fe');
  const add = el(
    'form',
    {
      class: 'inline-fields requirement-form',
      onsubmit: (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        error.textContent = '';
        change(
          'PUT',
          { competence_id: Number(f.get('competence_id')), mandatory: f.get('mandatory') ? 1 : 0 },
          `li[data-competence-id="${f.get('competence_id')}"] button.toggle`,
        );
      },
    },
    el('label', { for: pickId }, 'Competence'),
    el(
      'select',
      { id: pickId, name: 'competence_id', required: true, 'aria-describedby': errId },
      competences.map((c) => el('option', { value: String(c.competence_id) }, `${c.title} (${c.type})`)),
    ),
    el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'mandatory', checked: true }), 'mandatory'),
    el('button', { type: 'submit' }, 'Add requirement'),
  );
  error.id = errId;
  panel.replaceChildren(
    el('h4', {}, `Requirements of ${role.name}`),
    rows.length ? el('ul', { class: 'tree flat requirements' }, rows) : el('p', { class: 'meta' }, 'no requirements yet'),
    add,
    error,
  );
}

function roleRow(role) {
  const holder = el('div', { class: 'editor-holder' });
  const panel = el('div', { class: 'requirements-panel', id: uid('reqs'), hidden: true });
  const toggle = el(
    'button',
    {
      type: 'button',
      class: 'requirements',
      'aria-expanded': 'false',
      'aria-controls': panel.id,
      'aria-label': `Requirements of ${role.name}`,
      onclick: async () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        panel.hidden = !open;
        if (open) {
          await requirements(role, panel);
          panel.querySelector('select, button')?.focus();
        }
      },
    },
    'Requirements',
  );
  panel.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Escape' || ev.defaultPrevented) return;
    panel.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    toggle.focus();
  });
  const edit = el(
    'button',
    { type: 'button', class: 'edit', 'aria-label': `Edit ${role.name}`, onclick: () => openEditor(holder, (close) => roleForm(role, close), edit) },
    'Edit',
  );
  const del = confirmButton(
    'Delete',
    `role ${role.name}`,
    async () => {
      const { status, data } = await api('DELETE', `/api/roles/${role.role_id}`);
      if (status !== 200) return say(data.message, true);
      say(data.message ?? `role ${role.name} deleted`);
      await draw();
      $('#role-new').focus();
    },
    { class: 'delete' },
  );
  return el(
    'li',
    { 'data-role-id': String(role.role_id) },
    el(
      'div',
      { class: 'node' },
      el('span', { class: 'title' }, role.name),
      el('span', { class: 'badge' }, META.find((m) => m.value === role.meta_type)?.label ?? role.meta_type),
      role.description ? el('span', { class: 'meta' }, role.description) : '',
      el('span', { class: 'actions' }, toggle, edit, del),
    ),
    holder,
    panel,
  );
}

async function draw() {
  const roles = await allPages(api, '/api/roles?all=1', 'roles');
  $('#role-list').replaceChildren(...roles.map(roleRow));
  if (roles.length === 0) $('#role-list').append(el('li', { class: 'meta' }, 'no roles yet'));
}

export async function showRoles() {
  const holder = el('div', { class: 'editor-holder', id: 'role-new-holder' });
  const newButton = el(
    'button',
    { type: 'button', id: 'role-new', onclick: () => openEditor(holder, (close) => roleForm(null, close), newButton) },
    'New role',
  );
  $('#roles').replaceChildren(
    el(
      'article',
      { class: 'item tool', id: 'roles-tool', 'aria-labelledby': 'h-roles' },
      el('h3', { id: 'h-roles' }, 'Roles and requirements'),
      el(
        'p',
        { class: 'description' },
        'What each role (or position) requires: a mandatory competence is missing for everyone holding the role until they have it.',
      ),
      el('div', { class: 'toolbar' }, newButton),
      holder,
      el('p', { class: 'error', role: 'alert' }),
      el('p', { class: 'saved', role: 'status' }),
      el('ul', { class: 'tree flat', id: 'role-list', 'aria-label': 'Roles' }),
    ),
  );
  await draw();
}
