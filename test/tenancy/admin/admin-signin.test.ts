import path from 'node:path';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { asAcme } from '../../support/login';
import { bearer, tokenRequest } from '../../identity/apiclients/apiclients-support';
import {
  RESULTS,
  axeViolations,
  eventually,
  expectFits375,
  fieldError,
  focusedId,
  focusedText,
  input,
  logInWithKeyboard,
  openForm,
  useConsoleBed,
} from './console-bed';

// The console's Sign-in section in Chromium on the real API: an OIDC identity provider added (and a SAML one from pasted metadata, with its entity id, ACS and metadata URLs),
// listed with its redirect URI and "secret set", its test link, removed after confirming; an API
// client created with its secret shown once, which then gets a token at POST /oauth/token, rotated
// (the old secret refused) and revoked (its token 401). The issuer is an https string: saving a
// provider does not contact it (console-bed's app has no IDENTITY_PROVIDERS_ALLOW_HTTP).
const bed = useConsoleBed();
let page: Page;
beforeAll(() => {
  page = bed.page;
});

const idpRow = (name: string) => page.locator('#idp-list li.idp').filter({ has: page.locator('.title', { hasText: name }) });
const clientRow = (name: string) => page.locator('#apiclient-rows tr.apiclient').filter({ has: page.locator('td.name', { hasText: name }) });

/** Presses a confirm button twice with the keyboard ("Remove" -> "Confirm remove"). */
async function confirmWithKeyboard(selector: string) {
  await page.locator(selector).focus();
  await page.keyboard.press('Enter');
  await eventually(() => page.locator(selector).textContent()).toMatch(/^Confirm /);
  await page.keyboard.press('Enter');
}

describe('admin console: sign-in section in Chromium', () => {
  it('adds an OIDC provider with the keyboard, lists it with its redirect URI and "secret set", and removes it', async () => {
    await logInWithKeyboard(bed, '#signin');
    await eventually(() => page.locator('#idp-list li').first().textContent()).toMatch(/no identity providers yet/);
    const form = '#idp-form';
    await openForm(page, '#idp-new', 'name');
    await page.keyboard.type('Company login');
    // an http issuer: the API's 420 under the issuer field, which gets focus
    await input(page, form, 'issuer').fill('http://login.example.com/realms/staff');
    await input(page, form, 'client_id').fill('competence-web');
    await input(page, form, 'client_secret').fill('s3cret-from-the-idp');
    await input(page, form, 'client_id').press('Enter');
    await eventually(() => fieldError(page, form, 'issuer').textContent()).toMatch(/identityprovider_data\[issuer\].*https/);
    expect(await input(page, form, 'issuer').getAttribute('aria-invalid')).toBe('true');
    await eventually(() => focusedId(page)).toMatch(/^f-issuer-/);
    await input(page, form, 'issuer').fill('https://login.example.com/realms/staff');
    await input(page, form, 'issuer').press('Enter');
    await eventually(() => idpRow('Company login').count()).toBe(1);
    const row = idpRow('Company login');
    const id = (await row.getAttribute('data-idp-id'))!;
    await eventually(() => focusedText(page)).toBe('Edit Company login');
    expect(await row.locator('.secret-state').textContent()).toBe('secret set');
    expect(await row.locator('input.redirect-uri').inputValue()).toBe(`https://${new URL(bed.base).host}/api/sso/${id}/callback`);
    const link = row.locator('a.test-signin');
    expect(await link.getAttribute('href')).toBe(`/api/sso/${id}/login?forward_url=/admin`);
    expect([await link.getAttribute('target'), await link.getAttribute('rel')]).toEqual(['_blank', 'noopener']);
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const stored = (await admin.get(`/api/identityproviders/${id}`)).body.identityproviders[0];
    expect([stored.type, stored.issuer, stored.client_id, stored.client_secret_set, stored.match_field]).toEqual([
      'oidc',
      'https://login.example.com/realms/staff',
      'competence-web',
      true,
      'email',
    ]);

    // edit: the secret is write-only; "Replace secret" shows its field
    await openForm(page, `#idp-list li[data-idp-id="${id}"] button.edit`, 'name');
    const edit = `#idp-form-${id}`;
    expect(await page.locator(`${edit} .field[data-field="client_secret"]`).isVisible()).toBe(false);
    expect(await page.locator(`${edit} p.secret-state`).textContent()).toMatch(/^Client secret: set/);
    await page.click(`${edit} button.replace-secret`);
    expect(await page.locator(`${edit} .field[data-field="client_secret"]`).isVisible()).toBe(true);
    expect(await axeViolations(page, '#signin')).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await page.locator(edit).count()).toBe(0);

    await confirmWithKeyboard(`#idp-list li[data-idp-id="${id}"] button.delete`);
    await eventually(() => idpRow('Company login').count()).toBe(0);
    expect((await admin.get(`/api/identityproviders/${id}`)).status).toBe(404);
  });

  it('adds a SAML provider from pasted metadata and shows the entity id, ACS URL and metadata URL to paste into the IdP', async () => {
    const cert = fs.readFileSync(path.join(__dirname, '../../identity/sso/saml-keys/idp-cert.pem'), 'utf8').replace(/-----[A-Z ]+-----|\s/g, '');
    const metadata = (sso: string) =>
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://sts.example.net/idp">` +
      `<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>` +
      `<ds:X509Certificate>${cert}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${sso}"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
    const form = '#idp-form';
    await openForm(page, '#idp-new', 'name');
    await page.keyboard.type('Staff SAML');
    await input(page, form, 'type').selectOption('saml');
    await eventually(() => input(page, form, 'metadata_xml').isVisible()).toBe(true);
    expect(await input(page, form, 'issuer').isVisible()).toBe(false);
    // an http SSO URL in the metadata: the API's 420 under the metadata field, which gets focus
    await input(page, form, 'metadata_xml').fill(metadata('http://sts.example.net/sso'));
    await page.locator(`${form} button[type=submit]`).click();
    await eventually(() => fieldError(page, form, 'metadata_xml').textContent()).toMatch(/identityprovider_data\[metadata_xml\].*https/);
    await eventually(() => focusedId(page)).toMatch(/^f-metadata_xml-/);
    await input(page, form, 'metadata_xml').fill(metadata('https://sts.example.net/sso'));
    await page.locator(`${form} button[type=submit]`).click();
    await eventually(() => idpRow('Staff SAML').count()).toBe(1);
    const row = idpRow('Staff SAML');
    const id = (await row.getAttribute('data-idp-id'))!;
    const base = `https://${new URL(bed.base).host}/api/sso/${id}`;
    expect(await row.locator('input.sp-entity-id').inputValue()).toBe(`${base}/metadata`);
    expect(await row.locator('input.sp-acs-url').inputValue()).toBe(`${base}/acs`);
    expect(await row.locator('input.sp-metadata-url').inputValue()).toBe(`${base}/metadata`);
    expect(await row.locator('.cert-state').textContent()).toMatch(/^signing certificate until \d{4}-\d\d-\d\d$/);
    expect(await row.locator('input.redirect-uri').count()).toBe(0);
    const admin = await asAcme(bed.t, bed.host, 'admin');
    const stored = (await admin.get(`/api/identityproviders/${id}`)).body.identityproviders[0];
    expect([stored.type, stored.issuer, stored.sso_url, stored.match_claim]).toEqual([
      'saml',
      'https://sts.example.net/idp',
      'https://sts.example.net/sso',
      'nameid',
    ]);
    expect(await axeViolations(page, '#signin')).toEqual([]);
    await confirmWithKeyboard(`#idp-list li[data-idp-id="${id}"] button.delete`);
    await eventually(() => idpRow('Staff SAML').count()).toBe(0);
  });

  it('creates an API client whose secret is shown once and works at /oauth/token; rotation refuses the old secret, revocation the token', async () => {
    const admin = await asAcme(bed.t, bed.host, 'admin');
    await openForm(page, '#apiclient-new', 'name');
    await page.keyboard.type('HR sync');
    // api.read is ticked by default; add api.write
    await page.locator('#apiclient-form input[name=scopes][value="1"]').check();
    await input(page, '#apiclient-form', 'run_as_user_name').fill('admin');
    await input(page, '#apiclient-form', 'run_as_user_name').press('Enter');
    await page.locator('#apiclient-secret-value').waitFor();
    await eventually(() => focusedId(page)).toBe('apiclient-secret-value');
    const clientId = await page.locator('#apiclient-secret-id').inputValue();
    const secret = await page.locator('#apiclient-secret-value').inputValue();
    expect(clientId).toMatch(/^cli_[0-9a-f]{24}$/);
    expect(secret).toMatch(/^cs_/);
    expect(await page.locator('#apiclient-secret').textContent()).toContain('not shown again');
    const row = clientRow('HR sync');
    expect(await row.locator('td.scopes').textContent()).toBe('api.read, api.write');
    expect(await row.locator('td.run-as').textContent()).toBe('admin');
    expect(await row.locator('td.last-used').textContent()).toBe('never');

    // the secret works
    const tok = await tokenRequest(bed.t, bed.host, { client_id: clientId, client_secret: secret });
    expect(tok.status, JSON.stringify(tok.body)).toBe(200);
    expect((await bearer(bed.t, bed.host, tok.body.access_token).get('/api/persons/ola')).status).toBe(200);
    await eventually(async () => (await admin.get(`/api/apiclients/${clientId}`)).body.apiclients[0].last_used_at).not.toBeNull();

    // shown once: after a reload it is nowhere on the page; last used shows. (A provider without a
    // secret, added through the API, fills the other list for the picture.)
    expect(
      (
        await admin
          .post('/api/identityproviders')
          .send({ identityprovider_data: { name: 'Entra ID', type: 'oidc', issuer: 'https://login.microsoftonline.com/0000/v2.0', client_id: 'abc' } })
      ).status,
    ).toBe(201);
    await page.reload();
    await eventually(() => idpRow('Entra ID').locator('.secret-state').textContent()).toBe('secret not set');
    await eventually(() => clientRow('HR sync').count()).toBe(1);
    expect(await page.locator('#apiclient-secret').isHidden()).toBe(true);
    expect(await page.content()).not.toContain(secret);
    expect(await clientRow('HR sync').locator('td.last-used').textContent()).not.toBe('never');

    // rotate: a new secret once; the old secret and its token stop
    await confirmWithKeyboard(`#apiclient-rows tr[data-client-id="${clientId}"] button.rotate`);
    await page.locator('#apiclient-secret-value').waitFor();
    const secret2 = await page.locator('#apiclient-secret-value').inputValue();
    expect(secret2).toMatch(/^cs_/);
    expect(secret2).not.toBe(secret);
    expect(await page.locator('#apiclient-secret').textContent()).toContain('old secret of HR sync');
    expect((await tokenRequest(bed.t, bed.host, { client_id: clientId, client_secret: secret })).status).toBe(401);
    expect((await bearer(bed.t, bed.host, tok.body.access_token).get('/api/persons/ola')).status).toBe(401);
    const tok2 = await tokenRequest(bed.t, bed.host, { client_id: clientId, client_secret: secret2 });
    expect(tok2.status, JSON.stringify(tok2.body)).toBe(200);

    // axe and 375 px with both lists filled
    expect(await axeViolations(page, '#signin')).toEqual([]);
    await expectFits375(page);
    await page.locator('#signin').screenshot({ path: path.join(RESULTS, 'admin-signin.png') });

    // revoke: the token is 401 at once
    await page.click('#apiclient-secret-done');
    await confirmWithKeyboard(`#apiclient-rows tr[data-client-id="${clientId}"] button.revoke`);
    await eventually(() => clientRow('HR sync').count()).toBe(0);
    expect((await bearer(bed.t, bed.host, tok2.body.access_token).get('/api/persons/ola')).status).toBe(401);
    expect((await admin.get(`/api/apiclients/${clientId}`)).status).toBe(404);
    expect(bed.pageErrors).toEqual([]);
  });
});
