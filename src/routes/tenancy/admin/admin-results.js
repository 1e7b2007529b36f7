// Calendar → event → Participants: the signed-on persons of an event (GET /api/participants/:id,
// waitlist=0) as a table of inputs, attended / passed / grade / comments per person, keyboard
// first: Tab or Enter moves to the next field along the row and on to the next person's row
// (Shift+Enter back; the last field's Enter goes to "Save results"), Space ticks "attended",
// Ctrl+Enter saves, Escape closes. "Save results" sends the rows that changed (only their changed
// fields) in one PUT /api/participants/:id with `results` (all or nothing); the API's 419/420/404/409
// naming `results[i].field` is shown under that person's field, which gets focus.
import { api, el, scroller, uid } from './admin-dom.js';
import { allPages, problemsOf } from './admin-forms.js';

const text = (v) => (v === null || v === undefined ? '' : String(v));
const personName = (p) => [p.firstname, p.lastname].filter(Boolean).join(' ') || p.user_name;

function resultText(p) {
  if (p.passed === null) return 'not assessed';
  const reached = p.pass_reached ? 'pass mark reached' : 'below the pass mark';
  return `${reached}${p.holds_competence ? ' · holds the competence' : ''}`;
}

/** One person's row: a header cell with the name and a row error, then an input per field, each with its error line. */
function personRow(p) {
  const name = personName(p);
  const cell = (f, input) => {
    const errId = uid('re');
    input.setAttribute('aria-describedby', errId);
    return el('td', { 'data-field': f }, input, el('p', { class: 'error field-error', id: errId }));
  };
  const rowErr = uid('rre');
  return el(
    'tr',
    { 'data-user-name': p.user_name },
    el(
      'th',
      { scope: 'row', 'data-field': 'user_name' },
      el('span', { class: 'title' }, name),
      el('span', { class: 'meta' }, ` ${p.user_name}`),
      el('p', { class: 'error field-error', id: rowErr }),
    ),
    cell('met', el('input', { type: 'checkbox', name: 'met', 'aria-label': `Attended: ${name}`, checked: p.met })),
    cell(
      'passed',
      el('input', {
        type: 'text',
        name: 'passed',
        inputmode: 'numeric',
        size: '4',
        autocomplete: 'off',
        'aria-label': `Passed (0 to 100): ${name}`,
        value: text(p.passed),
      }),
    ),
    cell(
      'grade',
      el('input', { type: 'text', name: 'grade', inputmode: 'decimal', size: '5', autocomplete: 'off', 'aria-label': `Grade: ${name}`, value: text(p.grade) }),
    ),
    cell('comments', el('input', { type: 'text', name: 'comments', autocomplete: 'off', 'aria-label': `Comments: ${name}`, value: text(p.comments) })),
    el('td', { class: 'meta result' }, resultText(p)),
  );
}

/** What changed in `tr` against the recorded `p`: {user_name, ...changed fields} or null. */
function changes(tr, p) {
  const now = (f) => (f === 'met' ? tr.querySelector('[name=met]').checked : tr.querySelector(`[name=${f}]`).value.trim());
  const out = {};
  if (now('met') !== p.met) out.met = now('met') ? 1 : 0;
  for (const f of ['passed', 'grade', 'comments']) if (now(f) !== text(p[f])) out[f] = now(f);
  return Object.keys(out).length ? { user_name: p.user_name, ...out } : null;
}

/**
 * The results form of `event`, for openEditor (admin-forms.js): {node, focus}. `close()` closes it
 * (focus back to the button that opened it).
 */
export async function resultsForm(event, close) {
  const id = `results-${event.event_id}`;
  const headingId = uid('hr');
  const general = el('p', { class: 'error', role: 'alert' });
  const status = el('p', { class: 'saved', role: 'status' });
  const body = el('tbody');
  const save = el('button', { type: 'submit', class: 'save-results' }, 'Save results');
  let recorded = [];

  const load = async () => {
    recorded = await allPages(api, `/api/participants/${event.event_id}?waitlist=0`, 'participants', 2000);
    body.replaceChildren(...recorded.map(personRow));
    if (recorded.length === 0) body.append(el('tr', {}, el('td', { colspan: '6', class: 'meta' }, 'nobody is signed on (the wait list gets no results)')));
  };
  const inputs = () => [...body.querySelectorAll('input')];
  const clearErrors = () => {
    general.textContent = '';
    for (const p of body.querySelectorAll('.field-error')) p.textContent = '';
    for (const i of body.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
  };
  /** The API's problem next to the field of the row it names (results[i].field, i of the batch sent). */
  const showErrors = (data, sent) => {
    let first = null;
    const elsewhere = [];
    for (const p of problemsOf(data)) {
      const m = /^results\[(\d+)\]\.(\w+)$/.exec(p.parameter ?? '');
      const tr = m && sent[Number(m[1])] && body.querySelector(`tr[data-user-name="${CSS.escape(sent[Number(m[1])].user_name)}"]`);
      const cell = tr?.querySelector(`[data-field="${m[2]}"]`);
      if (!cell) {
        elsewhere.push(p.message);
        continue;
      }
      cell.querySelector('.field-error').textContent = p.message;
      const input = cell.querySelector('input') ?? tr.querySelector('input');
      input.setAttribute('aria-invalid', 'true');
      first ??= input;
    }
    general.textContent = elsewhere.join('; ');
    first?.focus();
  };

  const form = el('form', { id, class: 'entity-form results-form', 'aria-labelledby': headingId, novalidate: true });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearErrors();
    const rows = [...body.querySelectorAll('tr[data-user-name]')];
    const sent = rows
      .map((tr) =>
        changes(
          tr,
          recorded.find((p) => p.user_name === tr.dataset.userName),
        ),
      )
      .filter(Boolean);
    if (sent.length === 0) {
      status.textContent = 'nothing to save: no result changed';
      return;
    }
    save.disabled = true;
    status.textContent = '';
    try {
      const { status: s, data } = await api('PUT', `/api/participants/${event.event_id}`, { results: sent });
      if (s !== 200) return showErrors(data, sent);
      await load();
      status.textContent = data.message ?? `${sent.length} result(s) recorded`;
    } finally {
      save.disabled = false;
    }
    save.focus();
  });
  form.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') {
      ev.preventDefault();
      ev.stopPropagation();
      return close();
    }
    if (ev.key !== 'Enter') return;
    if (ev.ctrlKey || ev.metaKey) {
      ev.preventDefault();
      return form.requestSubmit(save);
    }
    if (!(ev.target instanceof HTMLInputElement) || !body.contains(ev.target)) return;
    ev.preventDefault();
    const all = inputs();
    const next = all[all.indexOf(ev.target) + (ev.shiftKey ? -1 : 1)];
    (next ?? (ev.shiftKey ? ev.target : save)).focus();
  });
  const allMet = el(
    'button',
    {
      type: 'button',
      class: 'all-met',
      onclick: () => {
        for (const c of body.querySelectorAll('input[name=met]')) c.checked = true;
        status.textContent = 'every person marked as attended (not saved yet)';
      },
    },
    'Mark everyone as attended',
  );
  await load();
  form.append(
    el('h4', { id: headingId }, `Results of ${event.title}`),
    el(
      'p',
      { class: 'description' },
      'Tab or Enter moves to the next field, along the row and on to the next person (Shift+Enter back); Space ticks "attended"; Ctrl+Enter saves. Passed is 0 to 100: at the pass mark the person gets the competence. Only changed rows are sent.',
    ),
    el('div', { class: 'toolbar' }, allMet),
    scroller(
      `Results of ${event.title}`,
      el(
        'table',
        { class: 'grid results' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Person', 'Attended', 'Passed', 'Grade', 'Comments', 'Result'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        body,
      ),
    ),
    general,
    status,
    el('div', { class: 'form-buttons' }, save, el('button', { type: 'button', class: 'close', onclick: () => close() }, 'Close')),
  );
  return { node: form, focus: () => (inputs()[0] ?? allMet).focus() };
}
