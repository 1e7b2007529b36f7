import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/time/tenant-clock';
import { useReportsTenant } from './reports-support';

const bed = useReportsTenant();
const DAY = 24 * 3600 * 1000;

type Cell = { competence_id: number; title: string; mandatory: boolean; status: string; date: string | null; valid_until: string | null };
type Row = { user_name: string; compliant: boolean; organisation_id: number; competences: Cell[] };

async function matrix(query: string): Promise<Row[]> {
  const r = await bed.admin.get(`/api/reports/competencematrix?${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.competencematrix;
}

/**
 * Every cell against GET /api/personcompetences of its person, asked with the app's clock on `day`:
 * the passed list (requirement as asked) is exactly the passed and expiring cells, the missing list
 * exactly the expired (reason expired) and missing ones, with the same dates.
 */
async function crossCheck(rows: Row[], day: string, requirement: 'mandatory' | 'optional', limit: number) {
  let cells = 0;
  for (const row of rows) {
    const mine = row.competences.filter((c) => c.mandatory === (requirement === 'mandatory'));
    const list = async (state: string) => {
      const r = await bed.admin.get(`/api/personcompetences?user_name=${row.user_name}&state=${state}&requirement=${requirement}&limit=${limit}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.personcompetences as { competence_id: number; reason: string | null; date: string | null; valid_until: string | null }[];
    };
    const passed = await list('passed');
    const missing = await list('missing');
    const held = mine.filter((c) => c.status === 'passed' || c.status === 'expiring');
    const notHeld = mine.filter((c) => c.status === 'expired' || c.status === 'missing');
    expect(held.map((c) => c.competence_id).sort(), `${row.user_name} held on ${day}`).toEqual(passed.map((p) => p.competence_id).sort());
    expect(notHeld.map((c) => c.competence_id).sort(), `${row.user_name} missing on ${day}`).toEqual(missing.map((p) => p.competence_id).sort());
    for (const c of mine) {
      const p = [...passed, ...missing].find((x) => x.competence_id === c.competence_id)!;
      expect({ date: c.date, valid_until: c.valid_until }).toEqual({ date: p.date, valid_until: p.valid_until });
      if (c.status === 'expired' || c.status === 'missing') expect(c.status === 'expired', `${row.user_name} ${c.title}`).toBe(p.reason === 'expired');
      const soon = c.valid_until !== null && c.valid_until >= day && c.valid_until <= addDays(day, 60);
      if (c.status === 'passed' || c.status === 'expiring') expect(c.status === 'expiring', `${row.user_name} ${c.title}`).toBe(soon);
      cells += 1;
    }
  }
  return cells;
}

describe('GET /api/reports/competencematrix', () => {
  it('over the demo organisation, cell by cell as GET /api/personcompetences says today (tenant zone) and forecast 90 days ahead', async () => {
    const root = bed.org['Acme Industries'];
    const today = await matrix(`organisation_id=${root}&recursive=1&limit=100`);
    expect(today.map((r) => r.user_name).sort()).toEqual(['admin', 'expired', 'kari', 'nils', 'ola', 'per', 'siri']);
    const statuses = (rows: Row[]) => new Set(rows.flatMap((r) => r.competences.map((c) => c.status)));
    expect([...statuses(today)].sort()).toEqual(['expired', 'expiring', 'missing', 'passed']);
    expect(await crossCheck(today, bed.today, 'mandatory', 100)).toBeGreaterThan(12);
    expect(today.find((r) => r.user_name === 'siri')!.competences.find((c) => c.title === 'HSE basic course')!.status).toBe('expiring');

    const ahead = addDays(bed.today, 90);
    const forecast = await matrix(`organisation_id=${root}&recursive=1&limit=100&date=${ahead}`);
    expect(forecast.find((r) => r.user_name === 'siri')!.competences.find((c) => c.title === 'HSE basic course')!.status).toBe('expired');
    expect(forecast.find((r) => r.user_name === 'admin')!.competences.find((c) => c.title === 'Fire safety e-learning')!.status).toBe('expired');
    const real = bed.clock.now;
    bed.clock.now = new Date(real.getTime() + 90 * DAY);
    try {
      // another limit: GET /api/personcompetences answers are cached until the end of the (real) day
      expect(await crossCheck(forecast, ahead, 'mandatory', 99)).toBeGreaterThan(12);
    } finally {
      bed.clock.now = real;
    }
  });

  it('include_optional=1 adds the optional requirements as cells (mandatory false), which leave compliant alone', async () => {
    const rows = await matrix(`organisation_id=${bed.org['Operations']}&recursive=1&include_optional=1&limit=100`);
    const nils = rows.find((r) => r.user_name === 'nils')!;
    expect(nils.competences.find((c) => c.title === 'TIG welding')).toMatchObject({ mandatory: false, status: 'expiring' });
    await crossCheck(rows, bed.today, 'optional', 98);
    const plain = await matrix(`organisation_id=${bed.org['Operations']}&recursive=1&limit=100`);
    expect(plain.map((r) => r.compliant)).toEqual(rows.map((r) => r.compliant));
  });

  it('recursive, role_ids, competence_ids, user_names and paging narrow the rows; sorted by last name', async () => {
    const ops = bed.org['Operations'];
    expect((await matrix(`organisation_id=${ops}`)).map((r) => r.user_name)).toEqual(['kari']);
    const all = await matrix(`organisation_id=${ops}&recursive=1`);
    expect(all.map((r) => r.user_name)).toEqual(
      ['siri', 'ola', 'nils', 'kari'].sort((a, b) => all.findIndex((r) => r.user_name === a) - all.findIndex((r) => r.user_name === b)),
    );
    const page = await matrix(`organisation_id=${ops}&recursive=1&limit=2&offset=1`);
    expect(page.map((r) => r.user_name)).toEqual(all.slice(1, 3).map((r) => r.user_name));
    const welders = await matrix(`organisation_id=${bed.org['Acme Industries']}&recursive=1&role_ids=${await roleId('Safety representative')}`);
    expect(welders.map((r) => [r.user_name, r.competences.map((c) => c.title)])).toEqual([['siri', ['HSE basic course']]]);
    const hse = await matrix(`organisation_id=${bed.org['Acme Industries']}&recursive=1&competence_ids=${bed.competence['Code of conduct signed']}`);
    expect(hse.map((r) => r.user_name).sort()).toEqual(['admin', 'expired', 'per']);
    expect(hse.every((r) => r.competences.length === 1)).toBe(true);
    const named = await matrix('user_names=ola,per');
    expect(named.map((r) => r.user_name).sort()).toEqual(['ola', 'per']);
  });

  it('answers 419 without organisation_id or user_names, 404 for unknown ones, 420 for a bad date', async () => {
    expect((await bed.admin.get('/api/reports/competencematrix')).body).toMatchObject({ errorcode: 419 });
    expect((await bed.admin.get('/api/reports/competencematrix?organisation_id=999999')).status).toBe(404);
    expect((await bed.admin.get('/api/reports/competencematrix?user_names=nobody-here')).status).toBe(404);
    expect((await bed.admin.get(`/api/reports/competencematrix?organisation_id=${bed.org['Operations']}&role_ids=999999`)).status).toBe(404);
    const bad = await bed.admin.get(`/api/reports/competencematrix?organisation_id=${bed.org['Operations']}&date=2026-13-45`);
    expect(bad.body).toMatchObject({ errorcode: 420 });
    expect(bad.body.message).toContain('date');
  });

  it('a manager sees the organisations they manage, 403 elsewhere; a person who manages nothing 403', async () => {
    const ops = await bed.kari.get(`/api/reports/competencematrix?organisation_id=${bed.org['Operations']}&recursive=1`);
    expect(ops.status).toBe(200);
    expect(ops.body.competencematrix.length).toBe(4);
    for (const url of [
      `/api/reports/competencematrix?organisation_id=${bed.org['Human Resources']}`,
      `/api/reports/competencematrix?organisation_id=${bed.org['Acme Industries']}&recursive=1`,
      '/api/reports/competencematrix?user_names=per',
      `/api/reports/compliance?organisation_id=${bed.org['Human Resources']}`,
    ]) {
      const r = await bed.kari.get(url);
      expect(r.status, url).toBe(403);
    }
    expect((await bed.kari.get(`/api/reports/compliance?organisation_id=${bed.org['Operations North']}`)).status).toBe(200);
  });
});

describe('GET /api/reports/compliance', () => {
  it('counts per organisation equal the sums of the matrix of that organisation (today and forecast)', async () => {
    for (const date of [bed.today, addDays(bed.today, 90)]) {
      const r = await bed.admin.get(`/api/reports/compliance?organisation_id=${bed.org['Acme Industries']}&date=${date}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const rows = r.body.compliance;
      expect(rows.length).toBe(5);
      for (const o of rows) {
        const m = await matrix(`organisation_id=${o.organisation_id}&recursive=1&limit=100&date=${date}`);
        const cells = m.flatMap((p) => p.competences);
        const count = (list: Cell[], s: string) => list.filter((c) => c.status === s).length;
        expect(o).toMatchObject({
          date,
          persons: m.length,
          compliant_persons: m.filter((p) => p.compliant).length,
          required: cells.length,
          passed: count(cells, 'passed'),
          expiring: count(cells, 'expiring'),
          expired: count(cells, 'expired'),
          missing: count(cells, 'missing'),
        });
        const ids = [...new Set(cells.map((c) => c.competence_id))];
        expect(o.by_competence.map((c: any) => c.competence_id).sort()).toEqual(ids.sort());
        for (const c of o.by_competence) {
          const mine = cells.filter((x) => x.competence_id === c.competence_id);
          expect(c).toMatchObject({
            required: mine.length,
            passed: count(mine, 'passed'),
            expiring: count(mine, 'expiring'),
            expired: count(mine, 'expired'),
            missing: count(mine, 'missing'),
          });
        }
      }
      const root = rows.find((o: any) => o.organisation_id === bed.org['Acme Industries']);
      expect(root.percent_compliant).toBe(Math.floor((100 * (root.passed + root.expiring)) / root.required));
    }
  });

  it('recursive=0: one row, the members of the organisation itself', async () => {
    const r = await bed.admin.get(`/api/reports/compliance?organisation_id=${bed.org['Human Resources']}&recursive=0`);
    expect(r.body.compliance).toHaveLength(1);
    expect(r.body.compliance[0]).toMatchObject({ persons: 2, parent_id: null });
  });
});

async function roleId(name: string): Promise<number> {
  return (await bed.db.table('roles').where({ name }).first()).id;
}
