import { describe, expect, it } from 'vitest';
import { PersonAccess } from '../../src/people/person-access';
import { policies } from '../../src/people';
import { OrganisationsRepository } from '../../src/people/organisations/organisations.repository';
import type { AccessCheck } from '../../src/platform/http/access';
import type { Principal } from '../../src/platform/auth/principal';
import type { ApiError } from '../../src/platform/errors/api-error';

/*
 * Who may act on whom, on an organisation tree in memory:
 *   1 Acme (boss manages it) > 2 Operations (kari manages it) > 3 Warehouse (lina manages it)
 *   4 Sales (nobody of these manages it)
 * boss sits in Operations, below what he manages; kari sits in Operations; lina and ola in Warehouse; per in Sales.
 */
const TREE: Record<number, number[]> = { 1: [1, 2, 3], 2: [2, 3], 3: [3], 4: [4] };
const MANAGES: Record<number, number[]> = { 10: [1], 11: [2], 12: [3] };
const PERSONS = [
  { id: 1, user_name: 'admin', organisation_id: 1, superuser: true },
  { id: 10, user_name: 'boss', organisation_id: 2, superuser: false },
  { id: 11, user_name: 'kari', organisation_id: 2, superuser: false },
  { id: 12, user_name: 'lina', organisation_id: 3, superuser: false },
  { id: 13, user_name: 'ola', organisation_id: 3, superuser: false },
  { id: 14, user_name: 'per', organisation_id: 4, superuser: false },
];

const managers = { managedBy: async (personId: number) => new Set((MANAGES[personId] ?? []).flatMap((o) => TREE[o])) };
const directory = {
  find: async (key: any, columns: readonly string[]) => {
    const p = PERSONS.find((x) => ('id' in key ? x.id === key.id : x.user_name === key.user_name));
    return p && (Object.fromEntries(columns.map((c) => [c, (p as any)[c] ?? null])) as any);
  },
};
const principal = (userName: string): Principal => {
  const p = PERSONS.find((x) => x.user_name === userName)!;
  return { personId: p.id, userName, superuser: p.superuser, organisationId: p.organisation_id, mustChangePassword: null, via: 'session' };
};
const person = (userName: string) => PERSONS.find((x) => x.user_name === userName)!;
const access = () => new PersonAccess(managers, directory);

describe('who may act on a person', () => {
  it('selfOrManager: self, a manager of their organisation or one above, a superuser; nobody else', async () => {
    const a = access();
    expect(await a.allows(principal('ola'), person('ola'), 'selfOrManager')).toBe(true);
    expect(await a.allows(principal('kari'), person('ola'), 'selfOrManager')).toBe(true);
    expect(await a.allows(principal('admin'), person('per'), 'selfOrManager')).toBe(true);
    expect(await a.allows(principal('kari'), person('per'), 'selfOrManager')).toBe(false);
    expect(await a.allows(principal('ola'), person('kari'), 'selfOrManager')).toBe(false);
  });

  it('a manager acts on a person below, never on themself nor on a manager above them who sits in their unit', async () => {
    const a = access();
    expect(await a.allows(principal('kari'), person('lina'), 'actingManager')).toBe(true);
    expect(await a.allows(principal('kari'), person('kari'), 'actingManager')).toBe(false);
    // boss sits in Operations, which kari manages, but boss manages kari: kari reads him, never acts as his manager
    expect(await a.allows(principal('kari'), person('boss'), 'selfOrManager')).toBe(true);
    expect(await a.allows(principal('kari'), person('boss'), 'selfOrActingManager')).toBe(false);
    expect(await a.allows(principal('boss'), person('kari'), 'actingManager')).toBe(true);
    expect(await a.allows(principal('kari'), person('kari'), 'selfOrActingManager')).toBe(true);
    expect(await a.allows(principal('admin'), person('admin'), 'actingManager')).toBe(true);
  });

  it('selfOrSuperuser lets no manager in', async () => {
    const a = access();
    expect(await a.allows(principal('kari'), person('ola'), 'selfOrSuperuser')).toBe(false);
    expect(await a.allows(principal('ola'), person('ola'), 'selfOrSuperuser')).toBe(true);
    expect(await a.allows(principal('admin'), person('ola'), 'selfOrSuperuser')).toBe(true);
  });

  it('a refusal says who may; acting on oneself is told as such', async () => {
    const a = access();
    await expect(a.assert(principal('kari'), person('per'), 'selfOrManager', 'see per')).rejects.toMatchObject({
      errorcode: 403,
      message: 'not authorised to see per: only the person, their manager or a superuser may',
    });
    await expect(a.assert(principal('kari'), person('kari'), 'actingManager', 'set roles')).rejects.toMatchObject({
      message: 'not authorised to set roles for yourself: only your manager or a superuser may (a manager never acts as their own manager)',
    });
  });
});

/** A route's access check as mount-routes runs it, with the person access above in the request scope. */
function check(userName: string | null, path = '/x'): AccessCheck {
  const user = userName ? principal(userName) : null;
  const orgs = { findById: async (id: number) => (TREE[id] ? { id } : undefined) };
  return {
    principal: user,
    get user() {
      if (!user) throw Object.assign(new Error('not logged in'), { errorcode: 401 });
      return user;
    },
    path,
    method: 'post',
    resolve: ((token: unknown) => (token === PersonAccess ? access() : token === OrganisationsRepository ? orgs : undefined)) as AccessCheck['resolve'],
  };
}
const denied = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (e: ApiError) => `${e.errorcode} ${e.message}`,
  );

describe('route access rules', () => {
  const seeCompetences = policies.selfOrManager('user_name', 'see the competences of {person}');

  it('resolve the person (the caller by default), check the rule and hand the person to the handler', async () => {
    expect(await seeCompetences.check(check('ola'), {})).toMatchObject({ id: 13, user_name: 'ola' });
    expect(await seeCompetences.check(check('kari'), { user_name: 'ola' })).toMatchObject({ id: 13 });
    expect(await denied(seeCompetences.check(check('kari'), { user_name: 'per' }))).toBe(
      '403 not authorised to see the competences of per: only the person, their manager or a superuser may',
    );
    expect(await denied(seeCompetences.check(check('kari'), { user_name: 'nobody' }))).toBe('404 person nobody not found');
    // a person named in the path is the resource: quoted, as GET /persons/:user_name always answered
    expect(await denied(policies.selfOrManager('user_name', 'see this person').check(check('kari', '/persons/:user_name'), { user_name: 'nobody' }))).toBe(
      '404 person "nobody" not found',
    );
  });

  it('organisation managers, superusers and managers', async () => {
    const org = policies.organisationManager('organisation_id', 'see this organisation');
    expect(await denied(org.check(check('kari'), { organisation_id: 3 }))).toBe('allowed');
    expect(await denied(org.check(check('kari'), { organisation_id: 1 }))).toBe(
      '403 not authorised to see this organisation: only its manager or a superuser may',
    );
    expect(await denied(org.check(check('kari'), { organisation_id: 9 }))).toBe('404 organisation 9 not found');
    expect(await denied(policies.superuser('read the log').check(check('kari'), {}))).toBe('403 not authorised to read the log: superusers only');
    expect(await denied(policies.manager('list persons').check(check('ola'), {}))).toBe('403 not authorised to list persons: only superusers and managers may');
    expect(await denied(policies.manager('list persons').check(check('lina'), {}))).toBe('allowed');
  });

  it('when and either apply a rule only for the input that asks for it', async () => {
    const userCheck = policies.when('with user_check=1', (i) => !!i.user_check, seeCompetences);
    expect(await userCheck.check(check('kari'), { user_name: 'per' })).toBeUndefined();
    expect(await denied(userCheck.check(check('kari'), { user_check: true, user_name: 'per' }))).toMatch(/^403/);
    const level = policies.either(
      'with organisation_id',
      (i) => i.organisation_id !== undefined,
      policies.organisationManager('organisation_id', 'see it'),
      seeCompetences,
    );
    expect(await level.check(check('kari'), { organisation_id: 2 })).toBe(2);
    expect(await level.check(check('ola'), {})).toMatchObject({ user_name: 'ola' });
    expect(userCheck.security).toBe(
      "with user_check=1: superuser, the person's manager, self (the person named by user_name; the caller when it is left out); otherwise any logged-in person",
    );
  });

  it('anyone needs no login; every other rule answers 401 without one', async () => {
    expect(await policies.anyone.check(check(null), {})).toBeUndefined();
    expect(policies.anyone.login).toBe(false);
    expect(await denied(policies.user.check(check(null), {}))).toMatch(/^401/);
    expect(await denied(seeCompetences.check(check(null), {}))).toMatch(/^401/);
  });
});
