import { beforeAll, describe, expect, it } from 'vitest';
import { useAcmeApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { ENTERPRISE, PATCH_OP, json, scim, scimClient } from './scim-support';

/**
 * Replays, in order, the requests Microsoft Entra ID's provisioning service sends (shapes as in
 * Microsoft's "Develop and plan provisioning for a SCIM endpoint" and its SCIM validator): look up by
 * userName, create, look up again, PATCH with "Replace"/"Add" and filtered paths, disable with
 * "False", enable with "True", group create, membership check, add and remove members.
 */
const bed = useAcmeApp();
let api: ReturnType<typeof scim>;
const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@contoso.example';
const externalId = '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef';
let userId: string;
let groupId: string;

beforeAll(async () => {
  api = scim(bed.t, bed.acme.host, (await scimClient(bed.t, bed.acme)).token);
  await tenantDb(bed.t, bed.acme)
    .table('webhook_endpoints')
    .insert({
      url: 'https://hooks.example/in',
      events: ['person.created', 'person.updated', 'person.deactivated'],
      secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
    });
});

async function personView(user: string) {
  const admin = await asAcme(bed.t, bed.acme.host, 'admin');
  const res = await admin.get(`/api/persons/${encodeURIComponent(user)}`).query({ view: 'full', state: 'all' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.persons[0];
}

describe('Entra ID provisioning replay', () => {
  it('1. looks the user up by userName (none yet), then creates them: 201, person.created', async () => {
    const lookup = await api.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(lookup.status).toBe(200);
    expect(json(lookup)).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, Resources: [] });

    const res = await api.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
      externalId,
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_11bb6839@testuser.example' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Ingrid Hansen', familyName: 'Hansen', givenName: 'Ingrid' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: 'E-100', department: 'Operations' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    const user = json(res);
    userId = user.id;
    expect(res.headers.location).toBe(user.meta.location);
    expect(user).toMatchObject({
      userName,
      externalId,
      active: true,
      name: { givenName: 'Ingrid', familyName: 'Hansen' },
      emails: [{ value: 'test_user_11bb6839@testuser.example', type: 'work', primary: true }],
      [ENTERPRISE]: { employeeNumber: 'E-100', department: 'Operations' },
      meta: { resourceType: 'User', location: expect.stringMatching(new RegExp(`/scim/v2/Users/${userId}$`)) },
    });
    const person = await personView(userName);
    expect(person).toMatchObject({ firstname: 'Ingrid', lastname: 'Hansen', extern_person_id: externalId, employee_code: 'E-100' });
    expect(person.organisation.name).toBe('Operations');
    const events = await tenantDb(bed.t, bed.acme).table('webhook_events').where({ type: 'person.created' }).select('body');
    expect(events.map((e: any) => JSON.parse(e.body).data.user_name)).toContain(userName);
  });

  it('2. finds the user by userName (case-insensitive) and by externalId', async () => {
    for (const filter of [`userName eq "${userName.toUpperCase()}"`, `externalId eq "${externalId}"`]) {
      const res = await api.get(`/Users?filter=${encodeURIComponent(filter)}`);
      expect(json(res), filter).toMatchObject({ totalResults: 1, Resources: [{ id: userId, userName }] });
    }
  });

  it('3. PATCH with "Replace"/"Add", filtered paths, the enterprise URN and a value object without path', async () => {
    const res = await api.patch(`/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ingrid.hansen@contoso.example' },
        { op: 'Replace', path: 'name.familyName', value: 'Hansen-Berg' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+47 900 00 123' },
        { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+47 22 00 00 00' },
        { op: 'Replace', path: 'title', value: 'Welding engineer' },
        { op: 'Add', path: 'addresses[type eq "work"].formatted', value: 'Somewhere 1' },
        { op: 'Replace', path: `${ENTERPRISE}:department`, value: '1110' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'manager-object-id-1' },
        { op: 'Replace', value: { 'name.givenName': 'Ingrid Marie', displayName: 'Ingrid Marie Hansen-Berg' } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(json(res)).toMatchObject({
      name: { givenName: 'Ingrid Marie', familyName: 'Hansen-Berg' },
      emails: [{ value: 'ingrid.hansen@contoso.example' }],
      phoneNumbers: [{ value: '+4790000123', type: 'mobile' }],
      title: 'Welding engineer',
      [ENTERPRISE]: { department: 'Operations North', manager: { value: 'manager-object-id-1' } },
    });
    const person = await personView(userName);
    expect(person).toMatchObject({
      firstname: 'Ingrid Marie',
      lastname: 'Hansen-Berg',
      email: 'ingrid.hansen@contoso.example',
      mobile: '+4790000123',
      jobtitle: 'Welding engineer',
    });
    expect(person.organisation.name).toBe('Operations North');
  });

  it('4. disables with active "False": deactivated (person.deactivated), still found by its filter with active false', async () => {
    const res = await api.patch(`/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(res.status, res.text).toBe(200);
    expect(json(res).active).toBe(false);
    expect((await personView(userName)).deactivated_at).toBeTruthy();
    const found = await api.get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(json(found).Resources[0]).toMatchObject({ id: userId, active: false });
    const events = await tenantDb(bed.t, bed.acme).table('webhook_events').where({ type: 'person.deactivated' }).select('body');
    expect(events.map((e: any) => JSON.parse(e.body).data.user_name)).toContain(userName);
    const audit = await tenantDb(bed.t, bed.acme).table('audit_log').where({ type: 'person.deactivated', subject: userName }).first('actor', 'details');
    expect(audit.actor).toMatch(/^client:cli_/);
    expect(audit.details.via).toBe('scim');
  });

  it('5. enables again with active "True"', async () => {
    const res = await api.patch(`/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] });
    expect(json(res).active).toBe(true);
    expect((await personView(userName)).deactivated_at ?? null).toBeNull();
  });

  it('6. groups: look up by displayName, create, check membership, add and remove a member (roles follow)', async () => {
    const lookup = await api.get(`/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Entra Welders"')}`);
    expect(json(lookup).totalResults).toBe(0);
    const created = await api.post('/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      externalId: 'f1a2b3c4-group',
      displayName: 'Entra Welders',
      members: [],
    });
    expect(created.status, created.text).toBe(201);
    groupId = json(created).id;
    expect(json(created)).toMatchObject({ displayName: 'Entra Welders', externalId: 'f1a2b3c4-group', members: [] });

    const membership = `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${groupId}" and members[value eq "${userId}"]`)}`;
    expect(json(await api.get(membership)).totalResults).toBe(0);
    const add = await api.patch(`/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }] });
    expect(add.status, add.text).toBe(200);
    expect(json(await api.get(membership)).totalResults).toBe(1);
    expect((await personView(userName)).roles.map((r: any) => r.name)).toContain('Entra Welders');

    const remove = await api.patch(`/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ value: userId }] }] });
    expect(remove.status, remove.text).toBe(200);
    expect(json(remove).members).toEqual([]);
    expect((await personView(userName)).roles.map((r: any) => r.name)).not.toContain('Entra Welders');
    const audit = await tenantDb(bed.t, bed.acme).table('audit_log').where({ type: 'roles.changed' }).select('actor');
    expect(audit.map((a: any) => a.actor)).toContain(`client:${(await tenantDb(bed.t, bed.acme).table('api_clients').first('client_id')).client_id}`);
  });

  it('7. DELETE deactivates (204); the person and their history stay', async () => {
    const res = await api.delete(`/Users/${userId}`);
    expect(res.status).toBe(204);
    const after = await api.get(`/Users/${userId}`);
    expect(json(after)).toMatchObject({ id: userId, active: false });
  });
});
