// The import page of the People section, on POST /api/imports (multipart: file, type, dry_run,
// deactivate_missing), GET /api/imports/:id and GET /api/imports/templates/:type: type, template
// link, file, "Check file" (a dry run: the report of the rows that would fail, row, column and the
// API's text) and "Import" (202, then the progress polled every half second into a <progress> and a
// polite live region, then the counts and the failed rows).
import { el, scroller, uid } from './admin-dom.js';
import { problemsOf } from './admin-forms.js';

const TYPES = [
  ['persons', 'Persons'],
  ['organisations', 'Organisations'],
  ['managers', 'Managers'],
  ['role_assignments', 'Role assignments'],
  ['registrations', 'Registrations (competences held)'],
];
const POLL_MS = 500;

/** POST /api/imports with the form's file and options; the envelope as {status, data}. */
async function send(form, dryRun) {
  const f = new FormData(form);
  const body = new FormData();
  // the options first: the API reads fields given before the file
  body.append('type', String(f.get('type')));
  if (dryRun) body.append('dry_run', '1');
  if (f.get('deactivate_missing') && f.get('type') === 'persons') body.append('deactivate_missing', '1');
  const file = f.get('file');
  if (file instanceof File && file.name !== '') body.append('file', file, file.name);
  const res = await fetch('/api/imports', { method: 'POST', credentials: 'same-origin', body });
  let data;
  try {
    data = await res.json();
  } catch {
    data = { message: `unexpected answer (HTTP ${res.status})` };
  }
  return { status: res.status, data };
}

const counts = (r, dry) => {
  const would = dry ? 'would be ' : '';
  const parts = [`${r.created} ${would}created`, `${r.updated} ${would}updated`, `${r.unchanged} unchanged`, `${r.failed} ${dry ? 'would fail' : 'failed'}`];
  if (r.deactivate_missing) parts.push(`${r.deactivated} deactivated`);
  return `${r.rows_total} row${r.rows_total === 1 ? '' : 's'}: ${parts.join(', ')}`;
};

/** The failed rows (row as a spreadsheet numbers it, column, the API's text). */
function failures(r, caption) {
  if (r.failed_rows.length === 0) return el('p', { class: 'meta' }, 'no row failed');
  return scroller(
    caption,
    el(
      'table',
      { class: 'grid import-failures' },
      el('caption', { class: 'sr-only' }, caption),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['Row', 'Column', 'Message'].map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        r.failed_rows.map((p) =>
          el('tr', { 'data-row': String(p.row) }, el('td', {}, String(p.row)), el('td', {}, p.column ?? '(the row)'), el('td', { class: 'reason' }, p.message)),
        ),
      ),
    ),
  );
}

export async function showImport(box) {
  const ids = { type: uid('imp-type'), file: uid('imp-file'), typeErr: uid('imp-type-err'), fileErr: uid('imp-file-err') };
  const template = el('a', { id: 'import-template', download: true });
  const general = el('p', { class: 'error', id: 'import-error', role: 'alert' });
  const report = el('div', { id: 'import-report', tabindex: '-1' });
  const live = el('p', { class: 'meta', id: 'import-live', role: 'status', 'aria-live': 'polite' });
  const progress = el('progress', { id: 'import-progress', max: '1', value: '0', 'aria-label': 'Import progress', hidden: true });
  const typeSelect = el(
    'select',
    { id: ids.type, name: 'type', 'aria-describedby': ids.typeErr },
    TYPES.map(([v, label]) => el('option', { value: v }, label)),
  );
  const fileInput = el('input', {
    id: ids.file,
    name: 'file',
    type: 'file',
    accept: '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'aria-describedby': ids.fileErr,
  });
  const deactivate = el(
    'label',
    { class: 'inline', id: 'import-deactivate' },
    el('input', { type: 'checkbox', name: 'deactivate_missing' }),
    'deactivate active persons the file does not name',
  );
  const buttons = [
    el('button', { type: 'submit', id: 'import-check', value: 'check' }, 'Check file (dry run)'),
    el('button', { type: 'submit', id: 'import-start', value: 'import' }, 'Import'),
  ];
  const typeChanged = () => {
    const t = typeSelect.value;
    template.href = `/api/imports/templates/${t}`;
    template.textContent = `Download the ${TYPES.find(([v]) => v === t)[1].toLowerCase()} template (CSV)`;
    deactivate.hidden = t !== 'persons';
  };
  typeSelect.addEventListener('change', typeChanged);

  const fieldOf = { type: [typeSelect, ids.typeErr], file: [fileInput, ids.fileErr] };
  const clear = () => {
    general.textContent = '';
    for (const [input, errId] of Object.values(fieldOf)) {
      document.getElementById(errId).textContent = '';
      input.removeAttribute('aria-invalid');
    }
  };
  /** 419/420 naming type or file under that field; 413 (too large) under the file; others above the buttons. */
  const showError = (status, data) => {
    const p = problemsOf(data)[0];
    const name = status === 413 ? 'file' : p.parameter;
    const target = fieldOf[name];
    if (!target) {
      general.textContent = data.message;
      return general.focus?.();
    }
    document.getElementById(target[1]).textContent = data.message;
    target[0].setAttribute('aria-invalid', 'true');
    target[0].focus();
  };

  let polling = null;
  const follow = async (first) => {
    let r = first;
    progress.hidden = false;
    let said = '';
    for (;;) {
      progress.max = Math.max(1, r.rows_total);
      progress.value = r.rows_done;
      const text = r.state === 'queued' ? 'Import queued…' : `Importing: ${r.rows_done} of ${r.rows_total} rows done`;
      if (r.state !== 'finished' && r.state !== 'failed' && text !== said) live.textContent = said = text;
      if (r.state === 'finished' || r.state === 'failed') break;
      await new Promise((ok) => {
        polling = setTimeout(ok, POLL_MS);
      });
      const res = await fetch(`/api/imports/${encodeURIComponent(r.import_id)}`, { credentials: 'same-origin' });
      const data = await res.json().catch(() => ({ message: `unexpected answer (HTTP ${res.status})` }));
      if (res.status !== 200) {
        live.textContent = '';
        general.textContent = data.message;
        return;
      }
      r = data.imports[0];
    }
    polling = null;
    const done = r.state === 'finished';
    live.textContent = done ? `Import finished. ${counts(r, false)}` : `Import failed: ${r.error ?? 'see the report'}`;
    report.replaceChildren(
      el('h4', {}, done ? `Imported ${r.file_name}` : `Import of ${r.file_name} failed`),
      el('p', { class: done && !r.failed ? 'saved' : 'error', id: 'import-counts' }, done ? counts(r, false) : (r.error ?? 'failed')),
      failures(r, `Rows of ${r.file_name} not imported`),
    );
  };

  const form = el(
    'form',
    {
      id: 'import-form',
      novalidate: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        if (polling) return;
        const dry = ev.submitter?.value !== 'import';
        clear();
        report.replaceChildren();
        live.textContent = dry ? 'Checking the file…' : 'Sending the file…';
        for (const b of buttons) b.disabled = true;
        try {
          const { status, data } = await send(form, dry);
          if (status !== 200 && status !== 202) {
            live.textContent = '';
            return showError(status, data);
          }
          const r = data.imports[0];
          if (dry) {
            live.textContent = `Checked: ${counts(r, true)}. Nothing was written.`;
            report.replaceChildren(
              el('h4', {}, `Check of ${r.file_name}: nothing was written`),
              el('p', { class: r.failed ? 'error' : 'saved', id: 'import-counts' }, counts(r, true)),
              failures(r, `Rows of ${r.file_name} that would fail`),
            );
            return;
          }
          report.replaceChildren();
          await follow(r);
        } finally {
          for (const b of buttons) b.disabled = false;
        }
      },
    },
    el(
      'div',
      { class: 'fields import-fields' },
      el(
        'div',
        { class: 'field' },
        el('label', { for: ids.type }, 'What the file holds'),
        typeSelect,
        el('p', { class: 'error field-error', id: ids.typeErr }),
      ),
      el(
        'div',
        { class: 'field' },
        el('label', { for: ids.file }, 'File (CSV or XLSX, a header row with the columns)'),
        fileInput,
        el('p', { class: 'error field-error', id: ids.fileErr }),
      ),
    ),
    el('p', {}, template, el('span', { class: 'meta' }, ' — the columns and a sample row; delete the sample before importing.')),
    deactivate,
    general,
    el('div', { class: 'form-buttons' }, buttons),
  );
  typeChanged();
  box.replaceChildren(
    el(
      'article',
      { class: 'item tool', id: 'import-tool', 'aria-labelledby': 'h-import' },
      el('h3', { id: 'h-import' }, 'Import'),
      el(
        'p',
        { class: 'description' },
        'Bring in persons, organisations, managers, role assignments or registrations from a spreadsheet. Check the file first: nothing is written, and the rows that would fail are listed. Importing the same file again changes nothing.',
      ),
      form,
      progress,
      live,
      report,
    ),
  );
}
