import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme, loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { competenceIdsByTitle, titles } from './catalogue-ids';
import type { Knex } from 'knex';
import { KNEX } from '../../../src/platform/tokens';

let t: TestApp;
let acme: DemoTenant;
let globex: DemoTenant;
let ids: Record<string, number>;
let ola: Awaited<ReturnType<typeof asAcme>>;
let kari: Awaited<ReturnType<typeof asAcme>>;
let admin: Awaited<ReturnType<typeof asAcme>>;

const ACTIVE_TOP_LEVEL = [
  'Code of conduct signed',
  'Fire safety e-learning',
  'Forklift onboarding checklist',
  'HSE basic course',
  'Leadership 101',
  'Onboarding survey',
  'TIG welding',
  'Welding certificate (EN ISO 9606)',
];

beforeAll(async () => {
  t = await createTestApp();
  [acme, globex] = await Promise.all([importDemoTenant(t, 'acme'), importDemoTenant(t, 'globex')]);
  [ola, kari, admin] = await Promise.all([asAcme(t, acme.host, 'ola'), asAcme(t, acme.host, 'kari'), asAcme(t, acme.host, 'admin')]);
  ids = await competenceIdsByTitle(admin);
});
afterAll(async () => t?.close());

describe('GET /api/competences', () => {
  it('lists active top-level competences; modules, checklist items and survey questions only nested in children', async () => {
    const res = await ola.get('/api/competences');
    expect(res.status).toBe(200);
    expect(titles(res.body.competences)).toEqual(ACTIVE_TOP_LEVEL);
    const hse = res.body.competences.find((c: any) => c.title === 'HSE basic course');
    expect(hse.children.map((c: any) => c.title)).toEqual(['HSE basic: module 1, risk', 'HSE basic: module 2, first aid']);
    const forklift = res.body.competences.find((c: any) => c.title === 'Forklift onboarding checklist');
    expect(forklift.children.map((c: any) => [c.title, c.checked_by])).toEqual([
      ['Daily walk-around check', 'self'],
      ['Supervised driving, 2 hours', 'manager'],
    ]);
    const survey = res.body.competences.find((c: any) => c.title === 'Onboarding survey');
    expect(survey.children[1].children.map((c: any) => c.title)).toEqual(['Comment on the contract']);
  });

  it('mode=inactive returns the retired safety course only; mode=all has both', async () => {
    expect(titles((await ola.get('/api/competences?mode=inactive')).body.competences)).toEqual(['Retired safety course']);
    expect((await ola.get('/api/competences?mode=all')).body.competences).toHaveLength(9);
    expect((await ola.get('/api/competences?mode=sometimes')).body.errorcode).toBe(420);
  });

  it('custom_attributes.region=north returns the HSE basic course only; an unknown name is a 420', async () => {
    expect(titles((await ola.get('/api/competences?custom_attributes.region=north')).body.competences)).toEqual(['HSE basic course']);
    expect(titles((await ola.get('/api/competences?custom_attributes[region]=south')).body.competences)).toEqual(['Fire safety e-learning']);
    const unknown = await ola.get('/api/competences?custom_attributes.colour=red');
    expect(unknown.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'custom_attributes.colour' });
    // cost_centre is defined for events only
    expect((await ola.get('/api/competences?custom_attributes.cost_centre=1')).body.errorcode).toBe(420);
  });

  it('filters by types, term, categories, attributes and groups (sub groups included)', async () => {
    expect(titles((await ola.get('/api/competences?types=skill,formal')).body.competences)).toEqual(['TIG welding', 'Welding certificate (EN ISO 9606)']);
    expect(titles((await ola.get('/api/competences?term=weld')).body.competences)).toEqual(['TIG welding', 'Welding certificate (EN ISO 9606)']);
    const cats = (await ola.get('/api/categories?tree=1')).body.categories;
    const mandatory = cats.find((c: any) => c.name === 'Mandatory training');
    expect(titles((await ola.get(`/api/competences?category_ids=${mandatory.category_id}`)).body.competences)).toEqual(['HSE basic course']);
    const full = (await ola.get(`/api/competences/${ids['Leadership 101']}`)).body.competences[0];
    expect(full).toMatchObject({ instructor_user_name: 'kari', attributes: [{ name: 'Outdoor' }], categories: [{ name: 'Leadership' }] });
    const outdoor = full.attributes[0].attribute_id;
    expect(titles((await ola.get(`/api/competences?attribute_ids=${outdoor}`)).body.competences)).toEqual(['Leadership 101']);
    const groups = (await ola.get('/api/competencegroups')).body.competencegroups;
    const hse = groups.find((g: any) => g.name === 'Health, safety and environment');
    expect(titles((await ola.get(`/api/competences?competence_group_ids=${hse.competence_group_id}`)).body.competences)).toEqual([
      'Code of conduct signed',
      'Fire safety e-learning',
      'HSE basic course',
    ]);
    expect((await ola.get('/api/competences?types=banana')).body.errorcode).toBe(420);
  });

  it('owner_only, instructor_only and course templates follow the logged-in user', async () => {
    expect(titles((await kari.get('/api/competences?owner_only=1')).body.competences)).toEqual(['HSE basic course', 'Onboarding survey']);
    expect(titles((await kari.get('/api/competences?instructor_only=1')).body.competences)).toEqual(['Leadership 101']);
    expect(titles((await kari.get('/api/competences?course_template_usage_allowed_only=1')).body.competences)).toEqual(['HSE basic course', 'Leadership 101']);
    expect((await ola.get('/api/competences?course_template_usage_allowed_only=1')).body.competences).toEqual([]);
  });

  it('organisation_ids is for superusers; organisation_owner_only is not supported (501)', async () => {
    expect((await ola.get('/api/competences?organisation_ids=1')).status).toBe(403);
    expect((await admin.get('/api/competences?organisation_ids=1')).body.competences).toHaveLength(8);
    expect((await ola.get('/api/competences?organisation_owner_only=1')).body.errorcode).toBe(501);
  });

  it('view=full and fields shape the objects; paging limits apply', async () => {
    const res = await ola.get('/api/competences?fields=competence_id,title&limit=2');
    expect(res.body.competences).toHaveLength(2);
    expect(Object.keys(res.body.competences[0])).toEqual(['competence_id', 'title']);
    const full = (await ola.get('/api/competences?view=full&custom_attributes.region=north')).body.competences[0];
    expect(full).toMatchObject({
      owner_user_name: 'kari',
      custom_attributes: { region: 'north' },
      valid_months: 24,
      competence_group_name: 'Health, safety and environment',
    });
    expect((await ola.get('/api/competences?limit=500')).body).toMatchObject({ valid: true, message: 'OK; limit 500 is above the maximum 100; served 100' });
    expect((await ola.get('/api/competences?limit=abc')).body.errorcode).toBe(420);
  });

  it('needs a login (401)', async () => {
    expect((await client(t, acme.host).get('/api/competences')).status).toBe(401);
    expect((await client(t, acme.host).get('/api/competencegroups')).status).toBe(401);
    expect((await client(t, acme.host).get('/api/lmsstarturls')).status).toBe(401);
  });
});

describe('GET /api/competences/[id]', () => {
  it("returns a module by id with the full view; another tenant's competence is 404", async () => {
    const res = await ola.get(`/api/competences/${ids['HSE basic: module 2, first aid']}`);
    expect(res.body.competences[0]).toMatchObject({ title: 'HSE basic: module 2, first aid', type: 'module', parent_id: ids['HSE basic course'] });
    const globexAdmin = client(t, globex.host, await loginCookie(t, globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    const globexIds = await competenceIdsByTitle(globexAdmin);
    const reactorId = globexIds['Reactor safety'];
    const ownIds = new Set(Object.values(ids));
    // the same number may exist in both tenants; ask for one acme does not have
    const foreign = ownIds.has(reactorId) ? Math.max(...ownIds) + 1000 : reactorId;
    expect((await ola.get(`/api/competences/${foreign}`)).status).toBe(404);
    expect((await ola.get('/api/competences/abc')).body.errorcode).toBe(420);
  });
});

describe('groups, types, categories, LMS start URLs', () => {
  it('competence groups: roots by default, all=1 all, one with nested sub groups', async () => {
    expect((await ola.get('/api/competencegroups')).body.competencegroups.map((g: any) => g.name)).toEqual(['Health, safety and environment', 'Trade skills']);
    const all = (await ola.get('/api/competencegroups?all=1')).body.competencegroups;
    expect(all.map((g: any) => g.name).sort()).toEqual(['Fire safety', 'Health, safety and environment', 'Trade skills']);
    const hse = all.find((g: any) => g.name === 'Health, safety and environment');
    const one = (await ola.get(`/api/competencegroups/${hse.competence_group_id}`)).body.competencegroups[0];
    expect(one.sub_groups.map((g: any) => g.name)).toEqual(['Fire safety']);
    expect((await ola.get('/api/competencegroups/999999')).status).toBe(404);
  });

  it('group roles: roles with requirements in or below HSE (welder, office, safety rep)', async () => {
    const hse = (await ola.get('/api/competencegroups')).body.competencegroups[0];
    const roles = (await ola.get(`/api/competencegroups/${hse.competence_group_id}/roles`)).body.roles;
    expect(roles.map((r: any) => r.name).sort()).toEqual(['Office worker', 'Safety representative', 'Welder']);
  });

  it('competence types and categories (flat, tree, one)', async () => {
    const types = (await ola.get('/api/competencetypes')).body.competencetypes.map((x: any) => x.competence_type_id);
    expect(types).toEqual(expect.arrayContaining(['course', 'checklist_item', 'signature', 'formal', 'skill', 'ecourse', 'module']));
    const flat = (await ola.get('/api/categories')).body.categories;
    expect(flat.map((c: any) => c.name).sort()).toEqual(['Leadership', 'Mandatory training', 'Yearly refresh']);
    const tree = (await ola.get('/api/categories?tree=1')).body.categories;
    expect(tree.map((c: any) => [c.name, c.children.map((k: any) => k.name)])).toEqual([
      ['Mandatory training', ['Yearly refresh']],
      ['Leadership', []],
    ]);
    const one = (await ola.get(`/api/categories/${tree[0].category_id}`)).body.categories[0];
    expect(one.children.map((k: any) => k.name)).toEqual(['Yearly refresh']);
    expect((await ola.get('/api/categories/999999')).status).toBe(404);
  });

  it('LMS start URLs of e-courses', async () => {
    expect((await ola.get('/api/lmsstarturls')).body.lmsstarturls).toEqual([
      { competence_id: ids['Fire safety e-learning'], title: 'Fire safety e-learning', lms_start_url: 'https://lms.acme.example/start/fire-safety' },
    ]);
    expect((await ola.get(`/api/lmsstarturls?competence_ids=${ids['HSE basic course']}`)).body.errorcode).toBe(420);
    expect((await ola.get('/api/lmsstarturls?competence_ids=999999')).body.errorcode).toBe(404);
  });
});

describe('competences restricted to organisations', () => {
  it('Leadership 101 restricted to Human Resources: per sees it with users_organisations_only, ola does not', async () => {
    const knex = t.container.resolve<Knex>(KNEX);
    const org = async (ref: string) => (await knex.withSchema(acme.schema).table('organisations').where({ ref }).first()).id;
    const hr = await org('acme-hr');
    await knex.withSchema(acme.schema).table('competence_organisations').insert({ competence_id: ids['Leadership 101'], organisation_id: hr });
    const per = await asAcme(t, acme.host, 'per');
    expect(titles((await per.get('/api/competences?users_organisations_only=1')).body.competences)).toContain('Leadership 101');
    expect(titles((await ola.get('/api/competences?users_organisations_only=1')).body.competences)).not.toContain('Leadership 101');
    expect(titles((await admin.get(`/api/competences?organisation_ids=${hr}`)).body.competences)).toContain('Leadership 101');
    expect(titles((await admin.get('/api/competences?external_organisation_ids=1110')).body.competences)).toEqual(
      ACTIVE_TOP_LEVEL.filter((x) => x !== 'Leadership 101'),
    );
  });
});
