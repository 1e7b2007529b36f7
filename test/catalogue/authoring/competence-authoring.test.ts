import { describe, expect, it } from 'vitest';
import { client, importDemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { COMPETENCE_TYPE_IDS } from '../../../src/catalogue';
import { createCompetence, useAuthoringBed } from './authoring-bed';

const bed = useAuthoringBed();
const table = (name: string) => bed.db.withSchema(bed.acme.schema).table(name);

describe('POST /api/competences', () => {
  it('a course with two modules, written through the API, reads back through GET /api/competences/[id] as written, children included', async () => {
    const { admin } = bed;
    const groups = (await admin.get('/api/competencegroups?all=1')).body.competencegroups;
    const trade = groups.find((g: any) => g.name === 'Trade skills');
    const cats = (await admin.get('/api/categories')).body.categories;
    const leadership = cats.find((c: any) => c.name === 'Leadership');
    const outdoor = (await admin.get('/api/competences?view=full&term=Leadership')).body.competences[0].attributes[0];
    // bracket form, as a form post sends it
    const res = await admin
      .post('/api/competences')
      .type('form')
      .send(
        'competence_data[title]=Crane operation&competence_data[type]=course&competence_data[description]=Two days on the crane' +
          `&competence_data[competence_group_id]=${trade.competence_group_id}&competence_data[category_ids][]=${leadership.category_id}` +
          `&competence_data[attribute_ids][]=${outdoor.attribute_id}&competence_data[valid_months]=36&competence_data[owner_user_name]=kari` +
          '&competence_data[instructor_user_name]=siri&competence_data[custom_attributes][region]=north&competence_data[active]=1',
      );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.message).toBe('competence created');
    const course = res.body.competences[0];
    const m1 = await createCompetence(admin, { title: 'Crane: module 1, rigging', type: 'module', parent_id: course.competence_id });
    const m2 = await createCompetence(admin, { title: 'Crane: module 2, lifting', type: 'module', parent_id: course.competence_id, valid_months: 12 });
    expect(m1).toMatchObject({ type: 'module', parent_id: course.competence_id, children: [] });

    const read = (await admin.get(`/api/competences/${course.competence_id}`)).body.competences[0];
    expect(read).toMatchObject({
      title: 'Crane operation',
      type: 'course',
      description: 'Two days on the crane',
      active: true,
      parent_id: null,
      competence_group_id: trade.competence_group_id,
      competence_group_name: 'Trade skills',
      valid_months: 36,
      categories: [{ category_id: leadership.category_id, name: 'Leadership' }],
      attributes: [{ attribute_id: outdoor.attribute_id, name: 'Outdoor' }],
      owner_user_name: 'kari',
      instructor_user_name: 'siri',
      custom_attributes: { region: 'north' },
    });
    expect(read.children.map((c: any) => [c.competence_id, c.title, c.type, c.valid_months])).toEqual([
      [m1.competence_id, 'Crane: module 1, rigging', 'module', null],
      [m2.competence_id, 'Crane: module 2, lifting', 'module', 12],
    ]);
    // the answer of the POST is the same full view (bar the children written after it)
    expect({ ...course, children: read.children, updated_at: read.updated_at }).toEqual(read);
    // the catalogue list shows it at once, with its modules nested
    const listed = (await bed.ola.get('/api/competences?term=Crane')).body.competences;
    expect(listed.map((c: any) => [c.title, c.children.length])).toEqual([['Crane operation', 2]]);
  });

  it('accepts every type the read side knows, each in a parent that allows it', async () => {
    const { admin } = bed;
    const parents: Record<string, number> = {};
    for (const type of ['course', 'group', 'checklist', 'survey', 'ecourse', 'signature', 'formal', 'skill']) {
      const c = await createCompetence(admin, {
        title: `Every type: ${type}`,
        type,
        ...(type === 'ecourse' ? { lms_start_url: 'https://lms.example/x' } : {}),
      });
      expect(c.type).toBe(type);
      parents[type] = c.competence_id;
    }
    const module = await createCompetence(admin, { title: 'Every type: module', type: 'module', parent_id: parents.group });
    const item = await createCompetence(admin, { title: 'Every type: item', type: 'checklist_item', parent_id: parents.checklist, checked_by: 'both' });
    const question = await createCompetence(admin, { title: 'Every type: question', type: 'question', parent_id: parents.survey });
    const followUp = await createCompetence(admin, { title: 'Every type: follow-up', type: 'question', parent_id: question.competence_id });
    expect([module.type, item.type, item.checked_by, question.type, followUp.parent_id]).toEqual([
      'module',
      'checklist_item',
      'both',
      'question',
      question.competence_id,
    ]);
    const types = new Set([...Object.keys(parents), module.type, item.type, question.type]);
    expect([...types].sort()).toEqual([...COMPETENCE_TYPE_IDS].sort());
    // a checklist item without checked_by is checked by the person
    expect((await createCompetence(admin, { title: 'Every type: item 2', type: 'checklist_item', parent_id: parents.checklist })).checked_by).toBe('self');
  });

  it('419 for a missing title or type, 420 naming the field for everything malformed', async () => {
    const { admin } = bed;
    const post = (data: unknown) => admin.post('/api/competences').send({ competence_data: data });
    const course = await createCompetence(admin, { title: 'Validation course', type: 'course' });
    const checklist = await createCompetence(admin, { title: 'Validation checklist', type: 'checklist' });
    expect((await post({ type: 'course' })).body).toMatchObject({ errorcode: 419, parameter: 'competence_data[title]' });
    expect((await post({ title: 'x' })).body).toMatchObject({ errorcode: 419, parameter: 'competence_data[type]' });
    expect((await admin.post('/api/competences').send({})).body).toMatchObject({ errorcode: 419, parameter: 'competence_data' });
    const cases: [unknown, string, RegExp?][] = [
      [{ title: 'x', type: 'banana' }, 'competence_data[type]'],
      [{ title: 'x', type: 'course', colour: 'red' }, 'competence_data'],
      // the parent's type must allow the child
      [{ title: 'x', type: 'module', parent_id: checklist.competence_id }, 'competence_data[parent_id]', /parent must be a course or group/],
      [{ title: 'x', type: 'checklist_item', parent_id: course.competence_id }, 'competence_data[parent_id]', /checklist/],
      [{ title: 'x', type: 'module' }, 'competence_data[parent_id]', /needs a parent_id/],
      [{ title: 'x', type: 'skill', parent_id: course.competence_id }, 'competence_data[parent_id]', /cannot have a parent/],
      [{ title: 'x', type: 'module', parent_id: 99999999 }, 'competence_data[parent_id]', /no competence/],
      [{ title: 'x', type: 'ecourse', lms_start_url: 'javascript:alert(1)' }, 'competence_data[lms_start_url]', /http/],
      [{ title: 'x', type: 'ecourse', lms_start_url: '/relative/path' }, 'competence_data[lms_start_url]'],
      [{ title: 'x', type: 'course', lms_start_url: 'https://lms.example/' }, 'competence_data[lms_start_url]', /only e-courses/],
      [{ title: 'x', type: 'course', checked_by: 'self' }, 'competence_data[checked_by]', /only checklist items/],
      [{ title: 'x', type: 'checklist_item', parent_id: checklist.competence_id, checked_by: 'robot' }, 'competence_data[checked_by]'],
      [{ title: 'x', type: 'course', valid_months: 0 }, 'competence_data[valid_months]'],
      [{ title: 'x', type: 'course', competence_group_id: 99999999 }, 'competence_data[competence_group_id]'],
      [{ title: 'x', type: 'course', category_ids: [99999999] }, 'competence_data[category_ids]'],
      [{ title: 'x', type: 'course', owner_user_name: 'nobody-here' }, 'competence_data[owner_user_name]', /no person/],
      // custom attributes: the tenant defines region for competences and events, cost_centre for events only
      [{ title: 'x', type: 'course', custom_attributes: { colour: 'red' } }, 'competence_data[custom_attributes][colour]', /defined: region/],
      [{ title: 'x', type: 'course', custom_attributes: { cost_centre: 'CC-1' } }, 'competence_data[custom_attributes][cost_centre]'],
      [{ title: 'x', type: 'course', custom_attributes: { region: ['a', 'b'] } }, 'competence_data[custom_attributes][region]'],
    ];
    for (const [data, parameter, message] of cases) {
      const res = await post(data);
      expect(res.body, JSON.stringify(data)).toMatchObject({ valid: false, errorcode: 420, parameter });
      if (message) expect(res.body.message).toMatch(message);
    }
    // JSON text is accepted as well
    const asText = await admin
      .post('/api/competences')
      .send({ competence_data: JSON.stringify({ title: 'As JSON text', type: 'skill', custom_attributes: { region: 'west' } }) });
    expect(asText.body.competences[0]).toMatchObject({ title: 'As JSON text', custom_attributes: { region: 'west' } });
  });

  it('a repeat with the same Idempotency-Key is replayed and creates nothing more', async () => {
    const body = { competence_data: { title: 'Idempotent skill', type: 'skill' } };
    const first = await bed.admin.post('/api/competences').set('Idempotency-Key', 'create-skill-1').send(body);
    expect(first.status).toBe(200);
    const again = await bed.admin.post('/api/competences').set('Idempotency-Key', 'create-skill-1').send(body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await table('competences').where({ title: 'Idempotent skill' }).count({ n: '*' })).toEqual([{ n: '1' }]);
  });
});

describe('PUT /api/competences/[id]', () => {
  it('changes only the fields given; an empty value clears one; custom attributes merge', async () => {
    const { admin } = bed;
    const c = await createCompetence(admin, {
      title: 'Changing e-course',
      type: 'ecourse',
      lms_start_url: 'https://lms.example/a',
      description: 'old',
      custom_attributes: { region: 'north' },
    });
    const res = await admin
      .put(`/api/competences/${c.competence_id}`)
      .send({ competence_data: { title: 'Changed e-course', description: '', valid_months: 6, lms_start_url: 'http://lms.example/b' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.competences[0]).toMatchObject({
      title: 'Changed e-course',
      description: null,
      valid_months: 6,
      lms_start_url: 'http://lms.example/b',
      custom_attributes: { region: 'north' },
      active: true,
    });
    await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { custom_attributes: { region: '' }, active: 0 } });
    const read = (await admin.get(`/api/competences/${c.competence_id}`)).body.competences[0];
    expect(read).toMatchObject({ title: 'Changed e-course', custom_attributes: {}, active: false });
    expect((await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { title: '' } })).body).toMatchObject({
      errorcode: 420,
      parameter: 'competence_data[title]',
    });
    expect((await admin.put('/api/competences/99999999').send({ competence_data: { title: 'x' } })).status).toBe(404);
  });

  it('the type changes while nothing is registered; once registered it is a 409; a change that does not fit the parent or children is refused', async () => {
    const { admin } = bed;
    const c = await createCompetence(admin, { title: 'Type change', type: 'course' });
    const toSkill = await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { type: 'skill' } });
    expect(toSkill.body.competences[0].type).toBe('skill');
    expect((await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { type: 'module' } })).body).toMatchObject({
      errorcode: 420,
      parameter: 'competence_data[type]',
    });
    const reg = await admin.put(`/api/personcompetences/${c.competence_id}`).send({ user_name: 'ola' });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const refused = await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { type: 'formal' } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/registrations/);
    const course = await createCompetence(admin, { title: 'Course with a module', type: 'course' });
    await createCompetence(admin, { title: 'Its module', type: 'module', parent_id: course.competence_id });
    expect((await admin.put(`/api/competences/${course.competence_id}`).send({ competence_data: { type: 'checklist' } })).status).toBe(409);
    expect((await admin.put(`/api/competences/${course.competence_id}`).send({ competence_data: { type: 'group' } })).body.competences[0].type).toBe('group');
  });
});

describe('DELETE /api/competences/[id]', () => {
  it('409 while a person holds it or an event uses it (one of its modules too); otherwise deleted with its modules, then 404', async () => {
    const { admin } = bed;
    const held = await createCompetence(admin, { title: 'Held skill', type: 'skill' });
    await admin.put(`/api/personcompetences/${held.competence_id}`).send({ user_name: 'ola' });
    const heldRes = await admin.delete(`/api/competences/${held.competence_id}`);
    expect(heldRes.status).toBe(409);
    expect(heldRes.body.message).toMatch(/held by 1 person\(s\); deactivate it with active=0 instead/);

    const course = await createCompetence(admin, { title: 'Course with events', type: 'course' });
    const module = await createCompetence(admin, { title: 'Module with an event', type: 'module', parent_id: course.competence_id });
    await table('events').insert({
      competence_id: module.competence_id,
      title: 'Module event',
      starts_at: '2031-01-01T08:00:00Z',
      ends_at: '2031-01-01T15:00:00Z',
    });
    const used = await admin.delete(`/api/competences/${course.competence_id}`);
    expect(used.status).toBe(409);
    expect(used.body.message).toMatch(/or one of the 1 inside it\) is used by 1 event\(s\)/);

    const free = await createCompetence(admin, { title: 'Free course', type: 'course' });
    const freeModule = await createCompetence(admin, { title: 'Free module', type: 'module', parent_id: free.competence_id });
    const gone = await admin.delete(`/api/competences/${free.competence_id}`);
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(gone.body).toMatchObject({ message: 'competence deleted', competences: [{ competence_id: free.competence_id, title: 'Free course' }] });
    expect((await admin.get(`/api/competences/${free.competence_id}`)).status).toBe(404);
    expect((await admin.get(`/api/competences/${freeModule.competence_id}`)).status).toBe(404);
    expect((await admin.delete(`/api/competences/${free.competence_id}`)).status).toBe(404);
  });

  it('a survey with answers, and each of its questions, is kept (409); a question of an unanswered survey goes', async () => {
    const { admin, ola } = bed;
    const survey = await createCompetence(admin, { title: 'Answered survey', type: 'survey' });
    const q1 = await createCompetence(admin, { title: 'Answered question', type: 'question', parent_id: survey.competence_id });
    const q2 = await createCompetence(admin, { title: 'Follow-up question', type: 'question', parent_id: q1.competence_id });
    const answer = await ola.post('/api/surveyanswer').send({ data: { items: [{ competence_id: q1.competence_id, value: 'yes' }] } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    for (const id of [survey.competence_id, q1.competence_id, q2.competence_id]) {
      const res = await admin.delete(`/api/competences/${id}`);
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/answered in 1 survey answer\(s\)/);
    }
    const unanswered = await createCompetence(admin, { title: 'Unanswered survey', type: 'survey' });
    const q = await createCompetence(admin, { title: 'Unanswered question', type: 'question', parent_id: unanswered.competence_id });
    expect((await admin.delete(`/api/competences/${q.competence_id}`)).status).toBe(200);
    expect((await admin.get(`/api/competences/${unanswered.competence_id}`)).body.competences[0].children).toEqual([]);
  });

  it("another tenant's competence id is a 404 for every write", async () => {
    const other = await importDemoTenant(bed.t, 'acme');
    const otherAdmin = await asAcme(bed.t, other.host, 'admin');
    const theirs = await createCompetence(otherAdmin, { title: 'Only in the other tenant', type: 'skill' });
    const max = await table('competences').max({ m: 'id' });
    const foreign = Math.max(theirs.competence_id, max[0].m + 1000);
    await bed.db.withSchema(other.schema).table('competences').where({ id: theirs.competence_id }).update({ id: foreign });
    expect((await bed.admin.put(`/api/competences/${foreign}`).send({ competence_data: { title: 'mine now' } })).status).toBe(404);
    expect((await bed.admin.delete(`/api/competences/${foreign}`)).status).toBe(404);
    expect((await client(bed.t, bed.acme.host).delete(`/api/competences/${foreign}`)).status).toBe(401);
  });
});
