// Tenant admin page: lists the tenant's config items and edits them through /api (same origin,
// session cookie). No build step, no framework.
'use strict';

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
};

async function api(method, url, body) {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try {
    data = await res.json();
  } catch {
    data = { valid: false, message: `unexpected answer (HTTP ${res.status})` };
  }
  return { status: res.status, data };
}

const LIST_TYPES = ['string_list', 'origin_list', 'host_list'];

/** The input for an item's type, and how to read a value back from it. */
function inputFor(item) {
  const id = `value-${item.config_item_id}`;
  if (item.type === 'bool') {
    const input = el('input', { type: 'checkbox', id, name: item.config_item_id });
    input.checked = item.value === true;
    return { input, read: () => input.checked };
  }
  if (item.type === 'enum') {
    const input = el('select', { id, name: item.config_item_id }, (item.options || []).map((o) => el('option', { value: o }, o)));
    input.value = item.value;
    return { input, read: () => input.value };
  }
  if (item.type === 'int_or_null') {
    const input = el('input', { type: 'number', step: '1', id, name: item.config_item_id });
    input.value = item.value === null || item.value === undefined ? '' : String(item.value);
    return { input, read: () => (input.value.trim() === '' ? null : Number(input.value)) };
  }
  if (LIST_TYPES.includes(item.type)) {
    const input = el('textarea', { id, name: item.config_item_id, placeholder: 'one per line' });
    input.value = (item.value || []).join('\n');
    return { input, read: () => input.value.split('\n').map((s) => s.trim()).filter(Boolean) };
  }
  if (item.type === 'json') {
    const input = el('textarea', { id, name: item.config_item_id });
    input.value = JSON.stringify(item.value, null, 2);
    return {
      input,
      read: () => {
        try {
          return JSON.parse(input.value);
        } catch {
          throw new Error('not valid JSON');
        }
      },
    };
  }
  const input = el('input', { type: 'text', id, name: item.config_item_id, size: 50 });
  input.value = item.value === null || item.value === undefined ? '' : item.value;
  return { input, read: () => (input.value === '' ? null : input.value) };
}

async function loadHistory(item, target) {
  const { status, data } = await api('GET', `/api/configitems/${encodeURIComponent(item.config_item_id)}/history?limit=20`);
  target.replaceChildren();
  if (status !== 200) return target.append(el('p', { class: 'error' }, data.message));
  if (data.changes.length === 0) return target.append(el('p', { class: 'meta' }, 'no changes recorded'));
  const show = (v) => (v === null || v === undefined ? '—' : JSON.stringify(v));
  target.append(
    el(
      'table',
      { class: 'history' },
      el('tr', {}, el('th', {}, 'when'), el('th', {}, 'who'), el('th', {}, 'old value'), el('th', {}, 'new value')),
      data.changes.map((c) =>
        el('tr', { class: 'change' },
          el('td', {}, new Date(c.changed_at).toLocaleString()),
          el('td', {}, c.changed_by),
          el('td', {}, c.secret ? '' : show(c.old_value)),
          el('td', {}, c.secret ? c.new_value : show(c.new_value))),
      ),
    ),
  );
}

function renderItem(item) {
  const box = el('article', { class: 'item', id: `item-${item.config_item_id}` });
  const error = el('p', { class: 'error', 'data-error-for': item.config_item_id });
  const saved = el('p', { class: 'saved' });
  const history = el('div', { class: 'history-body' });
  const details = el('details', { ontoggle: () => details.open && loadHistory(item, history) }, el('summary', {}, 'Change history'), history);
  const save = async (value) => {
    error.textContent = '';
    saved.textContent = '';
    const { status, data } = await api('PUT', `/api/configitems/${encodeURIComponent(item.config_item_id)}`, { value });
    if (status !== 200) {
      error.textContent = data.message;
      return;
    }
    saved.textContent = 'saved';
    const fresh = data.configitems[0];
    box.replaceWith(renderItem(fresh));
    const again = document.getElementById(`item-${item.config_item_id}`);
    again.querySelector('.saved').textContent = 'saved';
  };

  let editor;
  if (item.secret) {
    const state = el('span', { class: 'secret-state' }, item.is_set ? 'set' : 'not set');
    const input = el('input', { type: 'password', id: `value-${item.config_item_id}`, autocomplete: 'new-password', hidden: true });
    const store = el('button', { type: 'button', hidden: true, onclick: () => save(input.value === '' ? null : input.value) }, 'Save');
    const replace = el('button', { type: 'button', onclick: () => { input.hidden = false; store.hidden = false; replace.hidden = true; input.focus(); } }, 'Replace');
    editor = el('div', { class: 'row' }, state, replace, input, store);
  } else {
    const { input, read } = inputFor(item);
    const button = el('button', { type: 'button', class: 'save', onclick: () => {
      let value;
      try {
        value = read();
      } catch (e) {
        error.textContent = `${item.config_item_id}: ${e.message}`;
        return;
      }
      save(value);
    } }, 'Save');
    editor = el('div', { class: 'row' }, input, button);
  }
  box.append(
    el('h2', {}, el('label', { for: `value-${item.config_item_id}` }, item.config_item_id)),
    el('p', { class: 'description' }, item.description),
    editor,
    error,
    saved,
    item.secret ? '' : el('p', { class: 'meta' }, item.is_default ? `default: ${JSON.stringify(item.default)}` : ''),
    details,
  );
  return box;
}

async function showItems() {
  const { status, data } = await api('GET', '/api/configitems/definitions');
  $('#status').textContent = '';
  if (status === 401) return showLogin();
  if (status !== 200) {
    $('#status').textContent = data.message;
    $('#logout').hidden = false;
    return;
  }
  $('#login').hidden = true;
  $('#logout').hidden = false;
  const items = $('#items');
  items.replaceChildren(...data.configitems.map(renderItem));
  items.hidden = false;
  // admin-audit.js (loaded after this script) shows the security event log
  if (typeof showAuditLog === 'function') showAuditLog();
}

function showLogin() {
  $('#items').hidden = true;
  $('#audit').hidden = true;
  $('#logout').hidden = true;
  $('#login').hidden = false;
}

$('#login').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const { status, data } = await api('POST', '/api/login', { user_name: form.get('user_name'), password: form.get('password'), login: 1 });
  $('#login-error').textContent = status === 200 ? '' : data.message;
  if (status === 200) {
    $('#who').textContent = String(form.get('user_name'));
    ev.target.reset();
    await showItems();
  }
});

$('#logout').addEventListener('click', async () => {
  await api('POST', '/api/logout');
  $('#who').textContent = '';
  showLogin();
});

showItems();
