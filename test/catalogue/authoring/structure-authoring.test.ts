import { beforeAll, describe, expect, it } from 'vitest';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { createCompetence, useAuthoringBed } from './authoring-bed';

const bed = useAuthoringBed();
let ids: Record<string, number>;
let roles: Record<string, number>;

beforeAll(async () => {
  ids = await competenceIdsByTitle(bed.admin);
  const list = (await bed.admin.get('/api/roles?competence_id=' + ids['HSE basic course'])).body.roles;
  roles = Object.fromEntries(list.map((r: any) => [r.name, r.role_id]));
});

describe('competence groups and categories', () => {
  it("create, rename, move; a cycle is a 420; deleting one in use is a 409; another tenant's id 404", async () => {
    const { admin } = bed;
    const root = (await admin.post('/api/competencegroups').send({ competence_group_data: { name: 'Logistics' } })).body.competencegroups[0];
    expect(root).toMatchObject({ name: 'Logistics', parent_id: null });
    const sub = (await admin.post('/api/competencegroups').send({ competence_group_data: { name: 'Cranes', parent_id: root.competence_group_id } })).body
      .competencegroups[0];
    const subsub = (await admin.post('/api/competencegroups').send({ competence_group_data: { name: 'Tower cranes', parent_id: sub.competence_group_id } }))
      .body.competencegroups[0];
    const read = (await admin.get(`/api/competencegroups/${root.competence_group_id}`)).body.competencegroups[0];
    expect(read.sub_groups[0]).toMatchObject({ name: 'Cranes', sub_groups: [{ name: 'Tower cranes' }] });

    const cycle = await admin
      .put(`/api/competencegroups/${root.competence_group_id}`)
      .send({ competence_group_data: { parent_id: subsub.competence_group_id } });
    expect(cycle.body).toMatchObject({ errorcode: 420, parameter: 'competence_group_data[parent_id]' });
    const self = await admin.put(`/api/competencegroups/${root.competence_group_id}`).send({ competence_group_data: { parent_id: root.competence_group_id } });
    expect(self.body.errorcode).toBe(420);
    expect((await admin.post('/api/competencegroups').send({ competence_group_data: {} })).body).toMatchObject({
      errorcode: 419,
      parameter: 'competence_group_data[name]',
    });
    const moved = await admin
      .put(`/api/competencegroups/${subsub.competence_group_id}`)
      .send({ competence_group_data: { parent_id: '', name: 'Tower cranes (all)' } });
    expect(moved.body.competencegroups[0]).toMatchObject({ parent_id: null, name: 'Tower cranes (all)' });

    await createCompetence(admin, { title: 'Crane basics', type: 'skill', competence_group_id: sub.competence_group_id });
    const inUse = await admin.delete(`/api/competencegroups/${sub.competence_group_id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toMatch(/used by 1 competence/);
    expect((await admin.delete(`/api/competencegroups/${root.competence_group_id}`)).body.message).toMatch(/has 1 sub-groups/);
    expect((await admin.delete(`/api/competencegroups/${subsub.competence_group_id}`)).status).toBe(200);
    expect((await admin.get(`/api/competencegroups/${subsub.competence_group_id}`)).status).toBe(404);
    expect((await admin.put('/api/competencegroups/99999999').send({ competence_group_data: { name: 'x' } })).status).toBe(404);

    const cat = (await admin.post('/api/categories').send({ category_data: { name: 'Heavy machinery', description: 'Cranes and trucks' } })).body.categories[0];
    expect(cat).toMatchObject({ name: 'Heavy machinery', parent_id: null, description: 'Cranes and trucks' });
    const child = (await admin.post('/api/categories').send({ category_data: { name: 'Cranes', parent_id: cat.category_id } })).body.categories[0];
    expect((await admin.put(`/api/categories/${cat.category_id}`).send({ category_data: { parent_id: child.category_id } })).body.errorcode).toBe(420);
    await createCompetence(admin, { title: 'Truck basics', type: 'skill', category_ids: [child.category_id] });
    expect((await admin.delete(`/api/categories/${child.category_id}`)).status).toBe(409);
    expect((await admin.delete(`/api/categories/${cat.category_id}`)).status).toBe(409);

    const audit = (await admin.get('/api/auditlog?type=competencegroup.created,competencegroup.deleted,category.created&limit=100')).body.auditlog;
    expect(audit.filter((a: any) => a.type === 'competencegroup.created')).toHaveLength(3);
    expect(audit.filter((a: any) => a.type === 'category.created')).toHaveLength(2);
    expect(audit.find((a: any) => a.type === 'competencegroup.deleted')).toMatchObject({ subject: String(subsub.competence_group_id), actor: 'admin' });
  });

  it('superusers and superadmins only', async () => {
    expect((await bed.kari.post('/api/competencegroups').send({ competence_group_data: { name: 'x' } })).status).toBe(403);
    expect((await bed.ola.post('/api/categories').send({ category_data: { name: 'x' } })).status).toBe(403);
    expect((await bed.per.post('/api/categories').send({ category_data: { name: 'By a superadmin' } })).status).toBe(200);
    expect((await bed.kari.put(`/api/roles/${roles['Welder']}/requirements`).send({ competence_id: ids['TIG welding'] })).status).toBe(403);
  });
});

describe('roles and requirements', () => {
  it('create, change and delete a role; deleting one held by persons is a 409', async () => {
    const { admin } = bed;
    const created = await admin.post('/api/roles').send({ role_data: { name: 'Crane operator', meta_type: 'specialrole', description: 'Operates cranes' } });
    expect(created.body.roles[0]).toMatchObject({ name: 'Crane operator', meta_type: 'specialrole', description: 'Operates cranes', requirements: [] });
    const id = created.body.roles[0].role_id;
    expect((await admin.put(`/api/roles/${id}`).send({ role_data: { meta_type: 'position', description: '' } })).body.roles[0]).toMatchObject({
      meta_type: 'position',
      description: null,
    });
    expect((await admin.put(`/api/roles/${id}`).send({ role_data: { meta_type: 'boss' } })).body).toMatchObject({
      errorcode: 420,
      parameter: 'role_data[meta_type]',
    });
    const held = await admin.delete(`/api/roles/${roles['Welder']}`);
    expect(held.status).toBe(409);
    expect(held.body.message).toMatch(/held by 3 person\(s\)/);
    await admin.put(`/api/roles/${id}/requirements`).send({ competence_id: ids['TIG welding'] });
    expect((await admin.delete(`/api/roles/${id}`)).body).toMatchObject({ message: 'role deleted', roles: [{ role_id: id }] });
    expect((await admin.get(`/api/roles/${id}`)).status).toBe(404);
    expect((await admin.delete(`/api/roles/${id}`)).status).toBe(404);
  });

  it("a requirement added to a role shows at once in a holder's missing list and competence level; removing it reverts both", async () => {
    const { admin, ola } = bed;
    const welder = roles['Welder'];
    const skill = await createCompetence(admin, { title: 'Rope access', type: 'skill' });
    const missing = async () => (await ola.get('/api/personcompetences?state=missing&limit=100')).body.personcompetences.map((p: any) => p.title).sort();
    const level = async () => (await ola.get('/api/competencelevel')).body.competencelevel[0];
    const missingBefore = await missing();
    const levelBefore = await level();
    expect(missingBefore).not.toContain('Rope access');

    const set = await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: skill.competence_id, mandatory: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.roles[0].requirements).toContainEqual({ competence_id: skill.competence_id, title: 'Rope access', type: 'skill', mandatory: true });
    expect(await missing()).toEqual([...missingBefore, 'Rope access'].sort());
    const levelWith = await level();
    expect(levelWith).toMatchObject({ required: levelBefore.required + 1, fulfilled: levelBefore.fulfilled });
    expect(levelWith.competence_level).toBe(Math.floor((100 * levelBefore.fulfilled) / (levelBefore.required + 1)));

    // optional: no longer in the mandatory missing list nor in the level
    await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: skill.competence_id, mandatory: 0 });
    expect(await missing()).toEqual(missingBefore);
    expect(await level()).toEqual(levelBefore);
    await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: skill.competence_id, mandatory: 'true' });
    expect((await level()).required).toBe(levelBefore.required + 1);

    const removed = await admin.delete(`/api/roles/${welder}/requirements`).send({ competence_id: skill.competence_id });
    expect(removed.status).toBe(200);
    expect(await missing()).toEqual(missingBefore);
    expect(await level()).toEqual(levelBefore);
    expect((await admin.delete(`/api/roles/${welder}/requirements`).send({ competence_id: skill.competence_id })).status).toBe(404);

    const audit = (await admin.get('/api/auditlog?type=requirement.changed,requirement.removed&limit=100')).body.auditlog;
    expect(audit.filter((a: any) => a.subject === String(welder)).map((a: any) => a.type)).toEqual([
      'requirement.removed',
      'requirement.changed',
      'requirement.changed',
      'requirement.changed',
    ]);
  });

  it('a requirement names an existing top-level competence of this tenant', async () => {
    const { admin } = bed;
    const welder = roles['Welder'];
    expect((await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: 99999999 })).status).toBe(404);
    expect((await admin.put(`/api/roles/99999999/requirements`).send({ competence_id: ids['TIG welding'] })).status).toBe(404);
    const module = await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: ids['HSE basic: module 1, risk'] });
    expect(module.body).toMatchObject({ errorcode: 420, parameter: 'competence_id' });
    expect((await admin.put(`/api/roles/${welder}/requirements`).send({})).body).toMatchObject({ errorcode: 419, parameter: 'competence_id' });
    // a competence some role requires cannot be deleted
    const required = await createCompetence(admin, { title: 'Required, then deleted', type: 'skill' });
    await admin.put(`/api/roles/${welder}/requirements`).send({ competence_id: required.competence_id });
    expect((await admin.delete(`/api/competences/${required.competence_id}`)).body.message).toMatch(/required by 1 role/);
  });
});
