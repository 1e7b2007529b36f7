// Matrix: GET /api/reports/competencematrix with the report's filters (organisation, recursive,
// roles, competences, date, expiring_within_days, include_optional), 25 persons a page, one
// column per competence on the page, each cell's status in words (colour only adds to it), and
// the same filter as CSV and XLSX downloads (format=csv|xlsx; links, so the session cookie goes
// with them). Other sections open it filtered through a link `#matrix?organisation_id=...`.
import { $, api, el, field, scroller } from './admin-dom.js';
import { indented } from './admin-lookups.js';

const LIMIT = 25;
const FILTERS = ['organisation_id', 'recursive', 'role_ids', 'competence_ids', 'date', 'expiring_within_days', 'include_optional'];
const state = { params: null, offset: 0 };

/** The link that opens the matrix with `params` (organisation_id, recursive, competence_ids, ...). */
export const matrixHref = (params) =>
  `#matrix?${new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [k, String(v)]),
  )}`;

const say = (text, error = false) => {
  $('#matrix-status').textContent = error ? '' : text;
  $('#matrix-error').textContent = error ? text : '';
};

const selected = (select) => [...select.selectedOptions].map((o) => o.value);

/** The filter form's values as the report's query parameters (empty ones left out). */
function formParams() {
  const f = $('#matrix-filter');
  const params = {
    organisation_id: f.organisation_id.value,
    recursive: f.recursive.checked ? '1' : '0',
    role_ids: selected(f.role_ids).join(','),
    competence_ids: selected(f.competence_ids).join(','),
    date: f.date.value,
    expiring_within_days: f.expiring_within_days.value,
    include_optional: f.include_optional.checked ? '1' : '',
  };
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== ''));
}

function fillForm(params) {
  const f = $('#matrix-filter');
  if (params.organisation_id) f.organisation_id.value = params.organisation_id;
  f.recursive.checked = params.recursive === undefined ? true : params.recursive === '1';
  const pick = (select, ids) => {
    const want = new Set(
      String(ids ?? '')
        .split(',')
        .filter(Boolean),
    );
    for (const o of select.options) o.selected = want.has(o.value);
  };
  pick(f.role_ids, params.role_ids);
  pick(f.competence_ids, params.competence_ids);
  f.date.value = params.date ?? '';
  f.expiring_within_days.value = params.expiring_within_days ?? '60';
  f.include_optional.checked = params.include_optional === '1';
}

const query = (params, extra = {}) => new URLSearchParams({ ...params, ...extra }).toString();

function cell(c) {
  if (!c) return el('td', { class: 'status none' }, el('span', { class: 'sr-only' }, 'not required'));
  const text = c.status === 'missing' || !c.valid_until ? c.status : `${c.status} ${c.valid_until}`;
  return el('td', { class: `status status-${c.status}` }, text, c.mandatory ? null : el('span', { class: 'optional' }, ' (optional)'));
}

function drawTable(rows) {
  const columns = new Map();
  for (const r of rows) for (const c of r.competences) columns.set(c.competence_id, c.title);
  const cols = [...columns].sort((a, b) => a[1].localeCompare(b[1]));
  const table = el(
    'table',
    { id: 'matrix-table', class: 'grid matrix' },
    el('caption', { class: 'sr-only' }, 'Competence matrix: one row per person, one column per required competence'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'Person'),
        el('th', { scope: 'col' }, 'Organisation'),
        el('th', { scope: 'col' }, 'Compliant'),
        cols.map(([id, title]) => el('th', { scope: 'col', 'data-competence-id': String(id) }, title)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.length === 0
        ? el('tr', {}, el('td', { colspan: String(3 + cols.length) }, 'No persons match these filters.'))
        : rows.map((r) => {
            const byId = new Map(r.competences.map((c) => [c.competence_id, c]));
            return el(
              'tr',
              { 'data-user-name': r.user_name },
              el('th', { scope: 'row' }, `${r.lastname ?? ''}, ${r.firstname ?? ''}`, el('span', { class: 'meta' }, ` (${r.user_name})`)),
              el('td', {}, r.organisation_name ?? ''),
              el('td', { class: r.compliant ? 'compliant yes' : 'compliant no' }, r.compliant ? 'yes' : 'no'),
              cols.map(([id]) => cell(byId.get(id))),
            );
          }),
    ),
  );
  $('#matrix-result').replaceChildren(scroller('Competence matrix table', table));
}

/** Reads the page of the matrix for the current filter and draws it. */
async function load(focusTable = false) {
  const params = state.params;
  const url = `/api/reports/competencematrix?${query(params, { limit: LIMIT, offset: state.offset })}`;
  $('#matrix-export-csv').href = `/api/reports/competencematrix?${query(params, { format: 'csv' })}`;
  $('#matrix-export-xlsx').href = `/api/reports/competencematrix?${query(params, { format: 'xlsx' })}`;
  $('#matrix-result').setAttribute('aria-busy', 'true');
  const { status, data } = await api('GET', url);
  $('#matrix-result').removeAttribute('aria-busy');
  if (status !== 200) {
    $('#matrix-result').replaceChildren();
    $('#matrix-pager').hidden = true;
    return say(data.message, true);
  }
  const rows = data.competencematrix;
  drawTable(rows);
  const first = rows.length ? state.offset + 1 : 0;
  say(rows.length ? `Persons ${first}–${state.offset + rows.length} shown.` : 'No persons match these filters.');
  $('#matrix-pager').hidden = false;
  $('#matrix-prev').disabled = state.offset === 0;
  $('#matrix-next').disabled = rows.length < LIMIT;
  $('#matrix-page').textContent = `Page ${state.offset / LIMIT + 1}`;
  if (focusTable) $('#matrix-result .scroll')?.focus();
}

/** Opens the matrix with `params` (from a link of the Overview): filters filled, first page read, focus on the section. */
export async function openMatrix(params) {
  if (!$('#matrix-filter')) return;
  fillForm(params);
  state.params = formParams();
  state.offset = 0;
  $('#matrix').focus();
  await load();
}

/**
 * Draws the filters. `organisations`: the flattened tree the caller may see (with depth);
 * `competences`: [{competence_id, title}] required in it; `roles`: [{role_id, name}] or null.
 */
export function showMatrix({ organisations, competences, roles }) {
  const orgSelect = el(
    'select',
    { name: 'organisation_id', required: true },
    organisations.map((o) => el('option', { value: String(o.organisation_id) }, indented(o.depth, o.name))),
  );
  const roleSelect = el(
    'select',
    { name: 'role_ids', multiple: true, size: '4' },
    (roles ?? []).map((r) => el('option', { value: String(r.role_id) }, r.name)),
  );
  const form = el(
    'form',
    {
      id: 'matrix-filter',
      class: 'matrix-filter',
      onsubmit: (ev) => {
        ev.preventDefault();
        state.params = formParams();
        state.offset = 0;
        load(false);
      },
    },
    el(
      'div',
      { class: 'filter-fields' },
      field('Organisation', orgSelect),
      el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'recursive', checked: true }), 'and every unit below'),
      roles ? field('Roles (none: all)', roleSelect) : el('div', { hidden: true }, roleSelect),
      field(
        'Competences (none: all required)',
        el(
          'select',
          { name: 'competence_ids', multiple: true, size: '4' },
          competences.map((c) => el('option', { value: String(c.competence_id) }, c.title)),
        ),
      ),
      field('As of (empty: today)', el('input', { type: 'date', name: 'date' })),
      field('Expiring within (days)', el('input', { type: 'number', name: 'expiring_within_days', min: '0', max: '3650', step: '1', value: '60' })),
      el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'include_optional' }), 'include optional competences'),
    ),
    el(
      'div',
      { class: 'toolbar' },
      el('button', { type: 'submit' }, 'Show matrix'),
      el('a', { id: 'matrix-export-csv', class: 'button-link', href: '#matrix', download: '' }, 'Download CSV'),
      el('a', { id: 'matrix-export-xlsx', class: 'button-link', href: '#matrix', download: '' }, 'Download XLSX'),
    ),
  );
  $('#matrix-body').replaceChildren(
    form,
    el('p', { id: 'matrix-status', class: 'saved', role: 'status' }),
    el('p', { id: 'matrix-error', class: 'error', role: 'alert' }),
    el('div', { id: 'matrix-result' }),
    el(
      'div',
      { id: 'matrix-pager', class: 'pager', hidden: true },
      el(
        'button',
        {
          type: 'button',
          id: 'matrix-prev',
          onclick: () => {
            state.offset = Math.max(0, state.offset - LIMIT);
            load(true);
          },
        },
        'Previous',
      ),
      el('span', { id: 'matrix-page' }),
      el(
        'button',
        {
          type: 'button',
          id: 'matrix-next',
          onclick: () => {
            state.offset += LIMIT;
            load(true);
          },
        },
        'Next',
      ),
    ),
  );
  state.params = formParams();
  state.offset = 0;
  return load();
}

/** `#matrix?organisation_id=5&recursive=1` as an object; null for any other hash. */
export function matrixParamsOf(hash) {
  if (!hash.startsWith('#matrix?')) return null;
  const params = Object.fromEntries(new URLSearchParams(hash.slice('#matrix?'.length)));
  return Object.fromEntries(Object.entries(params).filter(([k]) => FILTERS.includes(k)));
}
