import { beforeAll, describe, expect, it } from 'vitest';
import { useAcmeApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { PATCH_OP, json, scim, scimClient } from './scim-support';

/**
 * Replays, in order, the requests Okta's SCIM 2.0 provisioning sends (shapes as in Okta's "SCIM 2.0
 * protocol reference"): look up by userName with startIndex/count, create (with the password Okta
 * pushes, ignored here), read, PUT the whole user for a profile change, PATCH `{"active": false}`
 * without path to deactivate and back, groups: create, add a member, remove it by
 * `members[value eq "…"]`, rename with a value object, delete.
 */
const bed = useAcmeApp();
let api: ReturnType<typeof scim>;
let userId: string;
let groupId: string;
const userName = 'okta.user@acme-okta.example';

beforeAll(async () => {
  api = scim(bed.t, bed.acme.host, (await scimClient(bed.t, bed.acme)).token);
});

async function personView(user: string) {
  const admin = await asAcme(bed.t, bed.acme.host, 'admin');
  const res = await admin.get(`/api/persons/${encodeURIComponent(user)}`).query({ view: 'full', state: 'all' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.persons[0];
}

const oktaUser = (over: Record<string, unknown> = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName,
  name: { givenName: 'Okta', familyName: 'User' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: 'Okta User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  active: true,
  ...over,
});

describe('Okta provisioning replay', () => {
  it('1. looks up by userName with startIndex and count, then creates (password ignored): 201', async () => {
    const lookup = await api.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}&startIndex=1&count=100`);
    expect(json(lookup)).toMatchObject({ totalResults: 0, startIndex: 1, itemsPerPage: 0 });
    const res = await api.post('/Users', oktaUser({ password: '1mz050nq' }));
    expect(res.status, res.text).toBe(201);
    userId = json(res).id;
    expect(json(res)).toMatchObject({ userName, active: true, externalId: '00ujl29u0le5T6Aj10h7' });
    // no department and none named: the API client's default organisation
    expect((await personView(userName)).organisation.name).toBe('Human Resources');
  });

  it('2. reads the user by id', async () => {
    const res = await api.get(`/Users/${userId}`);
    expect(res.status).toBe(200);
    expect(json(res)).toMatchObject({ id: userId, userName, name: { givenName: 'Okta', familyName: 'User' } });
  });

  it('3. PUT replaces the profile (Okta updates with PUT)', async () => {
    const res = await api.put(
      `/Users/${userId}`,
      oktaUser({
        id: userId,
        name: { givenName: 'Oktavia', familyName: 'Usersen' },
        title: 'Safety officer',
        phoneNumbers: [{ value: '+4791234567', type: 'mobile' }],
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Operations South', employeeNumber: '4711' },
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(json(res)).toMatchObject({
      name: { givenName: 'Oktavia', familyName: 'Usersen' },
      title: 'Safety officer',
      phoneNumbers: [{ value: '+4791234567' }],
    });
    const person = await personView(userName);
    expect(person).toMatchObject({ firstname: 'Oktavia', lastname: 'Usersen', jobtitle: 'Safety officer', mobile: '+4791234567', employee_code: '4711' });
    expect(person.organisation.name).toBe('Operations South');
  });

  it('4. a PUT that leaves an attribute out clears it', async () => {
    const res = await api.put(`/Users/${userId}`, oktaUser({ name: { givenName: 'Oktavia', familyName: 'Usersen' } }));
    expect(res.status, res.text).toBe(200);
    expect(json(res).title).toBeUndefined();
    expect((await personView(userName)).jobtitle ?? null).toBeNull();
  });

  it('5. PATCH {"active": false} without path deactivates; {"active": true} reactivates', async () => {
    const off = await api.patch(`/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
    expect(off.status, off.text).toBe(200);
    expect(json(off).active).toBe(false);
    expect((await personView(userName)).deactivated_at).toBeTruthy();
    const on = await api.patch(`/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
    expect(json(on).active).toBe(true);
    expect((await personView(userName)).deactivated_at ?? null).toBeNull();
  });

  it('6. groups: create, add a member, remove it by members[value eq], rename, delete', async () => {
    const created = await api.post('/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Okta Safety', members: [] });
    expect(created.status, created.text).toBe(201);
    groupId = json(created).id;
    const add = await api.patch(`/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: userName }] }],
    });
    expect(add.status, add.text).toBe(200);
    expect(json(add).members).toEqual([expect.objectContaining({ value: userId, display: userName })]);
    expect((await personView(userName)).roles.map((r: any) => r.name)).toContain('Okta Safety');

    const remove = await api.patch(`/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }] });
    expect(remove.status, remove.text).toBe(200);
    expect((await personView(userName)).roles.map((r: any) => r.name)).not.toContain('Okta Safety');

    const rename = await api.patch(`/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Okta Safety Team' } }],
    });
    expect(json(rename).displayName).toBe('Okta Safety Team');

    const put = await api.put(`/Groups/${groupId}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Okta Safety Team',
      members: [{ value: userId }],
    });
    expect(put.status, put.text).toBe(200);
    expect((await personView(userName)).roles.map((r: any) => r.name)).toContain('Okta Safety Team');

    // deleting a group SCIM created takes the role from its holders, then deletes the role
    expect((await api.delete(`/Groups/${groupId}`)).status).toBe(204);
    expect((await api.get(`/Groups/${groupId}`)).status).toBe(404);
    expect((await personView(userName)).roles.map((r: any) => r.name)).not.toContain('Okta Safety Team');
  });
});
