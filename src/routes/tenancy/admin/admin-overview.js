// Overview: the state of the organisations the caller may see (superusers: all; managers: the
// subtrees they manage), from GET /api/reports/compliance of each top organisation (recursive),
// asked with expiring_within_days 30, 60 and 90:
// - compliance per organisation: percent_compliant of every row (the 90-day answer; the percentage
//   does not depend on the window), a bar each;
// - what expires: the tops' `expiring` counts within 30, 60 and 90 days, drawn as the windows
//   0-30, 31-60 and 61-90 days (differences of the cumulative counts);
// - the ten competences most often not held: by_competence of the tops, missing + expired summed.
// Each chart has its numbers as a table and links to the matrix filtered to the bar.
import { $, api, el } from './admin-dom.js';
import { allPages } from './admin-forms.js';
import { barChart, dataTable, timelineChart } from './admin-charts.js';
import { flattenTree, loadOrganisations } from './admin-org-tree.js';
import { matrixHref, showMatrix } from './admin-matrix.js';

export const WINDOWS = [30, 60, 90];

const addDays = (day, n) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

const link = (href, text) => el('a', { href }, text);

async function compliance(orgId, days) {
  const { status, data } = await api('GET', `/api/reports/compliance?organisation_id=${orgId}&recursive=1&expiring_within_days=${days}`);
  if (status !== 200) throw new Error(data.message);
  return data.compliance;
}

function complianceChart(rows) {
  const depth = new Map();
  for (const r of rows) depth.set(r.organisation_id, r.parent_id === null ? 0 : (depth.get(r.parent_id) ?? 0) + 1);
  const href = (r) => matrixHref({ organisation_id: r.organisation_id, recursive: 1 });
  const held = (r) => r.passed + r.expiring;
  return el(
    'figure',
    { class: 'chart-box', id: 'overview-compliance' },
    el('h3', {}, 'Compliance per organisation'),
    barChart({
      id: 'chart-compliance',
      title: 'Compliance per organisation',
      desc: `Percent of mandatory competences held (passed or expiring) per organisation, itself and every unit below it: ${rows.map((r) => `${r.organisation_name} ${r.percent_compliant}%`).join(', ')}.`,
      bars: rows.map((r) => ({
        label: r.organisation_name,
        indent: depth.get(r.organisation_id),
        value: r.percent_compliant,
        max: 100,
        text: `${r.percent_compliant}% (${held(r)} of ${r.required})`,
        name: `${r.organisation_name} ${r.percent_compliant}% compliant, ${held(r)} of ${r.required} held. Open its matrix`,
        href: href(r),
      })),
    }),
    dataTable({
      id: 'table-compliance',
      caption: 'Compliance per organisation',
      head: ['Organisation', 'Persons', 'Required', 'Passed', 'Expiring', 'Expired', 'Missing', '% compliant'],
      rows: rows.map((r) => [link(href(r), r.organisation_name), r.persons, r.required, r.passed, r.expiring, r.expired, r.missing, r.percent_compliant]),
    }),
  );
}

function expiryChart(tops, byWindow) {
  const day = byWindow[WINDOWS[0]][0]?.[0]?.date;
  const cumulative = WINDOWS.map((_, i) => byWindow[WINDOWS[i]].reduce((n, rows) => n + (rows[0]?.expiring ?? 0), 0));
  const windows = WINDOWS.map((days, i) => ({
    days,
    from: i === 0 ? 0 : WINDOWS[i - 1] + 1,
    count: cumulative[i] - (i === 0 ? 0 : cumulative[i - 1]),
    within: cumulative[i],
  }));
  const href = (w) => matrixHref({ organisation_id: tops[0].organisation_id, recursive: 1, expiring_within_days: w.days });
  return el(
    'figure',
    { class: 'chart-box', id: 'overview-expiry' },
    el('h3', {}, 'Expiring in the next 90 days'),
    timelineChart({
      id: 'chart-expiry',
      title: 'Mandatory competences expiring in the next 30, 60 and 90 days',
      desc: `Held mandatory competences whose validity ends: ${windows.map((w) => `${w.from} to ${w.days} days: ${w.count}`).join('; ')}.`,
      columns: windows.map((w) => ({
        label: `${w.from}–${w.days} days`,
        sub: `to ${addDays(day, w.days)}`,
        value: w.count,
        href: href(w),
        name: `${w.from}–${w.days} days to ${addDays(day, w.days)}: ${w.count} expiring. Open the matrix with expiring within ${w.days} days`,
      })),
    }),
    dataTable({
      id: 'table-expiry',
      caption: 'Expiring in the next 90 days',
      head: ['Window', 'Until', 'Expiring in the window', 'Expiring within (cumulative)'],
      rows: windows.map((w) => [link(href(w), `${w.from}–${w.days} days`), addDays(day, w.days), w.count, w.within]),
    }),
  );
}

function missingChart(tops, answers) {
  const by = new Map();
  answers.forEach((rows, i) => {
    for (const c of rows[0]?.by_competence ?? []) {
      const sum = by.get(c.competence_id) ?? { competence_id: c.competence_id, title: c.title, missing: 0, expired: 0, required: 0, top: null, most: -1 };
      sum.missing += c.missing;
      sum.expired += c.expired;
      sum.required += c.required;
      if (c.missing + c.expired > sum.most) Object.assign(sum, { most: c.missing + c.expired, top: tops[i].organisation_id });
      by.set(c.competence_id, sum);
    }
  });
  const top = [...by.values()]
    .map((c) => ({ ...c, notHeld: c.missing + c.expired }))
    .filter((c) => c.notHeld > 0)
    .sort((a, b) => b.notHeld - a.notHeld || a.title.localeCompare(b.title))
    .slice(0, 10);
  const href = (c) => matrixHref({ organisation_id: c.top, recursive: 1, competence_ids: c.competence_id });
  const max = Math.max(1, ...top.map((c) => c.notHeld));
  return el(
    'figure',
    { class: 'chart-box', id: 'overview-missing' },
    el('h3', {}, 'Competences most often missing'),
    barChart({
      id: 'chart-missing',
      title: 'The ten mandatory competences most often not held (missing or expired)',
      desc: top.length ? `Persons missing each: ${top.map((c) => `${c.title} ${c.notHeld}`).join(', ')}.` : 'Every mandatory competence is held.',
      emptyText: 'Every mandatory competence is held.',
      bars: top.map((c) => ({
        label: c.title,
        value: c.notHeld,
        max,
        cls: 'missing',
        text: `${c.notHeld} of ${c.required}`,
        name: `${c.title} ${c.notHeld} of ${c.required} not held: ${c.missing} missing, ${c.expired} expired. Open the matrix of this competence`,
        href: href(c),
      })),
    }),
    dataTable({
      id: 'table-missing',
      caption: 'Competences most often missing',
      head: ['Competence', 'Missing', 'Expired', 'Not held', 'Required'],
      rows: top.map((c) => [link(href(c), c.title), c.missing, c.expired, c.notHeld, c.required]),
    }),
  );
}

/**
 * Draws the Overview and the Matrix for the organisations the caller may see. Answers false (and
 * draws nothing) when there are none: someone neither superuser nor manager.
 */
export async function showOverview({ superuser }) {
  const tree = await loadOrganisations();
  if (tree.length === 0) return false;
  const body = $('#overview-body');
  body.replaceChildren(el('p', { class: 'meta', role: 'status' }, 'Reading the compliance reports…'));
  let byWindow;
  try {
    const answers = await Promise.all(WINDOWS.map((days) => Promise.all(tree.map((t) => compliance(t.organisation_id, days)))));
    byWindow = Object.fromEntries(WINDOWS.map((days, i) => [days, answers[i]]));
  } catch (e) {
    body.replaceChildren(el('p', { class: 'error', role: 'alert' }, e.message));
    return true;
  }
  const latest = byWindow[WINDOWS.at(-1)];
  const rows = latest.flat();
  body.replaceChildren(
    el('p', { class: 'meta', id: 'overview-date' }, `As of ${rows[0]?.date ?? ''}, mandatory competences of active persons.`),
    el('div', { class: 'charts' }, complianceChart(rows), expiryChart(tree, byWindow), missingChart(tree, latest)),
  );
  const competences = new Map();
  for (const top of latest) for (const c of top[0]?.by_competence ?? []) competences.set(c.competence_id, c.title);
  // GET /api/roles?all=1 is for superusers: a manager filters by competence, not by role
  const roles = superuser ? await allPages(api, '/api/roles?all=1', 'roles') : null;
  await showMatrix({
    organisations: flattenTree(tree),
    competences: [...competences].map(([competence_id, title]) => ({ competence_id, title })).sort((a, b) => a.title.localeCompare(b.title)),
    roles,
  });
  return true;
}
