// Notice texts (Messaging): every notice the product sends itself, with the languages the tenant
// has its own words for, and an editor per notice and language with a live preview rendered by the
// server (POST /api/messagetemplates/<type>/preview, sample data, nothing stored). Save is PUT,
// "Back to the shipped text" is DELETE. Errors name the field and the line; the field is marked.
import { $, api, el, field, scroller } from './admin-dom.js';

let notices = [];
let editing = null; // { type, language }
let timer = null;

const status = () => $('#templates-status');
const say = (text) => {
  status().textContent = text;
};
const PARTS = ['subject', 'text', 'html'];

function languagesOf(n) {
  return [...new Set([...Object.keys(n.defaults), ...n.overrides.map((o) => o.language)])].sort();
}

function noticeRow(n) {
  const own = n.overrides.map((o) => o.language).join(', ');
  return el(
    'tr',
    { 'data-type': n.type },
    el('th', { scope: 'row' }, n.type),
    el('td', {}, n.security ? 'security (always sent)' : ''),
    el('td', { class: 'own-languages' }, own || el('span', { class: 'meta' }, 'shipped texts')),
    el(
      'td',
      {},
      el(
        'button',
        { type: 'button', class: 'edit-template', 'aria-label': `Edit texts of ${n.type}`, onclick: () => openEditor(n.type, languagesOf(n)[0] ?? 'en') },
        'Edit',
      ),
    ),
  );
}

function current() {
  return notices.find((n) => n.type === editing.type);
}

/** Fills the fields from the override of the language, else the shipped text. */
function fill() {
  const n = current();
  const own = n.overrides.find((o) => o.language === editing.language);
  const base = own ?? n.defaults[editing.language] ?? n.defaults.en;
  $('#template-subject').value = base.subject;
  $('#template-text').value = base.text;
  $('#template-html').value = own?.html ?? '';
  $('#template-reset').disabled = !own;
  $('#template-origin').textContent = own
    ? `The tenant's own texts (saved ${new Date(own.updated_at).toLocaleString()} by ${own.updated_by ?? '?'}).`
    : 'The shipped texts.';
  $('#template-variables').replaceChildren(...n.variables.map((v) => el('li', {}, el('code', {}, `{{ ${v.name} }}`), ` ${v.description}`)));
  clearErrors();
  schedulePreview(0);
}

function clearErrors() {
  $('#template-error').textContent = '';
  for (const p of PARTS) $(`#template-${p}`).removeAttribute('aria-invalid');
}

function showError(data) {
  $('#template-error').textContent = data.message;
  const part = /messagetemplate_data\[(\w+)\]/.exec(data.parameter ?? data.message ?? '')?.[1];
  if (part && PARTS.includes(part)) $(`#template-${part}`).setAttribute('aria-invalid', 'true');
}

function data() {
  return { language: editing.language, subject: $('#template-subject').value, text: $('#template-text').value, html: $('#template-html').value };
}

function schedulePreview(ms = 400) {
  clearTimeout(timer);
  timer = setTimeout(preview, ms);
}

async function preview() {
  if (!editing) return;
  const { status: s, data: answer } = await api('POST', `/api/messagetemplates/${editing.type}/preview`, { messagetemplate_data: data() });
  if (s !== 200) {
    showError(answer);
    return;
  }
  clearErrors();
  const r = answer.messagetemplates[0];
  $('#preview-subject').textContent = r.subject;
  $('#preview-text').textContent = r.text;
  // the HTML as the mail shows it, in a frame without scripts
  $('#preview-html').srcdoc = r.html;
}

async function save(event) {
  event.preventDefault();
  const { status: s, data: answer } = await api('PUT', `/api/messagetemplates/${editing.type}`, { messagetemplate_data: data() });
  if (s !== 200) {
    showError(answer);
    say('');
    return;
  }
  say(answer.message);
  await load();
  fill();
}

async function reset() {
  const { status: s, data: answer } = await api('DELETE', `/api/messagetemplates/${editing.type}?language=${encodeURIComponent(editing.language)}`);
  say(answer.message);
  if (s === 200) {
    await load();
    fill();
  }
}

function openEditor(type, language) {
  editing = { type, language };
  const n = current();
  $('#template-language').replaceChildren(...languagesOf(n).map((l) => el('option', { value: l, selected: l === language }, l)));
  $('#h-template-editor').textContent = `Texts of ${type}`;
  $('#template-editor').hidden = false;
  fill();
  $('#template-language').focus();
}

async function load() {
  const { status: s, data: answer } = await api('GET', '/api/messagetemplates');
  $('#templates-error').textContent = s === 200 ? '' : answer.message;
  if (s !== 200) return;
  notices = answer.messagetemplates;
  $('#template-rows').replaceChildren(...notices.map(noticeRow));
}

function editor() {
  const area = (id, rows, label) =>
    field(
      label,
      el('textarea', {
        id,
        name: id.replace('template-', ''),
        rows: String(rows),
        spellcheck: 'false',
        'aria-describedby': 'template-error',
        oninput: () => schedulePreview(),
      }),
    );
  return el(
    'form',
    { id: 'template-editor', hidden: true, 'aria-labelledby': 'h-template-editor', onsubmit: save },
    el('h4', { id: 'h-template-editor' }, 'Texts'),
    el('p', { class: 'meta', id: 'template-origin' }),
    field(
      'Language',
      el('select', {
        id: 'template-language',
        name: 'language',
        onchange: (e) => {
          editing.language = e.target.value;
          fill();
        },
      }),
    ),
    field(
      'Subject',
      el('input', { id: 'template-subject', name: 'subject', type: 'text', 'aria-describedby': 'template-error', oninput: () => schedulePreview() }),
    ),
    area('template-text', 8, 'Text (also the SMS)'),
    area('template-html', 5, 'HTML body (optional; empty: made from the text)'),
    el('p', { class: 'error', id: 'template-error', role: 'alert' }),
    el(
      'details',
      {},
      el('summary', {}, 'Variables and filters'),
      el('ul', { id: 'template-variables' }),
      el('p', { class: 'meta' }, 'Liquid: {{ variable }}, {% if %}...{% endif %}; dates with | format_date, | format_datetime, | format_time.'),
    ),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'submit', id: 'template-save' }, 'Save'),
      el('button', { type: 'button', id: 'template-reset', onclick: reset }, 'Back to the shipped text'),
      el(
        'button',
        {
          type: 'button',
          id: 'template-close',
          onclick: () => {
            editing = null;
            $('#template-editor').hidden = true;
          },
        },
        'Close',
      ),
    ),
    el(
      'section',
      { id: 'template-preview', 'aria-labelledby': 'h-template-preview' },
      el('h4', { id: 'h-template-preview' }, 'Preview with sample data'),
      el('p', {}, el('strong', {}, 'Subject: '), el('span', { id: 'preview-subject', 'aria-live': 'polite' })),
      el('pre', { id: 'preview-text', class: 'preview-text' }),
      el('iframe', { id: 'preview-html', title: 'HTML preview of the mail', sandbox: '', height: '320' }),
    ),
  );
}

export function showTemplates() {
  editing = null;
  const table = el(
    'table',
    { class: 'grid' },
    el('caption', { class: 'sr-only' }, 'Notices the product sends'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['notice', 'kind', 'own texts', 'actions'].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el('tbody', { id: 'template-rows' }),
  );
  $('#message-templates').replaceChildren(
    el(
      'article',
      { class: 'item tool', id: 'templates-tool', 'aria-labelledby': 'h-templates' },
      el('h3', { id: 'h-templates' }, 'Notice texts'),
      el(
        'p',
        { class: 'description' },
        'What people get from the product itself, in their language (else the tenant language, else English). ',
        'Change the subject and text of a notice per language; the preview shows it with sample data.',
      ),
      el('p', { class: 'error', id: 'templates-error', role: 'alert' }),
      el('p', { class: 'meta', id: 'templates-status', role: 'status' }),
      scroller('Notices table', table),
      editor(),
    ),
  );
  return load();
}
