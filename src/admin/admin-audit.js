// The security event log section of the admin page (GET /api/auditlog, superusers). Uses the
// helpers of admin.js ($, el, api), which is loaded first.
'use strict';

const AUDIT_PAGE = 25;
const AUDIT_TYPES = ['password.changed', 'password.reset', 'email.changed', 'mobile.changed', 'roles.changed', 'config.changed',
  'login.succeeded', 'login.failed', 'login.throttled', 'logout', 'operator.imported', 'operator.exported', 'operator.host_added',
  'operator.host_removed', 'operator.suspended', 'operator.resumed'];
let auditOffset = 0;

function auditQuery() {
  const form = new FormData($('#audit-filter'));
  const q = new URLSearchParams({ limit: String(AUDIT_PAGE + 1), offset: String(auditOffset) });
  for (const name of ['type', 'user_name', 'startdate', 'enddate']) {
    const v = String(form.get(name) || '').trim();
    if (v) q.set(name, v);
  }
  return q;
}

async function loadAuditLog() {
  const { status, data } = await api('GET', `/api/auditlog?${auditQuery()}`);
  $('#audit-error').textContent = status === 200 ? '' : data.message;
  if (status === 403) {
    $('#audit').hidden = true;
    return;
  }
  $('#audit').hidden = false;
  if (status !== 200) return;
  // one more than a page was asked for, to know whether an older page exists
  const entries = data.auditlog.slice(0, AUDIT_PAGE);
  $('#audit-rows').replaceChildren(
    ...entries.map((e) =>
      el('tr', { class: 'audit-entry' },
        el('td', {}, new Date(e.at).toLocaleString()),
        el('td', { class: 'type' }, e.type),
        el('td', { class: 'actor' }, e.actor),
        el('td', { class: 'subject' }, e.subject ?? ''),
        el('td', {}, e.ip ?? ''),
        el('td', { class: 'details' }, JSON.stringify(e.details))),
    ),
  );
  if (entries.length === 0) $('#audit-rows').append(el('tr', {}, el('td', { colspan: '6', class: 'meta' }, 'no entries')));
  $('#audit-newer').disabled = auditOffset === 0;
  $('#audit-older').disabled = data.auditlog.length <= AUDIT_PAGE;
  $('#audit-page').textContent = entries.length ? `entries ${auditOffset + 1}-${auditOffset + entries.length}` : '';
}

// called by admin.js once the config items are shown
function showAuditLog() {
  auditOffset = 0;
  loadAuditLog();
}

$('#audit-types').replaceChildren(...AUDIT_TYPES.map((t) => el('option', { value: t })));
$('#audit-filter').addEventListener('submit', (ev) => {
  ev.preventDefault();
  showAuditLog();
});
$('#audit-newer').addEventListener('click', () => {
  auditOffset = Math.max(0, auditOffset - AUDIT_PAGE);
  loadAuditLog();
});
$('#audit-older').addEventListener('click', () => {
  auditOffset += AUDIT_PAGE;
  loadAuditLog();
});
