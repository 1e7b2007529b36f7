// Tenant admin console: plain ES modules served as they are (no build step, no framework);
// this module logs in and out and hands each section to its own module.
import { $, api } from './admin-dom.js';
import { showSettings } from './admin-settings.js';
import { showTools } from './admin-tools.js';
import { showAuditLog } from './admin-audit.js';
import { showDeliveries } from './admin-deliveries.js';
import { showWebhooks } from './admin-webhooks.js';
import { showTemplates } from './admin-templates.js';
import { showCatalogue } from './admin-catalogue.js';
import { showCalendar } from './admin-calendar.js';
import { showPeople } from './admin-people.js';
import { showSignIn } from './admin-signin.js';
import { forget } from './admin-lookups.js';
import { setTimeZone } from './admin-time.js';
import { showOverview } from './admin-overview.js';
import { matrixParamsOf, openMatrix } from './admin-matrix.js';

/** Shows the sections of a superuser (all), or of a manager (Overview and Matrix only). */
function showSections(all) {
  for (const s of document.querySelectorAll('#console > .section:not(.reports), #sections li:not(.reports)')) s.hidden = !all;
  for (const s of document.querySelectorAll('#console > .section.reports, #sections li.reports')) s.hidden = false;
}

/**
 * A link like /admin#deliveries lands on its section, /admin#matrix?organisation_id=5 on the matrix
 * filtered, once the sections are drawn; not when the user has moved focus meanwhile (it stays theirs).
 */
function goToHash() {
  if (document.activeElement && document.activeElement !== document.body) return;
  const matrix = matrixParamsOf(location.hash);
  if (matrix) return openMatrix(matrix);
  if (location.hash) document.getElementById(location.hash.slice(1))?.focus();
}

function showLogin() {
  $('#console').hidden = true;
  $('#sections').hidden = true;
  $('#logout').hidden = true;
  $('#login').hidden = false;
}

async function showConsole() {
  const { status, data } = await api('GET', '/api/configitems/definitions');
  $('#status').textContent = '';
  if (status === 401) return showLogin();
  $('#login').hidden = true;
  $('#logout').hidden = false;
  if (status !== 200) {
    $('#status').textContent = data.message;
    // a manager: the Overview and the Matrix of the organisations they manage; the rest is for superusers
    if (status === 403 && (await showOverview({ superuser: false }))) {
      $('#status').textContent = 'You see the organisations you manage. The other sections are for superusers only.';
      showSections(false);
      $('#console').hidden = false;
      $('#sections').hidden = false;
      goToHash();
    }
    return;
  }
  showSettings(data.configitems);
  showTools();
  setTimeZone(data.configitems.find((i) => i.config_item_id === 'tenant.timezone')?.value);
  forget();
  showSections(true);
  $('#console').hidden = false;
  $('#sections').hidden = false;
  await Promise.all([
    showOverview({ superuser: true }),
    showAuditLog(),
    showDeliveries(),
    showWebhooks(),
    showTemplates(),
    showCatalogue(),
    showPeople(),
    showCalendar(),
    showSignIn(),
  ]);
  goToHash();
}

// the Overview's links (#matrix?organisation_id=...) open the matrix filtered
window.addEventListener('hashchange', () => {
  const matrix = matrixParamsOf(location.hash);
  if (matrix && !$('#console').hidden) openMatrix(matrix);
});
// the same link again changes no hash: open it all the same
document.addEventListener('click', (ev) => {
  const a = ev.target.closest?.('a[href^="#matrix?"]');
  if (a && a.getAttribute('href') === location.hash) openMatrix(matrixParamsOf(location.hash));
});

$('#login').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const { status, data } = await api('POST', '/api/login', { user_name: form.get('user_name'), password: form.get('password'), login: 1 });
  $('#login-error').textContent = status === 200 ? '' : data.message;
  if (status === 200) {
    $('#who').textContent = String(form.get('user_name'));
    ev.target.reset();
    await showConsole();
  }
});

$('#logout').addEventListener('click', async () => {
  await api('POST', '/api/logout');
  $('#who').textContent = '';
  $('#status').textContent = '';
  showLogin();
  $('#login input[name=user_name]').focus();
});

// Moving focus with the jump keeps keyboard users where they went (sections have tabindex=-1).
$('#sections').addEventListener('click', (ev) => {
  const target = ev.target.closest('a[href^="#"]');
  if (target) document.getElementById(target.getAttribute('href').slice(1))?.focus();
});

showConsole();
