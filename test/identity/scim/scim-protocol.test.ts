import { beforeAll, describe, expect, it } from 'vitest';
import { useAcmeApp } from '../../support/test-app';
import { ENTERPRISE, json, scim, scimClient } from './scim-support';

/** Discovery, filters, paging and attributes of /scim/v2 on the demo tenant's persons. */
const bed = useAcmeApp();
let api: ReturnType<typeof scim>;

beforeAll(async () => {
  api = scim(bed.t, bed.acme.host, (await scimClient(bed.t, bed.acme)).token);
  for (let i = 1; i <= 5; i++) {
    const res = await api.post('/Users', {
      userName: `pager${i}@acme.example`,
      externalId: `ext-${i}`,
      name: { givenName: `Pager${i}`, familyName: 'Paging' },
      emails: [{ value: `pager${i}@mail.acme.example`, type: 'work', primary: true }],
      [ENTERPRISE]: { employeeNumber: `P-${i}` },
    });
    expect(res.status, res.text).toBe(201);
  }
});

const list = async (query: string) => {
  const res = await api.get(`/Users?${query}`);
  expect(res.status, res.text).toBe(200);
  return json(res);
};
const filter = (f: string, extra = '') => list(`filter=${encodeURIComponent(f)}${extra}`);
const names = (body: any) => body.Resources.map((r: any) => r.userName).sort();

describe('discovery', () => {
  it('ServiceProviderConfig, ResourceTypes and Schemas answer application/scim+json', async () => {
    const spc = await api.get('/ServiceProviderConfig');
    expect(spc.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(json(spc)).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = json(await api.get('/ResourceTypes'));
    expect(types.Resources.map((r: any) => r.endpoint)).toEqual(['/Users', '/Groups']);
    const schemas = json(await api.get('/Schemas'));
    expect(schemas.Resources.map((s: any) => s.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      ENTERPRISE,
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ]);
    expect(json(await api.get(`/Schemas/${ENTERPRISE}`)).attributes.map((a: any) => a.name)).toContain('manager');
  });
});

describe('filters', () => {
  it('eq on userName, externalId, emails.value, emails[type eq "work" and value eq ...]; sw, co; and; pr; active', async () => {
    expect(names(await filter('userName eq "PAGER1@acme.example"'))).toEqual(['pager1@acme.example']);
    expect(names(await filter('externalId eq "ext-2"'))).toEqual(['pager2@acme.example']);
    expect(names(await filter('emails.value eq "pager3@mail.acme.example"'))).toEqual(['pager3@acme.example']);
    expect(names(await filter('emails[type eq "work" and value eq "pager4@mail.acme.example"]'))).toEqual(['pager4@acme.example']);
    expect((await filter('userName sw "pager"')).totalResults).toBe(5);
    expect(names(await filter('userName co "ger5"'))).toEqual(['pager5@acme.example']);
    expect(names(await filter('userName sw "pager" and externalId eq "ext-3"'))).toEqual(['pager3@acme.example']);
    expect(names(await filter('userName sw "pager" and (externalId eq "ext-1" or externalId eq "ext-2")'))).toEqual([
      'pager1@acme.example',
      'pager2@acme.example',
    ]);
    expect((await filter('externalId pr and userName sw "pager"')).totalResults).toBe(5);
    expect((await filter('userName sw "pager" and active eq true')).totalResults).toBe(5);
    expect((await filter('userName sw "pager" and active eq false')).totalResults).toBe(0);
    expect(names(await filter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "pager2@acme.example"'))).toEqual(['pager2@acme.example']);
    expect(names(await filter(`${ENTERPRISE}:employeeNumber eq "P-4"`))).toEqual(['pager4@acme.example']);
  });
});

describe('paging', () => {
  it('startIndex (1-based) and count; totalResults counts all matches; count=0 answers the total only', async () => {
    const f = `filter=${encodeURIComponent('userName sw "pager"')}`;
    const first = await list(`${f}&startIndex=1&count=2`);
    expect(first).toMatchObject({ totalResults: 5, startIndex: 1, itemsPerPage: 2 });
    const second = await list(`${f}&startIndex=3&count=2`);
    const third = await list(`${f}&startIndex=5&count=2`);
    expect(third.itemsPerPage).toBe(1);
    const all = [...first.Resources, ...second.Resources, ...third.Resources].map((r: any) => r.userName);
    expect(new Set(all).size).toBe(5);
    expect(await list(`${f}&count=0`)).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect((await list(`${f}&startIndex=0`)).startIndex).toBe(1);
  });
});

describe('attributes and excludedAttributes', () => {
  it('attributes keeps the named ones (and id, schemas, meta); excludedAttributes drops them', async () => {
    const only = await filter('externalId eq "ext-1"', '&attributes=userName,name.givenName');
    expect(Object.keys(only.Resources[0]).sort()).toEqual(['id', 'meta', 'name', 'schemas', 'userName']);
    expect(only.Resources[0].name).toEqual({ givenName: 'Pager1' });
    const without = await filter('externalId eq "ext-1"', `&excludedAttributes=emails,name,${ENTERPRISE}:employeeNumber`);
    expect(without.Resources[0].emails).toBeUndefined();
    expect(without.Resources[0].name).toBeUndefined();
    expect(without.Resources[0][ENTERPRISE]).toEqual({ department: 'Human Resources' });
    expect(without.Resources[0].userName).toBe('pager1@acme.example');
    const one = json(await api.get(`/Users/${only.Resources[0].id}?attributes=active`));
    expect(Object.keys(one).sort()).toEqual(['active', 'id', 'meta', 'schemas']);
  });
});
