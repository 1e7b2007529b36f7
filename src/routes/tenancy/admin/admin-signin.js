// Sign-in: the tenant's identity providers (OIDC or SAML; add, edit, test a sign-in in a new window, remove)
// with what to paste into the provider, and its API clients (OAuth 2.0 client credentials: create
// with the secret shown once, rotate, revoke, last used). /api/identityproviders, /api/apiclients.
import { $, api, el, field, scroller, when } from './admin-dom.js';
import { confirmButton, entityForm, openEditor } from './admin-forms.js';

const SCOPES = ['api.read', 'api.write', 'scim'];
const created = ({ status, data }) => ({ status: status === 201 ? 200 : status, data });

const say = (tool, text, error = false) => {
  $(`#${tool} .saved`).textContent = error ? '' : text;
  $(`#${tool} .error`).textContent = error ? text : '';
};

/** A value to copy: a read-only input, selected on focus. */
const copyField = (label, value, attrs = {}) =>
  field(label, el('input', { ...attrs, class: `copy ${attrs.class ?? ''}`, readonly: true, value, spellcheck: 'false', onfocus: (ev) => ev.target.select() }));

// ---- identity providers ----

const samlOf = (p, v) => (p?.type ?? v.type) === 'saml';

function providerFields(p, replacing) {
  const oidc = (v) => !samlOf(p, v);
  return [
    { name: 'name', label: 'Name', required: true, maxlength: '200', placeholder: 'Company login' },
    { name: 'type', label: 'Protocol', type: 'select', visible: () => !p, options: [{ value: 'oidc', label: 'OpenID Connect' }, { value: 'saml', label: 'SAML 2.0' }] },
    { name: 'issuer', label: 'Issuer (https)', type: 'url', required: true, visible: oidc, placeholder: 'https://login.example.com/realms/staff', hint: 'discovery at <issuer>/.well-known/openid-configuration' },
    { name: 'client_id', label: 'Client id', required: true, visible: oidc, maxlength: '500', autocomplete: 'off' },
    { name: 'client_secret', label: p ? 'New client secret' : 'Client secret', type: 'password', autocomplete: 'new-password', visible: (v) => oidc(v) && (!p || replacing()), hint: p ? 'write-only: empty keeps it unchanged' : 'write-only: never shown again' },
    { name: 'scopes', label: 'Scopes', maxlength: '500', visible: oidc, placeholder: 'openid email profile' },
    { name: 'metadata_url', label: 'IdP metadata URL (https)', type: 'url', visible: (v) => samlOf(p, v), placeholder: 'https://idp.example.com/metadata.xml', hint: 'read once when saved; or paste the metadata below instead' },
    { name: 'metadata_xml', label: 'IdP metadata XML', type: 'textarea', visible: (v) => samlOf(p, v), hint: p ? 'paste new metadata after the IdP changes its certificate' : 'the federation metadata document the IdP offers for download' },
    { name: 'match_claim', label: 'Claim or attribute that names the person', maxlength: '200', placeholder: 'email, or nameid for SAML' },
    { name: 'match_field', label: 'Compared with', type: 'select', options: [{ value: 'email', label: 'e-mail' }, { value: 'user_name', label: 'user name' }, { value: 'extern_person_id', label: 'external person id' }] },
    { name: 'jit', label: 'Create unknown persons at sign-in (jit)', type: 'checkbox' },
    { name: 'jit_organisation_id', label: 'jit: organisation id', type: 'number', min: '1', step: '1', visible: (v) => v.jit === true || v.jit === 1 },
    { name: 'jit_role_ids', label: 'jit: role ids (comma-separated)', placeholder: '3, 7', visible: (v) => v.jit === true || v.jit === 1 },
  ];
}

function providerForm(p, close) {
  let replacing = false;
  const secretState = el('p', { class: 'meta secret-state' }, `Client secret: ${p?.client_secret_set ? 'set' : 'not set'} `);
  const replace = el('button', { type: 'button', class: 'replace-secret', onclick: () => {
    replacing = true;
    replace.hidden = true;
    editor.node.dispatchEvent(new Event('change'));
    editor.node.querySelector('input[name=client_secret]').focus();
  } }, 'Replace secret');
  if (p) secretState.append(replace);
  const editor = entityForm({
    id: p ? `idp-form-${p.identityprovider_id}` : 'idp-form',
    heading: p ? `Edit ${p.name}` : 'New identity provider (OpenID Connect or SAML 2.0)',
    prefix: 'identityprovider_data',
    editing: !!p,
    values: p ?? { type: 'oidc', match_field: 'email', jit: false },
    fields: providerFields(p, () => replacing),
    before: p && p.type === 'oidc' ? [secretState] : [],
    submitLabel: p ? 'Save provider' : 'Add provider',
    onClose: close,
    onSubmit: async (body) => {
      if (!p) return created(await api('POST', '/api/identityproviders', { identityprovider_data: { type: 'oidc', ...body } }));
      if (body.client_secret === null) delete body.client_secret; // an empty field keeps the secret
      return api('PUT', `/api/identityproviders/${p.identityprovider_id}`, { identityprovider_data: body });
    },
    onDone: async (data) => {
      const saved = data.identityproviders?.[0];
      $('#idp-new-holder').replaceChildren();
      say('idp-tool', data.message ?? 'saved');
      await drawProviders();
      ((saved && $(`#idp-list li[data-idp-id="${saved.identityprovider_id}"] button.edit`)) || $('#idp-new')).focus();
    },
  });
  return editor;
}

function providerRow(p) {
  const holder = el('div', { class: 'editor-holder' });
  const edit = el('button', { type: 'button', class: 'edit', 'aria-label': `Edit ${p.name}`, onclick: () => openEditor(holder, (close) => providerForm(p, close), edit) }, 'Edit');
  const test = el('a', { class: 'test-signin button-link', href: `/api/sso/${encodeURIComponent(p.identityprovider_id)}/login?forward_url=/admin`,
    target: '_blank', rel: 'noopener', 'aria-label': `Test sign-in with ${p.name} (opens a new window)` }, 'Test sign-in');
  const remove = confirmButton('Remove', `identity provider ${p.name}`, async () => {
    const { status, data } = await api('DELETE', `/api/identityproviders/${p.identityprovider_id}`);
    if (status !== 200) return say('idp-tool', data.message, true);
    say('idp-tool', data.message ?? `${p.name} removed`);
    await drawProviders();
    $('#idp-new').focus();
  }, { class: 'delete' });
  const match = ` · match ${p.match_claim} → ${p.match_field}${p.jit ? ' · jit' : ''}`;
  const saml = p.type === 'saml';
  const expires = (p.certificates_not_after ?? []).map((d) => d.slice(0, 10)).join(', ');
  return el('li', { class: 'idp', 'data-idp-id': p.identityprovider_id, 'data-type': p.type },
    el('div', { class: 'node' },
      el('span', { class: 'title' }, p.name),
      saml
        ? el('span', { class: 'meta' }, `SAML · ${p.issuer} · `, el('span', { class: 'cert-state' }, `signing certificate until ${expires || '?'}`), match)
        : el('span', { class: 'meta' }, `${p.issuer} · client ${p.client_id} · `, el('span', { class: 'secret-state' }, `secret ${p.client_secret_set ? 'set' : 'not set'}`), match),
      el('span', { class: 'actions' }, edit, test, remove)),
    saml
      ? el('div', { class: 'sp-details' },
        copyField(`Entity id / Identifier for ${p.name} (paste into the IdP)`, p.sp_entity_id, { class: 'sp-entity-id' }),
        copyField(`ACS / Reply URL for ${p.name} (paste into the IdP)`, p.sp_acs_url, { class: 'sp-acs-url' }),
        copyField(`Metadata URL for ${p.name} (for IdPs that import it)`, p.sp_metadata_url, { class: 'sp-metadata-url' }))
      : el('div', { class: 'sp-details' },
        copyField(`Redirect URI for ${p.name} (paste into the provider)`, p.redirect_uri, { class: 'redirect-uri' })),
    holder);
}

async function drawProviders() {
  const { status, data } = await api('GET', '/api/identityproviders?limit=100');
  const list = $('#idp-list');
  if (status !== 200) return say('idp-tool', data.message, true);
  list.replaceChildren(...data.identityproviders.map(providerRow));
  if (data.identityproviders.length === 0) list.append(el('li', { class: 'meta' }, 'no identity providers yet: staff sign in with their password'));
}

// ---- API clients ----

/** The secret, right after create or rotation: copy it now, it is never shown again. */
function showSecret(c, rotated) {
  const box = $('#apiclient-secret');
  box.replaceChildren(
    el('p', { role: 'alert' }, el('strong', {}, 'Copy this client secret now: it is not shown again.'),
      rotated ? ` The old secret of ${c.name} and its tokens no longer work.` : ` API client ${c.name}.`),
    copyField('Client id', c.client_id, { id: 'apiclient-secret-id' }),
    copyField('Client secret', c.client_secret, { id: 'apiclient-secret-value' }),
    el('button', { type: 'button', id: 'apiclient-secret-done', onclick: () => { box.hidden = true; box.replaceChildren(); $('#apiclient-new').focus(); } }, 'I have stored it'));
  box.hidden = false;
  $('#apiclient-secret-value').focus();
}

function clientForm(close) {
  return entityForm({
    id: 'apiclient-form',
    heading: 'New API client',
    prefix: 'apiclient_data',
    values: { scopes: [0] },
    fields: [
      { name: 'name', label: 'Name', required: true, maxlength: '200', placeholder: 'HR sync' },
      // the checks field yields numbers: the index into SCOPES
      { name: 'scopes', label: 'Scopes', type: 'checks', options: SCOPES.map((s, i) => ({ value: i, label: s })) },
      { name: 'run_as_user_name', label: 'Runs as (user name)', maxlength: '200', autocomplete: 'off', hint: 'whose rights the client has on /api; required for api.read and api.write' },
      { name: 'scim_default_organisation_id', label: 'SCIM: default organisation (id)', type: 'number', min: '1', step: '1', inputmode: 'numeric',
        hint: 'with the scim scope: where a provisioned person goes whose department matches no organisation' },
    ],
    submitLabel: 'Create API client',
    onClose: close,
    onSubmit: async (body) => created(await api('POST', '/api/apiclients', { apiclient_data: { ...body, scopes: (body.scopes ?? []).map((i) => SCOPES[i]) } })),
    onDone: async (data) => {
      const c = data.apiclients[0];
      $('#apiclient-new-holder').replaceChildren();
      say('apiclients-tool', data.message ?? 'API client created');
      await drawClients();
      showSecret(c, false);
    },
  });
}

function clientRow(c) {
  const rotate = confirmButton('Rotate secret', `of ${c.name}`, async () => {
    const { status, data } = await api('PUT', `/api/apiclients/${c.client_id}/rotate_secret`);
    if (status !== 200) return say('apiclients-tool', data.message, true);
    say('apiclients-tool', data.message ?? 'secret rotated');
    await drawClients();
    showSecret(data.apiclients[0], true);
  }, { class: 'rotate' });
  const revoke = confirmButton('Revoke', `API client ${c.name}`, async () => {
    const { status, data } = await api('DELETE', `/api/apiclients/${c.client_id}`);
    if (status !== 200) return say('apiclients-tool', data.message, true);
    say('apiclients-tool', data.message ?? `${c.name} revoked`);
    await drawClients();
    $('#apiclient-new').focus();
  }, { class: 'delete revoke' });
  return el('tr', { class: 'apiclient', 'data-client-id': c.client_id },
    el('td', { class: 'name' }, c.name, el('br'), el('span', { class: 'meta' }, c.client_id)),
    el('td', { class: 'scopes' }, c.scopes.join(', ')),
    el('td', { class: 'run-as' }, c.run_as_user_name ?? '—'),
    el('td', { class: 'last-used' }, c.last_used_at ? when(c.last_used_at) : 'never'),
    el('td', { class: 'created meta' }, `${when(c.created_at)}${c.created_by ? ` by ${c.created_by}` : ''}${c.secret_rotated_at ? `; rotated ${when(c.secret_rotated_at)}` : ''}`),
    el('td', { class: 'actions' }, rotate, revoke));
}

async function drawClients() {
  const { status, data } = await api('GET', '/api/apiclients?limit=100');
  if (status !== 200) return say('apiclients-tool', data.message, true);
  const rows = data.apiclients.map(clientRow);
  $('#apiclient-rows').replaceChildren(...rows);
  if (rows.length === 0) $('#apiclient-rows').append(el('tr', {}, el('td', { colspan: '6', class: 'meta' }, 'no API clients yet')));
}

export async function showSignIn() {
  const idpHolder = el('div', { class: 'editor-holder', id: 'idp-new-holder' });
  const idpNew = el('button', { type: 'button', id: 'idp-new', onclick: () => openEditor(idpHolder, (close) => providerForm(null, close), idpNew) }, 'Add identity provider');
  const clientHolder = el('div', { class: 'editor-holder', id: 'apiclient-new-holder' });
  const clientNew = el('button', { type: 'button', id: 'apiclient-new', onclick: () => openEditor(clientHolder, clientForm, clientNew) }, 'New API client');
  $('#signin-body').replaceChildren(
    el('article', { class: 'item tool', id: 'idp-tool', 'aria-labelledby': 'h-idp' },
      el('h3', { id: 'h-idp' }, 'Identity providers'),
      el('p', { class: 'description' },
        'Staff sign in with the company login (Entra ID, Okta, Keycloak, Google). OpenID Connect: register a web application ',
        'in the provider with the redirect URI shown for each provider here, then paste the provider\'s issuer, client id and secret. ',
        'SAML 2.0: add the provider with the IdP\'s metadata (XML or its URL), then paste the entity id and ACS URL shown here into the IdP ',
        '(or give it the metadata URL).'),
      el('div', { class: 'toolbar' }, idpNew),
      idpHolder,
      el('p', { class: 'error', role: 'alert' }),
      el('p', { class: 'saved', role: 'status' }),
      el('ul', { class: 'tree flat', id: 'idp-list', 'aria-label': 'Identity providers' })),
    el('article', { class: 'item tool', id: 'apiclients-tool', 'aria-labelledby': 'h-apiclients' },
      el('h3', { id: 'h-apiclients' }, 'API clients'),
      el('p', { class: 'description' },
        'Integrations get access tokens at POST /oauth/token with a client id and secret (OAuth 2.0 client credentials) instead of a person\'s password. ',
        'Rotating a secret or revoking a client stops its tokens at once.'),
      el('div', { class: 'toolbar' }, clientNew),
      clientHolder,
      el('div', { id: 'apiclient-secret', class: 'secret-box', hidden: true }),
      el('p', { class: 'error', role: 'alert' }),
      el('p', { class: 'saved', role: 'status' }),
      scroller('API clients table', el('table', { class: 'grid' },
        el('caption', { class: 'sr-only' }, 'API clients'),
        el('thead', {}, el('tr', {}, ['client', 'scopes', 'runs as', 'last used', 'created', 'actions'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', { id: 'apiclient-rows' })))));
  await Promise.all([drawProviders(), drawClients()]);
}
