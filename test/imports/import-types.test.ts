import { describe, expect, it } from 'vitest';
import { asAcme } from '../support/login';
import { acmeIds, csv, importAndWait, tenantDb, upload, useImportBed } from './import-support';

const bed = useImportBed();

describe('organisations, managers and role assignments imports', () => {
  it('organisations: created under a parent of an earlier row, matched by external id the second time, moved; a cycle is a 420', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const file = csv([
      ['extern_organisation_id', 'name', 'parent_extern_organisation_id', 'email'],
      ['ORG-1', 'Imported root child', '1000', 'root@example.com'],
      ['ORG-2', 'Imported grandchild', 'ORG-1', ''],
      ['ORG-3', '', 'ORG-1', ''],
      ['ORG-4', 'Bad mail', 'ORG-1', 'nope'],
    ]);
    const dry = await upload(admin, 'organisations', file, { dryRun: true });
    expect(dry.body.imports[0]).toMatchObject({ created: 2, failed: 2 });
    expect(dry.body.imports[0].failed_rows).toEqual([
      { row: 4, column: 'name', errorcode: 419, message: 'missing parameter: organisation_data[name]' },
      { row: 5, column: 'email', errorcode: 420, message: 'malformed parameter organisation_data[email]: must be an e-mail address like name@example.com' },
    ]);
    const { view } = await importAndWait(admin, 'organisations', file);
    expect(view).toMatchObject({ state: 'finished', created: 2, updated: 0, unchanged: 0, failed: 2 });
    const db = tenantDb(bed.t, bed.acme);
    const org1 = await db.table('organisations').where({ extern_organisation_id: 'ORG-1' }).first();
    const org2 = await db.table('organisations').where({ extern_organisation_id: 'ORG-2' }).first();
    const root = await db.table('organisations').where({ extern_organisation_id: '1000' }).first();
    expect(org1).toMatchObject({ name: 'Imported root child', parent_id: root.id, email: 'root@example.com' });
    expect(org2).toMatchObject({ name: 'Imported grandchild', parent_id: org1.id });
    expect((await importAndWait(admin, 'organisations', file)).view).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 2 });
    // a rename and a move, by organisation_id; a move below itself is refused
    const moves = csv([
      ['organisation_id', 'name', 'parent_extern_organisation_id'],
      [org2.id, 'Renamed grandchild', '1200'],
      [org1.id, 'Imported root child', 'ORG-2'],
    ]);
    const moved = await importAndWait(admin, 'organisations', moves);
    expect(moved.view).toMatchObject({ updated: 1, failed: 1 });
    expect(moved.view.failed_rows).toEqual([
      {
        row: 3,
        column: 'parent_extern_organisation_id',
        errorcode: 420,
        message: `malformed parameter organisation_data[parent_id]: organisation ${org2.id} lies below organisation ${org1.id}; moving it there would make a cycle`,
      },
    ]);
    const hr = await db.table('organisations').where({ extern_organisation_id: '1200' }).first('id');
    expect(await db.table('organisations').where({ id: org2.id }).first('name', 'parent_id')).toEqual({ name: 'Renamed grandchild', parent_id: hr.id });
  });

  it('managers: the person becomes a manager of the organisation (audited), and may list its persons at once; the second time unchanged', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const ola = await asAcme(bed.t, bed.acme.host, 'ola');
    expect((await ola.get('/api/persons?organisation_id=1')).status).toBe(403);
    const ids = await acmeIds(bed);
    const file = csv([
      ['user_name', 'extern_organisation_id', 'organisation_id'],
      ['ola', '1200', ''],
      ['nobody', '1200', ''],
      ['ola', '', '999999'],
    ]);
    const { view } = await importAndWait(admin, 'managers', file);
    expect(view).toMatchObject({ created: 1, unchanged: 0, failed: 2 });
    expect(view.failed_rows).toEqual([
      { row: 3, column: 'user_name', errorcode: 404, message: 'person "nobody" not found' },
      { row: 4, column: 'organisation_id', errorcode: 404, message: 'organisation 999999 not found' },
    ]);
    const list = await ola.get(`/api/persons?organisation_id=${ids.organisations['Human Resources']}`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.persons.map((p: any) => p.user_name)).toEqual(expect.arrayContaining(['per']));
    const db = tenantDb(bed.t, bed.acme);
    expect(await db.table('audit_log').where({ type: 'manager.added', subject: 'ola' }).first()).toBeTruthy();
    expect((await importAndWait(admin, 'managers', file)).view).toMatchObject({ created: 0, unchanged: 1, failed: 2 });
  });

  it('role_assignments: the role is added as PUT /api/persons adds it (roles.changed), unknown roles are 404s; the second time unchanged', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const ids = await acmeIds(bed);
    const file = csv([
      ['user_name', 'role_id'],
      ['per', ids.roles['Welder']],
      ['per', ids.roles['Office worker']],
      ['per', '999999'],
      ['per', 'x'],
    ]);
    const { view } = await importAndWait(admin, 'role_assignments', file);
    expect(view).toMatchObject({ created: 1, unchanged: 1, failed: 2 });
    expect(view.failed_rows).toEqual([
      { row: 4, column: 'role_id', errorcode: 404, message: 'role 999999 not found' },
      { row: 5, column: 'role_id', errorcode: 420, message: expect.stringMatching(/^malformed parameter role_id: /) },
    ]);
    const db = tenantDb(bed.t, bed.acme);
    const per = await db.table('persons').where({ user_name: 'per' }).first('id');
    expect((await db.table('person_roles').where({ person_id: per.id }).pluck('role_id')).sort()).toEqual(
      [ids.roles['Welder'], ids.roles['Office worker']].sort(),
    );
    expect(await db.table('audit_log').where({ type: 'roles.changed', subject: 'per' }).first()).toBeTruthy();
    expect((await importAndWait(admin, 'role_assignments', file)).view).toMatchObject({ created: 0, unchanged: 2, failed: 2 });
  });
});

describe('registrations import', () => {
  it("stores registrations by the catalogue's rules, matched by (person, competence, date): a second run is all unchanged, a changed value an update", async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const ids = await acmeIds(bed);
    const hse = ids.competences['HSE basic course'];
    const skill = ids.competences['TIG welding'];
    const survey = ids.competences['Onboarding survey'];
    const rows: (string | number)[][] = [['user_name', 'competence_id', 'date', 'passed', 'valid_until', 'comments', 'grade']];
    for (const who of ['ola', 'siri', 'nils', 'per']) {
      rows.push([who, hse, '2025-01-10', 100, '', 'first', '']);
      rows.push([who, hse, '2026-01-10', 100, '', 'renewed', 5]);
      rows.push([who, skill, '2025-06-01', 70, '', '', '']);
    }
    rows.push(['ola', survey, '2025-01-01', 100, '', '', '']);
    rows.push(['ola', hse, '2025-13-01', 100, '', '', '']);
    rows.push(['ola', skill, '2025-06-01', 70, '', '', '']);
    rows.push(['ola', skill, '2025-07-01', 70, '', '', 3]);
    const file = csv(rows);
    const dry = await upload(admin, 'registrations', file, { dryRun: true });
    expect(dry.body.imports[0]).toMatchObject({ rows_total: 16, created: 12, failed: 4 });
    expect(dry.body.imports[0].failed_rows).toEqual([
      { row: 14, column: 'competence_id', errorcode: 409, message: 'surveys are answered with POST /api/surveyanswer, not registered' },
      { row: 15, column: 'date', errorcode: 420, message: expect.stringMatching(/^malformed parameter date: /) },
      {
        row: 16,
        column: 'date',
        errorcode: 409,
        message: 'the registration of competence ' + skill + ' for "ola" on 2025-06-01 is already in row 4 of this file',
      },
      { row: 17, column: 'grade', errorcode: 420, message: 'malformed parameter grade: does not apply to a competence of type skill' },
    ]);
    const { view } = await importAndWait(admin, 'registrations', file);
    expect(view).toMatchObject({ state: 'finished', created: 12, updated: 0, unchanged: 0, failed: 4 });
    const db = tenantDb(bed.t, bed.acme);
    const ola = await db.table('persons').where({ user_name: 'ola' }).first('id');
    const current = await db.raw(
      `select date::text as date, valid_until::text as valid_until, comments, grade from ?? where person_id = ? and competence_id = ? and superseded_at is null and deleted_at is null`,
      [db.ref('person_competences'), ola.id, hse],
    );
    expect(current.rows).toEqual([{ date: '2026-01-10', valid_until: '2028-01-10', comments: 'renewed', grade: 5 }]);
    const again = await importAndWait(admin, 'registrations', file);
    expect(again.view).toMatchObject({ created: 0, updated: 0, unchanged: 12, failed: 4 });
    // a different passed on a known (person, competence, date) is an update: a new registration
    const change = csv([
      ['user_name', 'competence_id', 'date', 'passed'],
      ['ola', skill, '2025-06-01', 90],
    ]);
    expect((await importAndWait(admin, 'registrations', change)).view).toMatchObject({ updated: 1 });
    const pc = await admin.get(`/api/personcompetences?user_name=ola`);
    expect(pc.status).toBe(200);
  });
});
