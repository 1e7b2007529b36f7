import { describe, expect, it } from 'vitest';
import { client } from '../../support/test-app';
import { loginCookie, GLOBEX_PASSWORDS } from '../../support/login';
import { COURSE, FUTURE, M1, M2, RUN, ok, useResultsBed, type Api } from './results-support';
import { TenantAdminService } from '../../../src/tenancy/tenants/tenant-admin.service';

const bed = useResultsBed();

/** A webhook endpoint for the types results write (to a port nobody listens on: what counts is that the event is written). */
async function subscribe(admin: Api): Promise<void> {
  ok(
    await admin
      .post('/api/webhooks')
      .send({ url: 'http://127.0.0.1:9/results', events: ['personcompetence.registered', 'personcompetence.deleted', 'personevent.result_recorded'] }),
  );
}

async function hooks(type: string): Promise<any[]> {
  const rows = await bed.db().table('webhook_events').where({ type }).orderBy('id').select('body');
  return rows.map((r: { body: string }) => JSON.parse(r.body).data);
}

/** The person's current registrations (not superseded, not deleted), by competence title. */
async function current(userName: string): Promise<Record<string, { date: string; valid_until: string | null; passed: number }>> {
  const rows = await bed
    .db()
    .table('person_competences as pc')
    .join('persons as p', 'p.id', 'pc.person_id')
    .join('competences as c', 'c.id', 'pc.competence_id')
    .where('p.user_name', userName)
    .whereNull('pc.superseded_at')
    .whereNull('pc.deleted_at')
    .select('c.title', bed.db().raw('pc.date::text as date'), bed.db().raw('pc.valid_until::text as valid_until'), 'pc.passed');
  return Object.fromEntries(rows.map((r: any) => [r.title, { date: r.date, valid_until: r.valid_until, passed: r.passed }]));
}

const level = async (admin: Api, organisationId: number) => {
  const res = await admin.get(`/api/competencelevel?organisation_id=${organisationId}`);
  ok(res);
  return res.body.competencelevel[0];
};

const ids = async () => ({
  run: await bed.idOf('events', { title: RUN }),
  m1: await bed.idOf('events', { title: 'Results module 1, October' }),
  m2: await bed.idOf('events', { title: 'Results module 2, October' }),
  future: await bed.idOf('events', { title: FUTURE }),
  course: await bed.idOf('competences', { title: COURSE }),
  cm1: await bed.idOf('competences', { title: M1 }),
  cm2: await bed.idOf('competences', { title: M2 }),
  unit: await bed.idOf('organisations', { name: 'Results unit' }),
});

describe('PUT /api/participants/[event_id]: results and attendance', () => {
  it('passed=100 for 3 of 4: exactly those 3 get the course and module registrations with the right dates, the level changes, 3 course webhooks; a correction to 0 removes one', async () => {
    const { run, m1, course, cm1, cm2, unit } = await ids();
    const [admin, ivar] = [await bed.as('admin'), await bed.as('ivar')];
    await subscribe(admin);
    expect(await level(admin, unit)).toMatchObject({ required: 4, fulfilled: 0, competence_level: 0 });
    const since = new Date(Date.now() - 1000).toISOString();

    const results = [
      { user_name: 'r1', met: 1, passed: 100, grade: 5.5 },
      { user_name: 'r2', met: 1, passed: 100 },
      { user_name: 'r3', met: 1, passed: 100, comments: 'well done' },
      { user_name: 'r4', met: 0, passed: 0 },
    ];
    const res = await ivar.put(`/api/participants/${run}`).send({ results: JSON.stringify(results) });
    ok(res);
    expect(res.body.message).toBe('4 result(s) recorded; 9 registration(s) made, 0 removed');
    expect(res.body.participants.map((p: any) => [p.user_name, p.met, p.passed, p.pass_reached])).toEqual([
      ['r1', true, 100, true],
      ['r2', true, 100, true],
      ['r3', true, 100, true],
      ['r4', false, 0, false],
    ]);
    expect(res.body.participants[0]).toMatchObject({ grade: 5.5, comments: null, result_recorded_by: 'ivar', holds_competence: true });
    expect(res.body.participants[2].comments).toBe('well done');

    // date: the events' end days in Oslo (22:30Z on the 15th is the 16th there); valid_until + 24 months for the course
    for (const u of ['r1', 'r2', 'r3']) {
      expect(await current(u)).toEqual({
        [COURSE]: { date: '2026-10-16', valid_until: '2028-10-16', passed: 100 },
        [M1]: { date: '2026-10-14', valid_until: null, passed: 100 },
        [M2]: { date: '2026-10-15', valid_until: null, passed: 100 },
      });
    }
    expect(await current('r4')).toEqual({});
    const listed = await admin.get('/api/personcompetences?user_name=r1');
    ok(listed);
    expect(listed.body.personcompetences.find((p: any) => p.competence_id === course)).toMatchObject({ date: '2026-10-16', valid_until: '2028-10-16' });
    expect(await level(admin, unit)).toMatchObject({ required: 4, fulfilled: 3, competence_level: 75 });

    const registered = await hooks('personcompetence.registered');
    expect(
      registered
        .filter((d) => d.competence_id === course)
        .map((d) => d.user_name)
        .sort(),
    ).toEqual(['r1', 'r2', 'r3']);
    expect(registered.filter((d) => d.competence_id === cm1 || d.competence_id === cm2)).toHaveLength(6);
    expect(registered.find((d) => d.user_name === 'r1' && d.competence_id === course)).toMatchObject({
      date: '2026-10-16',
      valid_until: '2028-10-16',
      registered_by: 'ivar',
    });
    expect(await hooks('personevent.result_recorded')).toHaveLength(4);
    const feed = await admin.get(`/api/changes?Type=personcompetences&startdate=${encodeURIComponent(since)}&limit=100`);
    ok(feed);
    expect(
      feed.body.changes
        .filter((c: any) => c.competence_id === course && !c.deleted)
        .map((c: any) => c.user_name)
        .sort(),
    ).toEqual(['r1', 'r2', 'r3']);

    // the read side shows what was written, and its filters follow it
    const passedOnes = await admin.get(`/api/participants/${run}?passed=1`);
    expect(passedOnes.body.participants.map((p: any) => p.user_name)).toEqual(['r1', 'r2', 'r3']);
    expect((await admin.get(`/api/participants/${run}?passed=0&waitlist=0`)).body.participants.map((p: any) => p.user_name)).toEqual(['r4']);
    expect((await admin.get(`/api/participants/${run}?met=0`)).body.participants.map((p: any) => p.user_name)).toEqual(['r4', 'rw']);
    // a module event's participants: the course event's signed-on persons
    expect((await admin.get(`/api/participants/${m1}`)).body.participants.map((p: any) => [p.user_name, p.passed])).toEqual([
      ['r1', null],
      ['r2', null],
      ['r3', null],
      ['r4', null],
    ]);

    // the same again changes nothing
    const again = await ivar.put(`/api/participants/${run}`).send({ results });
    ok(again);
    expect(again.body.message).toBe('0 result(s) recorded, 4 unchanged');
    expect(await hooks('personcompetence.registered')).toHaveLength(9);
    expect(await hooks('personevent.result_recorded')).toHaveLength(4);
    expect(await bed.db().table('person_competences').where('competence_id', course).count('* as n').first()).toEqual({ n: '3' });

    // correction: r3 back to 0 removes r3's three registrations and nothing else
    const fix = await ivar.put(`/api/participants/${run}/r3`).send({ passed: 0 });
    ok(fix);
    expect(fix.body.message).toBe('1 result(s) recorded; 0 registration(s) made, 3 removed');
    expect(fix.body.participants[0]).toMatchObject({
      user_name: 'r3',
      passed: 0,
      pass_reached: false,
      met: true,
      comments: 'well done',
      holds_competence: false,
    });
    expect(await current('r3')).toEqual({});
    expect(Object.keys(await current('r2'))).toHaveLength(3);
    expect(await level(admin, unit)).toMatchObject({ fulfilled: 2, competence_level: 50 });
    const deleted = await hooks('personcompetence.deleted');
    expect(deleted.map((d) => [d.user_name, d.competence_id]).sort()).toEqual(
      [
        ['r3', course],
        ['r3', cm1],
        ['r3', cm2],
      ].sort(),
    );
    expect(deleted[0].restored_personcompetence_id).toBeNull();
    const feed2 = await admin.get(`/api/changes?Type=personcompetences&startdate=${encodeURIComponent(since)}&limit=100`);
    expect(feed2.body.changes.filter((c: any) => c.deleted).map((c: any) => c.user_name)).toEqual(['r3', 'r3', 'r3']);
    const audit = await admin.get('/api/auditlog?type=participant.result_recorded&limit=100');
    const r3 = (audit.body.auditlog as any[]).filter((e) => e.subject === 'r3');
    expect(r3).toHaveLength(2);
    const correction = r3.find((e) => e.details.fields.length === 1);
    expect(correction, JSON.stringify(r3)).toMatchObject({
      actor: 'ivar',
      details: { fields: ['passed'], score: 0, mark_reached: false, was: { score: 100, comments: 'well done' } },
    });
    expect([...correction.details.removed].sort()).toEqual([course, cm1, cm2].sort());
  });

  it("a module result below the module's pass mark takes that module's registration back; the owner records on module events; pass_mark is authored", async () => {
    const { m1, cm1 } = await ids();
    const [admin, olga] = [await bed.as('admin'), await bed.as('olga')];
    const low = await olga.put(`/api/participants/${m1}/r1`).send({ passed: 40 });
    ok(low);
    expect(low.body.participants[0]).toMatchObject({ user_name: 'r1', passed: 40, pass_reached: false });
    expect(Object.keys(await current('r1')).sort()).toEqual([COURSE, M2]);
    // the module passes at 30: the same 40 now reaches it
    const authored = await admin.put(`/api/competences/${cm1}`).send({ competence_data: { pass_mark: 30 } });
    ok(authored);
    expect(authored.body.competences[0].pass_mark).toBe(30);
    expect((await admin.put(`/api/competences/${cm1}`).send({ competence_data: { pass_mark: 101 } })).body).toMatchObject({
      errorcode: 420,
      parameter: 'competence_data[pass_mark]',
    });
    const reached = await olga.put(`/api/participants/${m1}/r1`).send({ passed: 40 });
    ok(reached);
    expect(reached.body.participants[0].pass_reached).toBe(true);
    expect((await current('r1'))[M1]).toEqual({ date: '2026-10-14', valid_until: null, passed: 40 });
  });

  it('bulk is all or nothing: the first bad row is named; unknown, duplicate and wait-listed persons too', async () => {
    const { run } = await ids();
    const ivar = await bed.as('ivar');
    const before = await bed.db().table('event_results').count('* as n').first();
    const bad = await ivar.put(`/api/participants/${run}`).send({
      results: [
        { user_name: 'r4', passed: 90 },
        { user_name: 'r2', met: 1 },
        { user_name: 'r3', passed: 150 },
        { user_name: 'r1', passed: 'x' },
      ],
    });
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420, parameter: 'results[2].passed' });
    expect((await ivar.put(`/api/participants/${run}`).send({ results: [{ user_name: 'r4', passed: 90 }, { passed: 1 }] })).body).toMatchObject({
      errorcode: 419,
      parameter: 'results[1].user_name',
    });
    expect((await ivar.put(`/api/participants/${run}`).send({ results: [{ user_name: 'r4', passed: 90, colour: 'red' }] })).body).toMatchObject({
      errorcode: 420,
      parameter: 'results[0].colour',
    });
    expect(
      (
        await ivar.put(`/api/participants/${run}`).send({
          results: [
            { user_name: 'r4', passed: 90 },
            { user_name: 'r4', met: 1 },
          ],
        })
      ).body,
    ).toMatchObject({ errorcode: 420, parameter: 'results[1].user_name' });
    expect(
      (
        await ivar.put(`/api/participants/${run}`).send({
          results: [
            { user_name: 'r4', passed: 90 },
            { user_name: 'nobody', met: 1 },
          ],
        })
      ).body,
    ).toMatchObject({ errorcode: 404, parameter: 'results[1].user_name' });
    expect((await ivar.put(`/api/participants/${run}`).send({ results: 'not json' })).body).toMatchObject({ errorcode: 420, parameter: 'results' });
    expect((await ivar.put(`/api/participants/${run}`)).body).toMatchObject({ errorcode: 419, parameter: 'results' });
    const waiting = await ivar.put(`/api/participants/${run}`).send({
      results: [
        { user_name: 'r4', passed: 90 },
        { user_name: 'rw', passed: 100 },
      ],
    });
    expect(waiting.body).toMatchObject({ errorcode: 409, parameter: 'results[1].user_name' });
    expect(waiting.body.message).toContain('rw is on the wait list');
    expect((await ivar.put(`/api/participants/${run}/rw`).send({ passed: 100 })).body).toMatchObject({ errorcode: 409, user_name: 'rw' });
    expect((await ivar.put(`/api/participants/${run}/olga`).send({ passed: 100 })).body.errorcode).toBe(409);
    expect((await ivar.put(`/api/participants/${run}/r4`)).body).toMatchObject({ errorcode: 419, parameter: 'passed' });
    // nothing of the refused requests was written: r4 still at 0
    expect(await bed.db().table('event_results').count('* as n').first()).toEqual(before);
    expect((await ivar.get(`/api/participants/${run}/r4`)).body.participants[0]).toMatchObject({ passed: 0 });
    expect(await current('r4')).toEqual({});
  });

  it('before the start 409; a manager reads but may not write (403); another tenant 404', async () => {
    const { run, future } = await ids();
    const [admin, mia] = [await bed.as('admin'), await bed.as('mia')];
    const early = await admin.put(`/api/participants/${future}/r1`).send({ met: 1 });
    expect(early.body).toMatchObject({ errorcode: 409 });
    expect(early.body.message).toContain("from the event's start on");
    ok(await mia.get(`/api/participants/${run}/r1`));
    expect((await mia.get(`/api/participants/${run}`)).body.participants.map((p: any) => p.user_name)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect((await mia.put(`/api/participants/${run}/r1`).send({ passed: 100 })).body.errorcode).toBe(403);
    expect((await mia.put(`/api/participants/${run}`).send({ results: [{ user_name: 'r1', passed: 100 }] })).body.errorcode).toBe(403);
    expect((await (await bed.as('ola')).put(`/api/participants/${run}/r1`).send({ passed: 100 })).body.errorcode).toBe(403);
    const g = client(bed.t, bed.globex.host, await loginCookie(bed.t, bed.globex.host, 'admin', GLOBEX_PASSWORDS.admin));
    expect((await g.put(`/api/participants/${run}/r1`).send({ passed: 100 })).body.errorcode).toBe(404);
    expect((await g.put(`/api/participants/${run}`).send({ results: [{ user_name: 'r1', passed: 100 }] })).body.errorcode).toBe(404);
    expect((await admin.put('/api/participants/999999/r1').send({ passed: 100 })).body.errorcode).toBe(404);
  });

  it('an Idempotency-Key replay answers the same and records nothing twice', async () => {
    const { run } = await ids();
    const olga = await bed.as('olga');
    const n = (await hooks('personevent.result_recorded')).length;
    const first = await olga.put(`/api/participants/${run}/r4`).set('Idempotency-Key', 'results-once').send({ grade: 3 });
    ok(first);
    expect(first.body.message).toBe('1 result(s) recorded');
    const again = await olga.put(`/api/participants/${run}/r4`).set('Idempotency-Key', 'results-once').send({ grade: 3 });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await hooks('personevent.result_recorded')).toHaveLength(n + 1);
  });

  it('results and pass marks round-trip through export and import (the format only grows)', async () => {
    const admin = bed.t.container.resolve(TenantAdminService);
    const doc: any = await admin.export(bed.acme.slug);
    const r1 = doc.person_events.find((pe: any) => pe.person === 'r1' && pe.event === 'res-run');
    expect(r1.passed).toBe(true);
    expect(r1.results).toEqual(
      expect.arrayContaining([
        { event: 'res-run', met: true, passed: 100, reached: true, grade: 5.5 },
        { event: 'res-run-m1', passed: 40, reached: true },
      ]),
    );
    expect(doc.competences.find((c: any) => c.ref === 'res-course').children.find((c: any) => c.ref === 'res-m1').pass_mark).toBe(30);
    const slug = `results-copy-${Date.now().toString(36)}`;
    await admin.import(doc, { slug, hosts: [`${slug}.test`] });
    const again: any = await admin.export(slug);
    expect(again.person_events).toEqual(doc.person_events);
    expect(again.competences).toEqual(doc.competences);
  });
});
