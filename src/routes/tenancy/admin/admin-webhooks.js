// Webhooks (Integrations): the tenant's endpoints with their state, a form to add one (its
// secret is shown once), per endpoint "send test event", secret rotation, enable/disable,
// delete, and its recent delivery attempts. Everything goes through /api/webhooks.
import { $, api, el, field, scroller, uid, when } from './admin-dom.js';

const EVENT_TYPES = [
  'person.created',
  'person.updated',
  'personcompetence.registered',
  'personcompetence.deleted',
  'personevent.signed_on',
  'personevent.signed_off',
  'personevent.promoted',
  'message.failed',
];
let selected = null;

const status = () => $('#webhooks-status');
const say = (text) => {
  status().textContent = text;
};

/** A secret is shown once, right after create or rotation; the admin copies it to the receiver. */
function showSecret(w) {
  $('#webhook-secret').replaceChildren(
    el('p', {}, el('strong', {}, 'Copy this secret to the receiver now: it is not shown again.'), ` Endpoint ${w.url}.`),
    field('Signing secret', el('textarea', { readonly: true, rows: '2', class: 'token', id: 'webhook-secret-value' }, w.secret)),
  );
  $('#webhook-secret').hidden = false;
  $('#webhook-secret-value').focus();
}

function stateOf(w) {
  if (!w.enabled) return `disabled: ${w.disabled_reason ?? ''}`;
  const parts = ['enabled'];
  if (w.failing_since) parts.push(`failing since ${when(w.failing_since)}`);
  if (w.waiting_deliveries) parts.push(`${w.waiting_deliveries} waiting`);
  if (w.previous_secret_until) parts.push(`previous secret signs until ${when(w.previous_secret_until)}`);
  return parts.join('; ');
}

async function act(method, url, done) {
  const { status: s, data } = await api(method, url);
  say(data.message);
  if (s === 200) await done(data);
  return s;
}

function endpointRow(w, reload) {
  const label = w.description ? `${w.description} (${w.url})` : w.url;
  let confirming = false;
  const del = el(
    'button',
    {
      type: 'button',
      class: 'delete',
      'aria-label': `Delete ${label}`,
      onclick: async () => {
        if (!confirming) {
          confirming = true;
          del.textContent = 'Confirm delete';
          del.setAttribute('aria-label', `Confirm delete of ${label}`);
          return;
        }
        await act('DELETE', `/api/webhooks/${w.webhook_id}`, async () => {
          if (selected?.webhook_id === w.webhook_id) selected = null;
          await reload();
        });
      },
    },
    'Delete',
  );
  return el(
    'tr',
    { class: `webhook ${w.enabled ? 'enabled' : 'disabled'}`, 'data-webhook-id': String(w.webhook_id) },
    el('td', { class: 'url' }, w.url, w.description ? el('br') : '', w.description ? el('span', { class: 'meta' }, w.description) : ''),
    el('td', {}, w.events.join(', ')),
    el('td', { class: 'state' }, stateOf(w)),
    el(
      'td',
      { class: 'actions' },
      el(
        'button',
        {
          type: 'button',
          class: 'show-deliveries',
          'aria-label': `Deliveries of ${label}`,
          onclick: () => {
            selected = w;
            loadDeliveries();
          },
        },
        'Deliveries',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'send-test',
          'aria-label': `Send test event to ${label}`,
          disabled: !w.enabled,
          onclick: () =>
            act('POST', `/api/webhooks/${w.webhook_id}/test`, async () => {
              selected = w;
              await loadDeliveries();
            }),
        },
        'Send test event',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'rotate',
          'aria-label': `Rotate secret of ${label}`,
          onclick: () =>
            act('POST', `/api/webhooks/${w.webhook_id}/rotate_secret`, async (data) => {
              showSecret(data.webhooks[0]);
              await reload();
            }),
        },
        'Rotate secret',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'toggle',
          'aria-label': `${w.enabled ? 'Disable' : 'Enable'} ${label}`,
          onclick: async () => {
            const { status: s, data } = await api('PUT', `/api/webhooks/${w.webhook_id}`, { enabled: w.enabled ? 0 : 1 });
            say(data.message);
            if (s === 200) await reload();
          },
        },
        w.enabled ? 'Disable' : 'Enable',
      ),
      del,
    ),
  );
}

async function loadEndpoints() {
  const { status: s, data } = await api('GET', '/api/webhooks');
  $('#webhooks-error').textContent = s === 200 ? '' : data.message;
  if (s !== 200) return;
  const rows = data.webhooks.map((w) => endpointRow(w, loadEndpoints));
  $('#webhook-rows').replaceChildren(...rows);
  if (rows.length === 0) $('#webhook-rows').append(el('tr', {}, el('td', { colspan: '4', class: 'meta' }, 'no endpoints yet')));
}

async function loadDeliveries() {
  const box = $('#webhook-deliveries');
  if (!selected) {
    box.hidden = true;
    return;
  }
  const { status: s, data } = await api('GET', `/api/webhooks/${selected.webhook_id}/deliveries?limit=50`);
  box.hidden = false;
  $('#h-webhook-deliveries').textContent = `Recent deliveries to ${selected.url}`;
  if (s !== 200) return $('#webhook-delivery-rows').replaceChildren(el('tr', {}, el('td', { colspan: '8', class: 'error' }, data.message)));
  const rows = data.deliveries.map((a) =>
    el(
      'tr',
      { class: `attempt ${a.error ? 'state-failed' : 'state-sent'}`, 'data-delivery-id': String(a.delivery_id) },
      el('td', {}, when(a.at)),
      el('td', { class: 'type' }, a.type, el('br'), el('span', { class: 'meta' }, a.event_id)),
      el('td', {}, String(a.attempt)),
      el('td', { class: 'status-code' }, a.status_code === null ? '—' : String(a.status_code)),
      el('td', { class: 'reason' }, a.error ?? ''),
      el('td', {}, `${a.duration_ms} ms`),
      el('td', { class: 'state' }, a.delivery_state === 'pending' ? `retry at ${when(a.next_attempt_at)}` : a.delivery_state),
    ),
  );
  $('#webhook-delivery-rows').replaceChildren(...rows);
  if (rows.length === 0)
    $('#webhook-delivery-rows').append(
      el('tr', {}, el('td', { colspan: '7', class: 'meta' }, 'no attempts yet: the workers pick new events up within seconds')),
    );
}

function addForm() {
  const error = el('p', { class: 'error', role: 'alert', id: 'webhook-form-error' });
  const legendId = uid('legend');
  return el(
    'form',
    {
      id: 'webhook-form',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        const body = { url: String(f.get('url')).trim(), events: f.getAll('events'), description: String(f.get('description')).trim() };
        const { status: s, data } = await api('POST', '/api/webhooks', body);
        error.textContent = s === 200 ? '' : data.message;
        if (s !== 200) return;
        ev.target.reset();
        say(data.message);
        await loadEndpoints();
        showSecret(data.webhooks[0]);
      },
    },
    el('h4', {}, 'Add an endpoint'),
    el(
      'div',
      { class: 'inline-fields' },
      field('URL (https)', el('input', { name: 'url', type: 'url', required: true, class: 'wide', placeholder: 'https://hooks.example.com/competence' })),
      field('Description', el('input', { name: 'description', maxlength: '500' })),
    ),
    el(
      'fieldset',
      { class: 'applies', 'aria-labelledby': legendId },
      el('legend', { id: legendId }, 'Events'),
      EVENT_TYPES.map((t) => el('label', { class: 'inline' }, el('input', { type: 'checkbox', name: 'events', value: t }), t)),
    ),
    error,
    el('button', { type: 'submit' }, 'Add endpoint'),
  );
}

export function showWebhooks() {
  selected = null;
  const table = el(
    'table',
    { class: 'grid' },
    el('caption', { class: 'sr-only' }, 'Webhook endpoints'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['endpoint', 'events', 'state', 'actions'].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    el('tbody', { id: 'webhook-rows' }),
  );
  const deliveries = el(
    'div',
    { id: 'webhook-deliveries', hidden: true },
    el('h4', { id: 'h-webhook-deliveries' }, 'Recent deliveries'),
    el('button', { type: 'button', id: 'webhook-deliveries-refresh', onclick: () => loadDeliveries() }, 'Refresh'),
    scroller(
      'Webhook delivery attempts',
      el(
        'table',
        { class: 'grid' },
        el('caption', { class: 'sr-only' }, 'Delivery attempts, newest first'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['when', 'event', 'attempt', 'HTTP status', 'error', 'took', 'delivery'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el('tbody', { id: 'webhook-delivery-rows' }),
      ),
    ),
  );
  $('#webhooks').replaceChildren(
    el(
      'article',
      { class: 'item tool', id: 'webhooks-tool', 'aria-labelledby': 'h-webhooks' },
      el('h3', { id: 'h-webhooks' }, 'Webhooks'),
      el(
        'p',
        { class: 'description' },
        'Your systems get a signed POST (Standard Webhooks) for each chosen event. Failed attempts are retried for 24 hours; ',
        'an endpoint that fails for 5 days is disabled.',
      ),
      el('p', { class: 'error', id: 'webhooks-error', role: 'alert' }),
      el('p', { class: 'meta', id: 'webhooks-status', role: 'status' }),
      el('div', { id: 'webhook-secret', class: 'secret-box', hidden: true }),
      scroller('Webhook endpoints table', table),
      addForm(),
      deliveries,
    ),
  );
  return loadEndpoints();
}
