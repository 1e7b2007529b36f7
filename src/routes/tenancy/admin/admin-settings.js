// One config item: description, default, current value in a structured editor, who changed it
// last, inline errors from the API's 420 message, and the full history on demand.
import { api, el, uid, when } from './admin-dom.js';
import { editorFor, issuesOf } from './admin-editors.js';

const show = (v) => (v === null || v === undefined ? '—' : JSON.stringify(v));

async function loadHistory(item, target) {
  const { status, data } = await api('GET', `/api/configitems/${encodeURIComponent(item.config_item_id)}/history?limit=20`);
  target.replaceChildren();
  if (status !== 200) return target.append(el('p', { class: 'error' }, data.message));
  if (data.changes.length === 0) return target.append(el('p', { class: 'meta' }, 'no changes recorded'));
  target.append(
    el(
      'div',
      { class: 'scroll' },
      el(
        'table',
        { class: 'history' },
        el('caption', { class: 'sr-only' }, `Changes of ${item.config_item_id}`),
        el(
          'tr',
          {},
          ['when', 'who', 'old value', 'new value'].map((h) => el('th', { scope: 'col' }, h)),
        ),
        data.changes.map((c) =>
          el(
            'tr',
            { class: 'change' },
            el('td', {}, when(c.changed_at)),
            el('td', {}, c.changed_by),
            el('td', {}, c.secret ? '' : show(c.old_value)),
            el('td', {}, c.secret ? c.new_value : show(c.new_value)),
          ),
        ),
      ),
    ),
  );
}

/** An item whose value is not the recommended one (a safer setting older tenants do not have on) says so. */
function recommendation(item) {
  if (item.secret || item.recommended === undefined || JSON.stringify(item.value) === JSON.stringify(item.recommended)) return null;
  return el(
    'p',
    { class: 'recommend', role: 'note' },
    `Recommended: ${show(item.recommended)}. The current value is less safe; older tenants keep it until it is changed here.`,
  );
}

function lastChange(item) {
  const who = item.last_changed_by ? `Changed by ${item.last_changed_by} on ${when(item.last_changed_at)}.` : 'Never changed.';
  if (item.secret) return who;
  return `${who} ${item.is_default ? 'Uses the default' : 'Default'}: ${show(item.default)}.`;
}

export function renderItem(item, note = '') {
  const id = item.config_item_id;
  const inputId = `value-${id}`;
  const headingId = uid('h');
  const box = el('article', { class: 'item', id: `item-${id}`, 'aria-labelledby': headingId });
  const error = el('p', { class: 'error', 'data-error-for': id, role: 'alert' });
  const saved = el('p', { class: 'saved', role: 'status' }, note);
  const history = el('div', { class: 'history-body' });
  const details = el('details', { ontoggle: () => details.open && loadHistory(item, history) }, el('summary', {}, 'Change history'), history);
  let editor;
  const save = async (value) => {
    error.textContent = '';
    saved.textContent = '';
    const { status, data } = await api('PUT', `/api/configitems/${encodeURIComponent(id)}`, { value });
    if (status !== 200) {
      error.textContent = data.message;
      editor?.showIssues(issuesOf(data.message, id));
      return;
    }
    const fresh = renderItem(data.configitems[0], 'saved');
    box.replaceWith(fresh);
    fresh.querySelector('button.save, button.replace')?.focus();
  };

  let control;
  if (item.secret) {
    const input = el('input', { type: 'password', id: inputId, autocomplete: 'new-password', hidden: true });
    const store = el('button', { type: 'button', class: 'save', hidden: true, onclick: () => save(input.value === '' ? null : input.value) }, 'Save');
    const replace = el(
      'button',
      {
        type: 'button',
        class: 'replace',
        onclick: () => {
          input.hidden = false;
          store.hidden = false;
          replace.hidden = true;
          input.focus();
        },
      },
      'Replace',
    );
    control = el('div', { class: 'row' }, el('span', { class: 'secret-state' }, item.is_set ? 'set' : 'not set'), replace, input, store);
  } else {
    editor = editorFor(item, inputId);
    const button = el(
      'button',
      {
        type: 'button',
        class: 'save',
        onclick: () => {
          try {
            save(editor.read());
          } catch (e) {
            error.textContent = `${id}: ${e.message}`;
          }
        },
      },
      'Save',
    );
    control = el('div', { class: 'row', role: 'group', 'aria-labelledby': headingId }, editor.node, button);
  }
  const labelled = item.secret || !['origin_list', 'host_list', 'string_list', 'int_list', 'json'].includes(item.type);
  box.append(
    el('h3', { id: headingId }, labelled ? el('label', { for: inputId }, id) : id),
    el('p', { class: 'description' }, item.description),
    ...[recommendation(item)].filter(Boolean),
    control,
    error,
    saved,
    el('p', { class: 'meta last-change' }, lastChange(item)),
    details,
  );
  return box;
}

/** Puts every item into the section the registry names; unknown sections fall back to Security. */
export function showSettings(items) {
  const holders = new Map([...document.querySelectorAll('.items[data-section]')].map((d) => [d.dataset.section, d]));
  for (const d of holders.values()) d.replaceChildren();
  for (const item of items) (holders.get(item.section) ?? holders.get('security')).append(renderItem(item));
}
