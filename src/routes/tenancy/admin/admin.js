// Tenant admin console: plain ES modules served as they are (no build step, no framework);
// this module logs in and out and hands each section to its own module.
import { $, api } from './admin-dom.js';
import { showSettings } from './admin-settings.js';
import { showTools } from './admin-tools.js';
import { showAuditLog } from './admin-audit.js';
import { showDeliveries } from './admin-deliveries.js';
import { showWebhooks } from './admin-webhooks.js';
import { showCatalogue } from './admin-catalogue.js';
import { showCalendar } from './admin-calendar.js';
import { showPeople } from './admin-people.js';
import { showSignIn } from './admin-signin.js';
import { forget } from './admin-lookups.js';
import { setTimeZone } from './admin-time.js';

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
    return;
  }
  showSettings(data.configitems);
  showTools();
  setTimeZone(data.configitems.find((i) => i.config_item_id === 'tenant.timezone')?.value);
  forget();
  $('#console').hidden = false;
  $('#sections').hidden = false;
  await Promise.all([showAuditLog(), showDeliveries(), showWebhooks(), showCatalogue(), showPeople(), showCalendar(), showSignIn()]);
  // a link like /admin#deliveries lands on its section once it exists
  if (location.hash) document.getElementById(location.hash.slice(1))?.focus();
}

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
