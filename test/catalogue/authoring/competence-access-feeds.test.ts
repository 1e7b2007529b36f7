import { beforeAll, describe, expect, it } from 'vitest';
import { competenceIdsByTitle } from '../competences/catalogue-ids';
import { createCompetence, useAuthoringBed } from './authoring-bed';

const bed = useAuthoringBed();
const table = (name: string) => bed.db.withSchema(bed.acme.schema).table(name);
let ids: Record<string, number>;

beforeAll(async () => {
  ids = await competenceIdsByTitle(bed.admin);
});

describe('who may author competences', () => {
  it('the owner may edit their course and its modules and add one; another manager and a plain person get 403; a superadmin may', async () => {
    const { kari, siri, nils, per } = bed;
    const hse = ids['HSE basic course']; // owned by kari
    const edit = (api: typeof kari, id: number, data: object) => api.put(`/api/competences/${id}`).send({ competence_data: data });
    const own = await edit(kari, hse, { description: 'Edited by its owner' });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.competences[0]).toMatchObject({ description: 'Edited by its owner', owner_user_name: 'kari' });
    expect((await edit(kari, ids['HSE basic: module 1, risk'], { valid_months: 12 })).status).toBe(200);
    const module = await createCompetence(kari, { title: 'HSE basic: module 3, by the owner', type: 'module', parent_id: hse });
    expect(module.parent_id).toBe(hse);

    const manager = await edit(siri, hse, { description: 'by another manager' });
    expect(manager.status).toBe(403);
    expect(manager.body.errorcode).toBe(403);
    expect((await edit(nils, hse, { description: 'by a plain person' })).status).toBe(403);
    expect((await siri.post('/api/competences').send({ competence_data: { title: 'x', type: 'module', parent_id: hse } })).status).toBe(403);
    expect((await kari.post('/api/competences').send({ competence_data: { title: 'Top level by a manager', type: 'skill' } })).status).toBe(403);
    // the owner may neither hand it over nor delete it (deactivating is theirs)
    expect((await edit(kari, hse, { owner_user_name: 'siri' })).status).toBe(403);
    expect((await kari.delete(`/api/competences/${module.competence_id}`)).status).toBe(403);
    expect((await edit(kari, hse, { owner_user_name: 'kari', active: 1 })).status).toBe(200);

    const superadmin = await edit(per, hse, { owner_user_name: 'siri' });
    expect(superadmin.body.competences[0].owner_user_name).toBe('siri');
    const created = await createCompetence(per, { title: 'By a superadmin', type: 'formal' });
    expect((await per.delete(`/api/competences/${created.competence_id}`)).status).toBe(200);
    // now siri owns it, kari does not
    expect((await edit(siri, hse, { owner_user_name: 'kari' })).status).toBe(403);
    expect((await edit(siri, hse, { description: 'by the new owner' })).status).toBe(200);
    expect((await edit(kari, hse, { description: 'no longer hers' })).status).toBe(403);
  });

  it('the OpenAPI document shows the access rules', async () => {
    const doc = (await bed.admin.get('/api/openapi.json')).body;
    expect(doc.paths['/api/competences'].post['x-access']).toMatch(/superadmin/);
    expect(doc.paths['/api/competences/{competence_id}'].put['x-access']).toMatch(/owner of the competence/);
    expect(doc.paths['/api/competences/{competence_id}'].delete['x-access']).toBe('superuser, superadmin');
  });
});

describe('webhooks, changes feed and audit of competence changes', () => {
  it('created, updated and deleted each write their webhook event, audit entry and changes-feed row', async () => {
    const { admin } = bed;
    const hook = await admin
      .post('/api/webhooks')
      .send({ url: 'http://127.0.0.1:9/competences', events: ['competence.created', 'competence.updated', 'competence.deleted'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const since = new Date(Date.now() - 1000).toISOString();
    const c = await createCompetence(admin, { title: 'Fed course', type: 'course' });
    const m = await createCompetence(admin, { title: 'Fed module', type: 'module', parent_id: c.competence_id });
    await admin.put(`/api/competences/${c.competence_id}`).send({ competence_data: { title: 'Fed course, renamed' } });
    expect((await admin.delete(`/api/competences/${c.competence_id}`)).status).toBe(200);

    const events = (await table('webhook_events').orderBy('id').select('type', 'body')).map((e: any) => ({ type: e.type, data: JSON.parse(e.body).data }));
    const mine = events.filter((e) => [c.competence_id, m.competence_id].includes(e.data.competence_id));
    expect(mine.map((e) => [e.type, e.data.competence_id])).toEqual([
      ['competence.created', c.competence_id],
      ['competence.created', m.competence_id],
      ['competence.updated', c.competence_id],
      ['competence.deleted', c.competence_id],
      ['competence.deleted', m.competence_id],
    ]);
    expect(mine[0].data).toMatchObject({ title: 'Fed course', type: 'course', parent_id: null, children: [] });
    expect(mine[2].data).toMatchObject({ title: 'Fed course, renamed', changed: ['title'] });
    expect(mine[3].data).toEqual({ competence_id: c.competence_id, title: 'Fed course, renamed', type: 'course', deleted: true });

    const feed = (await admin.get(`/api/changes?Type=competences&startdate=${encodeURIComponent(since)}&limit=100`)).body.changes;
    const rows = feed.filter((r: any) => r.competence_id === c.competence_id);
    expect(rows.map((r: any) => r.deleted)).toEqual([true]);
    expect(rows[0]).toMatchObject({ title: 'Fed course, renamed', type: 'course', deleted: true });
    expect(feed.some((r: any) => r.competence_id === m.competence_id && r.deleted)).toBe(true);
    // a live competence shows as changed
    const live = await createCompetence(admin, { title: 'Fed skill', type: 'skill' });
    const later = (await admin.get(`/api/changes?Type=competences&startdate=${encodeURIComponent(since)}&limit=100`)).body.changes;
    expect(later.find((r: any) => r.competence_id === live.competence_id)).toMatchObject({ deleted: false, title: 'Fed skill', active: true });

    const audit = (await admin.get('/api/auditlog?type=competence.created,competence.updated,competence.deleted&limit=100')).body.auditlog;
    const about = (id: number) =>
      audit
        .filter((a: any) => a.subject === String(id))
        .map((a: any) => a.type)
        .reverse();
    expect(about(c.competence_id)).toEqual(['competence.created', 'competence.updated', 'competence.deleted']);
    const updated = audit.find((a: any) => a.subject === String(c.competence_id) && a.type === 'competence.updated');
    expect(updated).toMatchObject({ actor: 'admin', details: { fields: ['title'] } });
  });

  it('a refused delete writes no webhook event and no audit entry (they share its transaction)', async () => {
    const before = await table('webhook_events').count({ n: '*' });
    const auditBefore = await table('audit_log').count({ n: '*' });
    const refused = await bed.admin.delete(`/api/competences/${ids['Welding certificate (EN ISO 9606)']}`); // ola holds it
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/held by \d+ person\(s\).*required by 1 role\(s\)/);
    expect(await table('webhook_events').count({ n: '*' })).toEqual(before);
    expect(await table('audit_log').count({ n: '*' })).toEqual(auditBefore);
  });
});
