// Deliveries: every message per medium with its state, failed first, with the reason and a
// retry (the API puts the delivery back into the outbox and logs delivery.retried).
import { $, api, el, field, scroller, when } from './admin-dom.js';

const PAGE = 50;
const DAY_MS = 86_400_000;

function filterForm(reload) {
  const since = new Date(Date.now() - 7 * DAY_MS).toISOString().slice(0, 10);
  return el(
    'form',
    {
      id: 'delivery-filter',
      class: 'inline-fields',
      onsubmit: (ev) => {
        ev.preventDefault();
        reload();
      },
    },
    field(
      'State',
      el(
        'select',
        { name: 'state' },
        el('option', { value: '' }, 'any (failed first)'),
        el('option', { value: 'failed' }, 'failed'),
        el('option', { value: 'queued' }, 'queued'),
        el('option', { value: 'sent' }, 'sent'),
      ),
    ),
    field('Messages since', el('input', { name: 'since', type: 'date', value: since })),
    el('button', { type: 'submit' }, 'Show'),
  );
}

function row(d, reload, status) {
  const retry =
    d.state === 'failed'
      ? el(
          'button',
          {
            type: 'button',
            class: 'retry',
            'aria-label': `Retry ${d.medium} to ${d.address}`,
            onclick: async () => {
              const { status: s, data } = await api('POST', `/api/messages/deliveries/${d.delivery_id}/retry`);
              status.textContent = data.message;
              if (s === 200) await reload();
            },
          },
          'Retry',
        )
      : '';
  return el(
    'tr',
    { class: `delivery state-${d.state}`, 'data-delivery-id': String(d.delivery_id) },
    el('td', {}, when(d.created_at)),
    el('td', {}, d.title),
    el('td', {}, d.user_name),
    el('td', {}, d.medium, el('br'), el('span', { class: 'meta' }, d.address)),
    el('td', { class: 'state' }, d.state),
    el('td', {}, String(d.attempts)),
    el('td', { class: 'reason' }, d.reason ?? ''),
    el('td', {}, retry),
  );
}

export function showDeliveries() {
  const body = el('tbody', { id: 'delivery-rows' });
  const status = el('p', { role: 'status', class: 'meta', id: 'delivery-status' });
  const error = el('p', { class: 'error', role: 'alert' });
  const reload = async () => {
    const f = new FormData($('#delivery-filter'));
    const q = new URLSearchParams({ limit: String(PAGE) });
    for (const k of ['state', 'since']) if (f.get(k)) q.set(k, String(f.get(k)));
    const { status: s, data } = await api('GET', `/api/messages/deliveries?${q}`);
    error.textContent = s === 200 ? '' : data.message;
    if (s !== 200) return;
    body.replaceChildren(...data.deliveries.map((d) => row(d, reload, status)));
    if (data.deliveries.length === 0) body.append(el('tr', {}, el('td', { colspan: '8', class: 'meta' }, 'no deliveries')));
  };
  const table = el(
    'table',
    { class: 'grid' },
    el('caption', { class: 'sr-only' }, 'Deliveries, failed first'),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['sent', 'title', 'to', 'medium', 'state', 'attempts', 'reason', ''].map((h) => el('th', { scope: 'col' }, h)),
      ),
    ),
    body,
  );
  $('#delivery-body').replaceChildren(
    el('p', { class: 'intro' }, 'Did the mails go out? Each message once per medium; failed ones first, with the reason. Retry sends a failed one again.'),
    filterForm(reload),
    error,
    status,
    scroller('Deliveries table', table),
  );
  return reload();
}
