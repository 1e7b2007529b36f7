import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { CLOCK } from '../../../src/platform/time/tenant-clock';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';
import { competenceLevel } from '../../../src/catalogue/personcompetences/competence-level.query';
import { PersonDirectory } from '../../../src/people';
import { PersonCompetencesRepository } from '../../../src/catalogue/personcompetences/personcompetences.repository';
import { CompetencesRepository } from '../../../src/catalogue/competences/competences.repository';
import { CompetenceStates } from '../../../src/catalogue/personcompetences/competence-state';
import { PersonCompetenceList } from '../../../src/catalogue/personcompetences/personcompetence-list';

/*
 * The competence level is one set-based statement (competence-level.query.ts). These tests hold it
 * to a small hand-computed case covering every rule, and to the per-person rule of CompetenceStates
 * (what GET /api/personcompetences uses) for every person of the tenant.
 */
const NOW = new Date('2026-03-10T12:00:00Z');
const TODAY = '2026-03-10';
let t: TestApp;
let acme: DemoTenant;
let db: TenantDb;
let admin: Awaited<ReturnType<typeof asAcme>>;
const org: Record<string, number> = {};
const person: Record<string, number> = {};

const personLevel = (tdb: TenantDb, id: number, today: string) => competenceLevel(tdb, [id], today);
/** As the route does it: the subtree's persons from the people module, then the one statement. */
const organisationLevel = async (tdb: TenantDb, root: number, today: string) => competenceLevel(tdb, await new PersonDirectory(tdb).idsInSubtree(root), today);

async function insert(table: string, row: Record<string, unknown>): Promise<number> {
  const [{ id }] = await db.table(table).insert(row).returning('id');
  return Number(id);
}

beforeAll(async () => {
  t = await createTestApp();
  t.container.register(CLOCK, { useValue: { now: () => NOW } });
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.config = { ...doc.config, 'tenant.timezone': 'UTC' };
  });
  admin = await asAcme(t, acme.host, 'admin');
  db = tenantDb(t, acme);

  org.R = await insert('organisations', { name: 'Level root' });
  org.A = await insert('organisations', { name: 'Level A', parent_id: org.R });
  org.A1 = await insert('organisations', { name: 'Level A1', parent_id: org.A });
  org.B = await insert('organisations', { name: 'Level B (outside)' });
  const role = async (name: string) => insert('roles', { name });
  const [r1, r2, r3] = [await role('level r1'), await role('level r2'), await role('level r3')];
  const comp = async (title: string, type: string, extra: Record<string, unknown> = {}) => insert('competences', { title, type, ...extra });
  const c1 = await comp('L course', 'course');
  const c2 = await comp('L inactive course', 'course', { active: false });
  const c3 = await comp('L signature', 'signature');
  const c4 = await comp('L checklist', 'checklist');
  const i1 = await comp('L item 1', 'checklist_item', { parent_id: c4 });
  const i2 = await comp('L item 2', 'checklist_item', { parent_id: c4 });
  const c5 = await comp('L empty checklist', 'checklist');
  const c6 = await comp('L formal', 'formal');
  const c7 = await comp('L optional formal', 'formal');
  const requirement = (role_id: number, competence_id: number, mandatory: boolean) => db.table('requirements').insert({ role_id, competence_id, mandatory });
  for (const c of [c1, c2, c3, c4]) await requirement(r1, c, true);
  await requirement(r1, c6, false); // optional for r1, mandatory for r2: mandatory for who has both
  await requirement(r1, c7, false);
  for (const c of [c6, c5, c1]) await requirement(r2, c, true); // c1 twice over r1 and r2: counts once
  const mk = async (key: string, organisation_id: number, roles: number[]) => {
    person[key] = await insert('persons', { user_name: `level-${key}`, organisation_id });
    for (const role_id of roles) await db.table('person_roles').insert({ person_id: person[key], role_id });
  };
  await mk('p1', org.R, [r1, r2]);
  await mk('p2', org.A, [r1]);
  await mk('p3', org.A1, [r3]);
  await mk('p4', org.A1, []);
  await mk('p5', org.A1, [r1]);
  await mk('p6', org.B, [r1]);
  const reg = (p: string, competence_id: number, extra: Record<string, unknown> = {}) =>
    db.table('person_competences').insert({ person_id: person[p], competence_id, passed: 100, ...extra });
  // p1 requires c1 c3 c4 c5 c6 (c2 inactive, c7 optional): holds c1, c4 (items), c5 (valid until today) = 3 of 5.
  await reg('p1', c1);
  await reg('p1', c3, { signed: false });
  await reg('p1', i1, { checked: true });
  await reg('p1', i2, { checked: false, override: true });
  await reg('p1', c5, { valid_until: TODAY });
  await reg('p1', c6, { passed: 0 });
  await reg('p1', c7);
  // p2 requires c1 c3 c4: c1 expired (an older superseded row was valid), c3 signed, c4 registered as a whole = 2 of 3.
  await reg('p2', c1, { valid_until: '2026-03-09' });
  await reg('p2', c1, { valid_until: '2099-01-01', superseded_at: NOW });
  await reg('p2', c3, { signed: true, valid_until: '2099-01-01' });
  await reg('p2', c4);
  await reg('p2', i1, { checked: true });
  // p3 (a role without requirements) and p4 (no roles) require nothing.
  // p5 requires c1 c3 c4: c1 deleted, c3 signed but expired, c4 one item unchecked and its own row not passed = 0 of 3.
  await reg('p5', c1, { deleted_at: NOW });
  await reg('p5', c3, { signed: true, valid_until: '2020-01-01' });
  await reg('p5', c4, { passed: 0 });
  await reg('p5', i1, { checked: true });
  await reg('p5', i2, { checked: false });
  // p6 holds everything but is outside R.
  for (const c of [c1, c4, c6]) await reg('p6', c);
  await reg('p6', c3, { signed: true });
});
afterAll(async () => t?.close());

describe('competence level as one statement', () => {
  it('a hand-computed subtree: R = p1..p5, 11 required, 5 fulfilled, level 45; A = p2..p5, 6 and 2, level 33', async () => {
    const r = await admin.get(`/api/competencelevel?organisation_id=${org.R}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.competencelevel).toEqual([{ organisation_id: org.R, persons: 5, required: 11, fulfilled: 5, missing: 6, competence_level: 45 }]);
    const a = await admin.get(`/api/competencelevel?organisation_id=${org.A}`);
    expect(a.body.competencelevel).toEqual([{ organisation_id: org.A, persons: 4, required: 6, fulfilled: 2, missing: 4, competence_level: 33 }]);
    expect(await organisationLevel(db, org.A1, TODAY)).toEqual({ persons: 3, required: 3, fulfilled: 0 });
  });

  it('per person: p1 3 of 5, p2 2 of 3, p3 and p4 nothing required (100), p5 0 of 3', async () => {
    const level = async (p: string) => (await admin.get(`/api/competencelevel?user_name=level-${p}`)).body.competencelevel[0];
    expect(await level('p1')).toEqual({ user_name: 'level-p1', required: 5, fulfilled: 3, missing: 2, competence_level: 60 });
    expect(await level('p2')).toMatchObject({ required: 3, fulfilled: 2, competence_level: 66 });
    expect(await level('p3')).toMatchObject({ required: 0, fulfilled: 0, competence_level: 100 });
    expect(await level('p4')).toMatchObject({ required: 0, fulfilled: 0, competence_level: 100 });
    expect(await level('p5')).toMatchObject({ required: 3, fulfilled: 0, competence_level: 0 });
  });

  it('a registration valid until today is held today and missing tomorrow', async () => {
    expect(await personLevel(db, person.p1, TODAY)).toEqual({ persons: 1, required: 5, fulfilled: 3 });
    expect(await personLevel(db, person.p1, '2026-03-11')).toEqual({ persons: 1, required: 5, fulfilled: 2 });
  });

  it('agrees with the per-person rule of CompetenceStates for every person of the tenant, today and in a year', async () => {
    const ids = (await db.table('persons').select('id').orderBy('id')).map((p: { id: number }) => p.id);
    expect(ids.length).toBeGreaterThan(10);
    for (const today of [TODAY, '2027-03-10']) {
      let sum = { required: 0, fulfilled: 0 };
      for (const id of ids) {
        const expected = await perPerson(db, id, today);
        expect({ id, ...(await personLevel(db, id, today)) }).toEqual({ id, persons: 1, ...expected });
        sum = { required: sum.required + expected.required, fulfilled: sum.fulfilled + expected.fulfilled };
      }
      const roots = (await db.table('organisations').whereNull('parent_id').select('id')).map((o: { id: number }) => o.id);
      const total = { persons: 0, required: 0, fulfilled: 0 };
      for (const root of roots) {
        const c = await organisationLevel(db, root, today);
        total.persons += c.persons;
        total.required += c.required;
        total.fulfilled += c.fulfilled;
      }
      const homeless = Number((await db.table('persons').whereNull('organisation_id').count({ n: '*' }))[0].n);
      expect(total.persons + homeless).toBe(ids.length);
      if (homeless === 0) expect(total).toEqual({ persons: ids.length, ...sum });
    }
  });
});

/** The former per-person computation: required from the roles, held per competence by CompetenceStates. */
async function perPerson(tdb: TenantDb, personId: number, today: string) {
  const repo = new PersonCompetencesRepository(tdb);
  const states = new CompetenceStates(new CompetencesRepository(tdb), repo, { today: () => today });
  const required = (await new PersonCompetenceList(tdb, repo, states).required(await repo.roleIdsOf(personId))).filter((r) => r.mandatory);
  const held = await states.evaluate(
    personId,
    required.map((r) => r.competenceId),
  );
  return { required: required.length, fulfilled: held.filter((s) => s.held).length };
}
