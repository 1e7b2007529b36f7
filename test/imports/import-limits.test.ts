import { describe, expect, it } from 'vitest';
import { asAcme } from '../support/login';
import { acmeIds, csv, importAndWait, tenantDb, upload, useImportBed, waitForImport } from './import-support';

// small limits, so that a too large file is small
const bed = useImportBed({ IMPORT_MAX_ROWS: '20', IMPORT_MAX_BYTES: '4096', IMPORT_BATCH_ROWS: '7' });

const persons = (n: number, organisationId: number, roleId: number) =>
  csv([['user_name', 'lastname', 'organisation_id', 'role_ids'], ...Array.from({ length: n }, (_, i) => [`lim${i}`, `Limit ${i}`, organisationId, roleId])]);

describe('import limits and webhooks', () => {
  it('more data rows than IMPORT_MAX_ROWS: 413, for a dry run too, and nothing is queued', async () => {
    const ids = await acmeIds(bed);
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const file = persons(21, ids.organisations['Operations'], ids.roles['Welder']);
    const res = await upload(admin, 'persons', file);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ valid: false, errorcode: 413, message: 'too many rows: an import takes at most 20 data rows' });
    expect((await upload(admin, 'persons', file, { dryRun: true })).status).toBe(413);
    expect(
      await tenantDb(bed.t, bed.acme)
        .table('imports')
        .count({ n: '*' })
        .then((r: any) => Number(r[0].n)),
    ).toBe(0);
  });

  it('a file larger than IMPORT_MAX_BYTES: 413', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const res = await upload(admin, 'persons', `user_name,notice\nbig,${'x'.repeat(5000)}\n`);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ errorcode: 413, message: 'file too large: an import takes at most 4096 bytes' });
  });

  it('at the limit it imports, in batches, and writes the webhook events the API would (person.created)', async () => {
    const ids = await acmeIds(bed);
    const db = tenantDb(bed.t, bed.acme);
    await db
      .table('webhook_endpoints')
      .insert({ url: 'https://hooks.example/in', events: ['person.created', 'person.updated'], secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' });
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const { view, seen } = await importAndWait(admin, 'persons', persons(20, ids.organisations['Operations'], ids.roles['Welder']));
    expect(view).toMatchObject({ state: 'finished', rows_total: 20, rows_done: 20, created: 20, failed: 0 });
    for (const n of seen) expect([0, 7, 14, 20]).toContain(n);
    const events = await db.table('webhook_events').where({ type: 'person.created' }).select('body');
    expect(events).toHaveLength(20);
    expect(events.map((e: any) => JSON.parse(e.body).data.user_name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `lim${i}`).sort());
  });
});

describe('deactivate_missing', () => {
  it('deactivates every active person the file does not name (failed rows count as named; never the caller), as PUT .../deactivate does', async () => {
    const admin = await asAcme(bed.t, bed.acme.host, 'admin');
    const db = tenantDb(bed.t, bed.acme);
    const active = async () => (await db.table('persons').whereNull('deactivated_at').pluck('user_name')).sort();
    const before = await active();
    expect(before).toEqual(expect.arrayContaining(['admin', 'kari', 'ola', 'nils', 'siri']));
    // ola by user name, nils's row fails (bad e-mail) but names him, admin is the caller
    const file = csv([
      ['user_name', 'email'],
      ['ola', 'ola@acme.example'],
      ['nils', 'not-an-address'],
    ]);
    const wrongType = await upload(admin, 'organisations', 'extern_organisation_id,name\nX,Y\n', { extra: '&deactivate_missing=1' });
    expect(wrongType.body).toMatchObject({ errorcode: 420, message: 'malformed parameter deactivate_missing: applies to persons imports only' });
    const dry = await upload(admin, 'persons', file, { dryRun: true, extra: '&deactivate_missing=1' });
    expect(dry.body.imports[0]).toMatchObject({ deactivate_missing: true, unchanged: 1, failed: 1, deactivated: before.length - 3 });
    expect(await active()).toEqual(before);
    const res = await upload(admin, 'persons', file, { extra: '&deactivate_missing=1' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const { view } = await waitForImport(admin, res.body.imports[0].import_id);
    expect(view).toMatchObject({ state: 'finished', deactivate_missing: true, unchanged: 1, failed: 1, deactivated: before.length - 3 });
    expect(await active()).toEqual(['admin', 'nils', 'ola']);
    const audit = await db.table('audit_log').where({ type: 'person.deactivated', subject: 'kari' }).first('actor', 'details');
    expect(audit).toMatchObject({ actor: 'admin', details: expect.objectContaining({ via: 'import' }) });
  });
});
