// Integration checkers: they ask the API, which runs the SWT verifier's and the CORS
// middleware's own decisions; the page never sees the secret.
import { api, el, field } from './admin-dom.js';

function results(list) {
  return el(
    'ul',
    { class: 'checks' },
    list.map((c) =>
      el('li', { class: c.ok ? 'check ok' : 'check fail', 'data-check': c.check }, el('strong', {}, `${c.ok ? 'pass' : 'FAIL'} · ${c.check}`), ': ', c.detail),
    ),
  );
}

function swtChecker() {
  const out = el('div', { class: 'tool-result', 'aria-live': 'polite', id: 'swt-result' });
  const run = async (body) => {
    out.replaceChildren(el('p', { class: 'meta' }, 'checking…'));
    const { status, data } = await api('POST', '/api/configitems/api.oauth.secret/check', body);
    if (status !== 200) return out.replaceChildren(el('p', { class: 'error', role: 'alert' }, data.message));
    out.replaceChildren(el('p', { class: data.checks.every((c) => c.ok) ? 'saved' : 'error' }, data.message), results(data.checks));
    if (data.token) {
      out.append(
        field(
          'Built token (a working credential for a few minutes; do not share it)',
          el('textarea', { readonly: true, class: 'token', rows: '3' }, data.token),
        ),
      );
    }
  };
  const pasted = el(
    'form',
    {
      id: 'swt-token-form',
      onsubmit: (ev) => {
        ev.preventDefault();
        run({ token: new FormData(ev.target).get('token') });
      },
    },
    field('Token (as sent after "Authorization: SWT")', el('textarea', { name: 'token', rows: '3', required: true, class: 'token' })),
    el('button', { type: 'submit' }, 'Check token'),
  );
  const build = el(
    'form',
    {
      id: 'swt-build-form',
      onsubmit: (ev) => {
        ev.preventDefault();
        const f = new FormData(ev.target);
        const body = { user_name: f.get('user_name'), expires_in_seconds: Number(f.get('expires_in_seconds')) };
        if (String(f.get('issuer')).trim()) body.issuer = f.get('issuer');
        run(body);
      },
    },
    el(
      'div',
      { class: 'inline-fields' },
      field('User name', el('input', { name: 'user_name', required: true })),
      field('Issuer (empty: the configured one)', el('input', { name: 'issuer' })),
      field(
        'Expires in (seconds, at most 600)',
        el('input', { name: 'expires_in_seconds', type: 'number', min: '1', max: '600', value: '300', required: true }),
      ),
    ),
    el('button', { type: 'submit' }, 'Build and check'),
  );
  return el(
    'article',
    { class: 'item tool', id: 'swt-checker', 'aria-labelledby': 'h-swt' },
    el('h3', { id: 'h-swt' }, 'SWT sign-on checker'),
    el(
      'p',
      { class: 'description' },
      'Why is a token from your intranet refused? Paste it, or let the server build one with the stored secret. Each check shows whether it passed.',
    ),
    pasted,
    el('p', { class: 'meta' }, 'or'),
    build,
    out,
  );
}

function corsChecker() {
  const out = el('p', { class: 'tool-result', id: 'cors-result', 'aria-live': 'polite' });
  const form = el(
    'form',
    {
      id: 'cors-form',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const origin = String(new FormData(ev.target).get('origin')).trim();
        const { status, data } = await api('GET', `/api/configitems/cors.origins/check?origin=${encodeURIComponent(origin)}`);
        if (status !== 200) return out.replaceChildren(el('span', { class: 'error' }, data.message));
        const d = data.cors_check[0];
        out.replaceChildren(el('strong', { class: d.allowed ? 'saved' : 'error' }, d.allowed ? 'allowed' : 'refused'), `: ${d.reason}`);
      },
    },
    el(
      'div',
      { class: 'inline-fields' },
      field('Origin of the calling page', el('input', { name: 'origin', required: true, placeholder: 'https://intranet.example.com' })),
    ),
    el('button', { type: 'submit' }, 'Check origin'),
  );
  return el(
    'article',
    { class: 'item tool', id: 'cors-checker', 'aria-labelledby': 'h-cors' },
    el('h3', { id: 'h-cors' }, 'CORS checker'),
    el('p', { class: 'description' }, 'Would a page at this origin be allowed to call the API with credentials (cookies or SWT)?'),
    form,
    out,
  );
}

export function showTools() {
  document.getElementById('tools').replaceChildren(swtChecker(), corsChecker());
}
