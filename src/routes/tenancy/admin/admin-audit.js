// Activity: the tenant's security event log (GET /api/auditlog, superusers) with filters and
// pages. Answers "who changed the password policy?": type config.changed, user or date.
import { $, api, el, field, scroller, when } from './admin-dom.js';

const PAGE = 25;
const TYPES = [
  'config.changed',
  'delivery.retried',
  'password.changed',
  'password.reset',
  'email.changed',
  'mobile.changed',
  'roles.changed',
  'login.succeeded',
  'login.failed',
  'login.throttled',
  'logout',
  'operator.imported',
  'operator.exported',
  'operator.host_added',
  'operator.host_removed',
  'operator.suspended',
  'operator.resumed',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
];
let offset = 0;

function query() {
  const form = new FormData($('#audit-filter'));
  const q = new URLSearchParams({ limit: String(PAGE + 1), offset: String(offset) });
  for (const name of ['type', 'user_name', 'startdate', 'enddate']) {
    const v = String(form.get(name) || '').trim();
    if (v) q.set(name, v);
  }
  return q;
}

async function load() {
  const { status, data } = await api('GET', `/api/auditlog?${query()}`);
  $('#audit-error').textContent = status === 200 ? '' : data.message;
  if (status !== 200) return;
  // one more than a page was asked for, to know whether an older page exists
  const entries = data.auditlog.slice(0, PAGE);
  $('#audit-rows').replaceChildren(
    ...entries.map((e) =>
      el(
        'tr',
        { class: 'audit-entry' },
        el('td', {}, when(e.at)),
        el('td', { class: 'type' }, e.type),
        el('td', { class: 'actor' }, e.actor),
        el('td', { class: 'subject' }, e.subject ?? ''),
        el('td', {}, e.ip ?? ''),
        el('td', { class: 'details' }, JSON.stringify(e.details)),
      ),
    ),
  );
  if (entries.length === 0) $('#audit-rows').append(el('tr', {}, el('td', { colspan: '6', class: 'meta' }, 'no entries')));
  $('#audit-newer').disabled = offset === 0;
  $('#audit-older').disabled = data.auditlog.length <= PAGE;
  $('#audit-page').textContent = entries.length ? `entries ${offset + 1}-${offset + entries.length}` : '';
}

const page = (delta) => () => {
  offset = Math.max(0, offset + delta);
  load();
};

export function showAuditLog() {
  offset = 0;
  $('#audit').replaceChildren(
    el('p', { class: 'intro' }, 'The security event log: logins, password and role changes, config changes (never a secret value), retried deliveries.'),
    el(
      'form',
      {
        id: 'audit-filter',
        class: 'inline-fields',
        onsubmit: (ev) => {
          ev.preventDefault();
          offset = 0;
          load();
        },
      },
      field('Types', el('input', { name: 'type', list: 'audit-types', placeholder: 'e.g. config.changed,roles.changed' })),
      el(
        'datalist',
        { id: 'audit-types' },
        TYPES.map((t) => el('option', { value: t })),
      ),
      field('User name', el('input', { name: 'user_name', placeholder: 'actor or subject' })),
      field('From', el('input', { name: 'startdate', type: 'date' })),
      field('To (inclusive)', el('input', { name: 'enddate', type: 'date' })),
      el('button', { type: 'submit' }, 'Show'),
    ),
    el('p', { class: 'error', id: 'audit-error', role: 'alert' }),
    scroller(
      'Security event log table',
      el(
        'table',
        { class: 'grid audit' },
        el('caption', { class: 'sr-only' }, 'Security event log, newest first'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['when', 'type', 'actor', 'subject', 'address', 'details'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', { id: 'audit-rows' }),
      ),
    ),
    el(
      'p',
      { class: 'pager' },
      el('button', { id: 'audit-newer', type: 'button', onclick: page(-PAGE) }, 'Newer'),
      el('span', { id: 'audit-page', 'aria-live': 'polite' }),
      el('button', { id: 'audit-older', type: 'button', onclick: page(PAGE) }, 'Older'),
    ),
  );
  return load();
}
