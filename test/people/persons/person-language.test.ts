import { beforeAll, describe, expect, it } from 'vitest';
import { asAcme } from '../../support/login';
import { importDemoTenant } from '../../support/test-app';
import { acmeIds, csv, importAndWait, tenantDb, upload, useImportBed } from '../../imports/import-support';
import { ENTERPRISE, PATCH_OP, json, scim, scimClient } from '../../identity/scim/scim-support';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';
import { canonicalLanguageTag } from '../../../src/platform/time/language-tag';

/**
 * A person's language (issue 39 item 3): person_data[language] in POST/PUT /api/persons, the full
 * view, the persons import (CSV), the tenant import format and SCIM's preferredLanguage.
 */
const bed = useImportBed();
let admin: Awaited<ReturnType<typeof asAcme>>;

beforeAll(async () => {
  admin = await asAcme(bed.t, bed.acme.host, 'admin');
});

const languageOf = async (userName: string) => (await tenantDb(bed.t, bed.acme).table('persons').where('user_name', userName).first('language')).language;

describe('canonicalLanguageTag', () => {
  it('canonical BCP 47 tags through Intl; not a tag, an extension or private use: null', () => {
    expect(['nb', 'NN', 'sv-se', 'EN-gb', 'zh-hant-tw', 'de'].map(canonicalLanguageTag)).toEqual(['nb', 'nn', 'sv-SE', 'en-GB', 'zh-Hant-TW', 'de']);
    expect(['', 'x', 'en_US', 'english please', 'en-u-ca-buddhist', 'x-klingon', 'nb-NO-x-oslo', '12'].map(canonicalLanguageTag)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('person_data[language]', () => {
  it('PUT stores the canonical form and the full view shows it; self may set their own; empty clears it', async () => {
    const put = await admin.put('/api/persons/ola').send({ person_data: { language: 'NB-no' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.persons[0].language).toBe('nb-NO');
    expect(await languageOf('ola')).toBe('nb-NO');
    const read = await admin.get('/api/persons/ola?view=full');
    expect(read.body.persons[0].language).toBe('nb-NO');

    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    const own = await ola.put('/api/persons/ola').type('form').send('person_data[language]=sv');
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.persons[0].language).toBe('sv');
    expect(await languageOf('ola')).toBe('sv');

    expect((await admin.put('/api/persons/ola').send({ person_data: { language: '' } })).status).toBe(200);
    expect(await languageOf('ola')).toBeNull();
  });

  it('a malformed tag is a 420 naming person_data[language], and nothing changes', async () => {
    await admin.put('/api/persons/siri').send({ person_data: { language: 'da' } });
    for (const bad of ['en_US', 'norsk bokmål', 'x-private', 'a'.repeat(40)]) {
      const res = await admin.put('/api/persons/siri').send({ person_data: { language: bad } });
      expect(res.body, bad).toMatchObject({ valid: false, errorcode: 420 });
      expect(res.body.message).toContain('person_data[language]');
    }
    expect(await languageOf('siri')).toBe('da');
  });

  it('POST /api/persons takes it too', async () => {
    const ids = await acmeIds(bed);
    const res = await admin.post('/api/persons').send({
      organisation_id: ids.organisations['Human Resources'],
      role_id: ids.roles['Welder'],
      person_data: { user_name: 'lang.new', firstname: 'Lang', language: 'FI' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.persons[0].language).toBe('fi');
    expect(await languageOf('lang.new')).toBe('fi');
  });
});

describe('the persons import (CSV) has a language column', () => {
  it('sets, checks (420 per row) and clears it', async () => {
    const file = csv([
      ['user_name', 'language'],
      ['nils', 'nn'],
      ['kari', 'not a tag'],
    ]);
    const dry = await upload(admin, 'persons', file, { dryRun: true });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.imports[0].failed_rows).toEqual([
      { row: 3, column: 'language', errorcode: 420, message: expect.stringContaining('malformed parameter person_data[language]') },
    ]);
    const { view } = await importAndWait(admin, 'persons', file);
    expect(view).toMatchObject({ state: 'finished', updated: 1, failed: 1 });
    expect(await languageOf('nils')).toBe('nn');
    const template = await admin
      .get('/api/imports/templates/persons')
      .buffer(true)
      .parse((r: any, cb: any) => {
        let s = '';
        r.on('data', (c: Buffer) => (s += c.toString('utf8')));
        r.on('end', () => cb(null, s));
      });
    expect(String(template.body).split(/\r?\n/)[0]).toContain('language');
  });
});

describe('the tenant import format: persons[].language (a new optional field)', () => {
  it('is imported canonical, exported again, and a malformed one refuses the document', async () => {
    const tenant = await importDemoTenant(bed.t, 'globex', (doc) => {
      doc.persons[0].language = 'EN-gb';
    });
    const db = tenantDb(bed.t, tenant);
    const first = await db.table('persons').orderBy('id').first('user_name', 'language');
    expect(first.language).toBe('en-GB');
    const exported = await bed.t.container.resolve(TenantAdminService).export(tenant.slug);
    expect(exported.persons.find((p: any) => p.user_name === first.user_name)?.language).toBe('en-GB');
    await expect(
      importDemoTenant(bed.t, 'globex', (doc) => {
        doc.persons[0].language = 'not a tag';
      }),
    ).rejects.toThrow(/language/);
  });
});

describe("SCIM's preferredLanguage", () => {
  let api: ReturnType<typeof scim>;
  let id: string;
  beforeAll(async () => {
    api = scim(bed.t, bed.acme.host, (await scimClient(bed.t, bed.acme)).token);
  });

  it('POST takes it (the first tag of an Accept-Language value), GET shows it, the schema lists it', async () => {
    const res = await api.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
      userName: 'scim.lang@contoso.example',
      name: { givenName: 'Sigrid', familyName: 'Lang' },
      emails: [{ value: 'scim.lang@contoso.example', type: 'work', primary: true }],
      preferredLanguage: 'sv-se, en;q=0.8',
      active: true,
    });
    expect(res.status, res.text).toBe(201);
    id = json(res).id;
    expect(json(res).preferredLanguage).toBe('sv-SE');
    expect(json(await api.get(`/Users/${id}`)).preferredLanguage).toBe('sv-SE');
    const schema = json(await api.get('/Schemas/urn:ietf:params:scim:schemas:core:2.0:User'));
    expect(schema.attributes.map((a: any) => a.name)).toContain('preferredLanguage');
  });

  it('PATCH as Entra ID sends it (Replace with a path) and as Okta does (replace with a value object); remove clears it', async () => {
    const entra = await api.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'preferredLanguage', value: 'nb-NO' }] });
    expect(entra.status, entra.text).toBe(200);
    expect(await languageOf('scim.lang@contoso.example')).toBe('nb-NO');
    const okta = await api.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { preferredLanguage: 'da' } }] });
    expect(okta.status, okta.text).toBe(200);
    expect(json(okta).preferredLanguage).toBe('da');
    const bad = await api.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'preferredLanguage', value: 'not a tag' }] });
    expect(bad.status).toBe(400);
    expect(json(bad).detail).toContain('preferredLanguage');
    const removed = await api.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'preferredLanguage' }] });
    expect(removed.status, removed.text).toBe(200);
    expect(json(removed).preferredLanguage).toBeUndefined();
    expect(await languageOf('scim.lang@contoso.example')).toBeNull();
  });

  it('filters on it, case-insensitively', async () => {
    await api.patch(`/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'preferredLanguage', value: 'nb-NO' }] });
    const hit = json(await api.get(`/Users?filter=${encodeURIComponent('preferredLanguage eq "nb-no"')}`));
    expect(hit.Resources.map((u: any) => u.id)).toContain(id);
    const miss = json(await api.get(`/Users?filter=${encodeURIComponent('preferredLanguage eq "fi"')}`));
    expect(miss.Resources.map((u: any) => u.id)).not.toContain(id);
  });
});
