// Catalogue structure: competence groups and categories, each a tree of names. Create (with a
// parent), rename or move, delete; a group or category in use is refused with the API's 409.
import { $, api, el } from './admin-dom.js';
import { confirmButton, entityForm, openEditor } from './admin-forms.js';
import { forget, indented, lookups } from './admin-lookups.js';

const KINDS = [
  {
    key: 'groups',
    what: 'competence group',
    heading: 'Competence groups',
    id: 'competence_group_id',
    url: '/api/competencegroups',
    resource: 'competencegroups',
    prefix: 'competence_group_data',
    load: () => lookups.groups(),
    description: 'Groups arrange the catalogue (e.g. Health and safety > Fire safety); a competence belongs to one group.',
  },
  {
    key: 'categories',
    what: 'category',
    heading: 'Categories',
    id: 'category_id',
    url: '/api/categories',
    resource: 'categories',
    prefix: 'category_data',
    load: () => lookups.categories(),
    description: 'Categories label competences across groups (e.g. Mandatory training); a competence may have several.',
  },
];

function form(kind, rows, row, close, done) {
  const below = new Set();
  if (row) {
    // a node cannot move below itself: leave it and its descendants out of the parent choices
    below.add(row[kind.id]);
    for (const r of rows) if (below.has(r.parent_id)) below.add(r[kind.id]);
  }
  return entityForm({
    id: `${kind.key}-form${row ? `-${row[kind.id]}` : ''}`,
    heading: row ? `Rename or move ${row.name}` : `New ${kind.what}`,
    prefix: kind.prefix,
    editing: !!row,
    values: row ?? {},
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: '255' },
      {
        name: 'parent_id',
        label: 'Above it',
        type: 'select',
        numeric: true,
        options: [
          { value: '', label: '(none: at the top)' },
          ...rows.filter((r) => !below.has(r[kind.id])).map((r) => ({ value: r[kind.id], label: indented(r.depth, r.name) })),
        ],
      },
    ],
    submitLabel: row ? 'Save' : `Create ${kind.what}`,
    onClose: close,
    onSubmit: (body) => (row ? api('PUT', `${kind.url}/${row[kind.id]}`, { [kind.prefix]: body }) : api('POST', kind.url, { [kind.prefix]: body })),
    onDone: (data) => done(data.message ?? `${kind.what} saved`, data[kind.resource]?.[0]?.[kind.id]),
  });
}

async function draw(kind) {
  const box = $(`#${kind.key}-tool`);
  const list = box.querySelector('ul.tree');
  const status = box.querySelector('.saved');
  const error = box.querySelector('.error');
  const holder = box.querySelector('.new-holder');
  const rows = await kind.load();
  const done = async (message, focusId) => {
    forget(kind.key);
    holder.replaceChildren();
    status.textContent = message;
    error.textContent = '';
    await draw(kind);
    ((focusId && list.querySelector(`li[data-id="${focusId}"] button.edit`)) || box.querySelector('button.new'))?.focus();
  };
  list.replaceChildren(
    ...rows.map((r) => {
      const rowHolder = el('div', { class: 'editor-holder' });
      const edit = el(
        'button',
        {
          type: 'button',
          class: 'edit',
          'aria-label': `Edit ${r.name} (rename or move)`,
          onclick: () => openEditor(rowHolder, (close) => form(kind, rows, r, close, done), edit),
        },
        'Edit',
      );
      const del = confirmButton(
        'Delete',
        `${kind.what} ${r.name}`,
        async () => {
          const { status: s, data } = await api('DELETE', `${kind.url}/${r[kind.id]}`);
          if (s !== 200) {
            error.textContent = data.message;
            status.textContent = '';
            return;
          }
          await done(data.message ?? `${kind.what} ${r.name} deleted`);
        },
        { class: 'delete' },
      );
      return el(
        'li',
        { 'data-id': String(r[kind.id]), class: `depth-${Math.min(r.depth, 4)}` },
        el('div', { class: 'node' }, el('span', { class: 'title' }, r.name), el('span', { class: 'actions' }, edit, del)),
        rowHolder,
      );
    }),
  );
  if (rows.length === 0) list.append(el('li', { class: 'meta' }, `no ${kind.heading.toLowerCase()} yet`));
}

function tool(kind) {
  const holder = el('div', { class: 'editor-holder new-holder' });
  const newButton = el(
    'button',
    {
      type: 'button',
      class: 'new',
      onclick: async () => {
        const rows = await kind.load();
        const done = async (message, focusId) => {
          forget(kind.key);
          holder.replaceChildren();
          $(`#${kind.key}-tool .saved`).textContent = message;
          await draw(kind);
          ((focusId && $(`#${kind.key}-tool li[data-id="${focusId}"] button.edit`)) || newButton).focus();
        };
        openEditor(holder, (close) => form(kind, rows, null, close, done), newButton);
      },
    },
    `New ${kind.what}`,
  );
  return el(
    'article',
    { class: 'item tool', id: `${kind.key}-tool`, 'aria-labelledby': `h-${kind.key}` },
    el('h3', { id: `h-${kind.key}` }, kind.heading),
    el('p', { class: 'description' }, kind.description),
    el('div', { class: 'toolbar' }, newButton),
    holder,
    el('p', { class: 'error', role: 'alert' }),
    el('p', { class: 'saved', role: 'status' }),
    el('ul', { class: 'tree flat', 'aria-label': kind.heading }),
  );
}

export async function showStructure() {
  $('#structure').replaceChildren(...KINDS.map(tool));
  await Promise.all(KINDS.map(draw));
}
