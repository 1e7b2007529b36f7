// Structured editors per config item type. Each returns { node, read, showIssues }: read()
// gives the value to PUT (or throws with a message), showIssues() places the API's own 420
// reasons next to the row they name (paths like "2" or "0.name").
import { el, uid } from './admin-dom.js';

const ORIGIN_HINT = 'must be an origin: scheme://host[:port] with no path or trailing slash';
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** Checks the browser can make before the API does; the API stays the judge. */
const ROW_CHECKS = {
  origin_list: (v) => {
    try {
      return new URL(v).origin === v ? '' : ORIGIN_HINT;
    } catch {
      return ORIGIN_HINT;
    }
  },
  host_list: (v) => (HOST.test(v) ? '' : 'must be a host name'),
  string_list: () => '',
  int_list: (v) => (/^[1-9]\d*$/.test(v) ? '' : 'must be a positive whole number'),
};

function rowError(id) {
  return el('span', { class: 'error row-error', id, role: 'alert' });
}

function listEditor(item, what) {
  const rows = el('ul', { class: 'rows' });
  const check = ROW_CHECKS[item.type];
  const addRow = (value = '') => {
    const errId = uid('err');
    const input = el('input', { type: 'text', value, 'aria-label': `${what} ${rows.children.length + 1}`, 'aria-describedby': errId, class: 'row-value' });
    const li = el(
      'li',
      { class: 'row' },
      input,
      el(
        'button',
        {
          type: 'button',
          class: 'remove',
          'aria-label': `Remove ${what} ${value || rows.children.length + 1}`,
          onclick: () => {
            li.remove();
            rows.querySelector('input')?.focus();
          },
        },
        'Remove',
      ),
      rowError(errId),
    );
    input.addEventListener('input', () => (li.querySelector('.row-error').textContent = input.value.trim() ? check(input.value.trim()) : ''));
    rows.append(li);
    return input;
  };
  for (const v of item.value || []) addRow(v);
  const add = el('button', { type: 'button', class: 'add', onclick: () => addRow().focus() }, `Add ${what}`);
  const rowsOf = () => [...rows.children];
  return {
    node: el('div', { class: 'list-editor' }, rows, add),
    read() {
      let bad = 0;
      const values = [];
      for (const li of rowsOf()) {
        const v = li.querySelector('input').value.trim();
        if (!v) continue;
        const problem = check(v);
        li.querySelector('.row-error').textContent = problem;
        if (problem) bad++;
        values.push(item.type === 'int_list' ? Number(v) : v);
      }
      if (bad) throw new Error(`${bad} ${bad === 1 ? 'entry is' : 'entries are'} not valid`);
      return values;
    },
    showIssues(issues) {
      for (const li of rowsOf()) li.querySelector('.row-error').textContent = '';
      const filled = rowsOf().filter((li) => li.querySelector('input').value.trim());
      for (const i of issues) if (i.path && filled[Number(i.path)]) filled[Number(i.path)].querySelector('.row-error').textContent = i.message;
    },
  };
}

const ATTRIBUTE_TYPES = ['string', 'number', 'boolean'];
const APPLIES_TO = ['competence', 'event'];

function attributesEditor(item) {
  const body = el('tbody');
  const addRow = (a = { name: '', label: '', type: 'string', applies_to: ['competence'] }) => {
    const n = body.children.length + 1;
    const errId = uid('err');
    const tr = el(
      'tr',
      { class: 'attribute' },
      el('td', {}, el('input', { name: 'name', value: a.name, 'aria-label': `Name of attribute ${n}`, 'aria-describedby': errId })),
      el('td', {}, el('input', { name: 'label', value: a.label, 'aria-label': `Label of attribute ${n}` })),
      el(
        'td',
        {},
        el(
          'select',
          { name: 'type', 'aria-label': `Type of attribute ${n}` },
          ATTRIBUTE_TYPES.map((t) => el('option', { value: t, selected: a.type === t }, t)),
        ),
      ),
      el(
        'td',
        {},
        el(
          'fieldset',
          { class: 'applies' },
          el('legend', { class: 'sr-only' }, `Attribute ${n} applies to`),
          APPLIES_TO.map((w) =>
            el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'applies_to', value: w, checked: a.applies_to.includes(w) }), ` ${w}`),
          ),
        ),
      ),
      el(
        'td',
        {},
        el('button', { type: 'button', class: 'remove', 'aria-label': `Remove attribute ${a.name || n}`, onclick: () => tr.remove() }, 'Remove'),
        rowError(errId),
      ),
    );
    body.append(tr);
    return tr;
  };
  for (const a of item.value || []) addRow(a);
  const table = el(
    'table',
    { class: 'attributes' },
    el('caption', { class: 'sr-only' }, 'Custom attributes'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['name', 'label', 'type', 'applies to', ''].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    body,
  );
  return {
    node: el(
      'div',
      { class: 'list-editor' },
      el('div', { class: 'scroll' }, table),
      el('button', { type: 'button', class: 'add', onclick: () => addRow().querySelector('input').focus() }, 'Add attribute'),
    ),
    read: () =>
      [...body.children].map((tr) => ({
        name: tr.querySelector('[name=name]').value.trim(),
        label: tr.querySelector('[name=label]').value.trim(),
        type: tr.querySelector('[name=type]').value,
        applies_to: [...tr.querySelectorAll('[name=applies_to]:checked')].map((c) => c.value),
      })),
    showIssues(issues) {
      for (const tr of body.children) tr.querySelector('.row-error').textContent = '';
      for (const i of issues) {
        const [row, ...rest] = String(i.path ?? '').split('.');
        const tr = body.children[Number(row)];
        if (tr && row !== '') tr.querySelector('.row-error').textContent = `${rest.join('.') || 'row'}: ${i.message}`;
      }
    },
  };
}

const none = { showIssues() {} };

function simpleEditor(item, id) {
  const name = item.config_item_id;
  if (item.type === 'bool') {
    const input = el('input', { type: 'checkbox', role: 'switch', id, name, class: 'switch' });
    input.checked = item.value === true;
    return {
      ...none,
      node: el('span', { class: 'switch-box' }, input, el('span', { 'aria-hidden': 'true', class: 'switch-text' }, 'on')),
      read: () => input.checked,
    };
  }
  if (item.type === 'enum') {
    const input = el(
      'select',
      { id, name },
      (item.options || []).map((o) => el('option', { value: o }, o)),
    );
    input.value = item.value;
    return { ...none, node: input, read: () => input.value };
  }
  if (item.type === 'int_or_null') {
    const input = el('input', { type: 'number', step: '1', id, name, inputmode: 'numeric' });
    input.value = item.value === null || item.value === undefined ? '' : String(item.value);
    return { ...none, node: input, read: () => (input.value.trim() === '' ? null : Number(input.value)) };
  }
  const input = el('input', { type: 'text', id, name, class: 'wide' });
  input.value = item.value === null || item.value === undefined ? '' : item.value;
  return { ...none, node: input, read: () => (input.value === '' ? null : input.value) };
}

const LIST_WHAT = { origin_list: 'origin', host_list: 'host', string_list: 'entry', int_list: 'number' };

/** The editor for an item; lists and custom_attributes get rows, the rest one input with id `id`. */
export function editorFor(item, id) {
  if (LIST_WHAT[item.type]) return listEditor(item, LIST_WHAT[item.type]);
  if (item.config_item_id === 'custom_attributes') return attributesEditor(item);
  return simpleEditor(item, id);
}

/** "config item X: 0: bad; 1.name: worse" -> [{path: '0', message: 'bad'}, ...]; paths only for rows. */
export function issuesOf(message, id) {
  const prefix = `config item ${id}: `;
  const at = message.indexOf(prefix);
  if (at < 0) return [];
  return message
    .slice(at + prefix.length)
    .split('; ')
    .map((part) => {
      const m = /^(\d+(?:\.\w+)*): (.*)$/.exec(part);
      return m ? { path: m[1], message: m[2] } : { path: null, message: part };
    });
}
