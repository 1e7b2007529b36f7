import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, importDemoTenant, type TestApp, type DemoTenant } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { idsByRef } from '../../people/persons/demo-refs';
import { setConfig, tenantDb } from '../../courses/events/events-support';
import { CLOCK } from '../../../src/platform/time/tenant-clock';

// 12:00 UTC on 10 March is already 02:00 on 11 March in Kiritimati (UTC+14).
const NOW = new Date('2026-03-10T12:00:00Z');
let t: TestApp;
let acme: DemoTenant;
type Client = Awaited<ReturnType<typeof asAcme>>;
let admin: Client;
let comps: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  t.container.register(CLOCK, { useValue: { now: () => NOW } });
  acme = await importDemoTenant(t, 'acme', (doc) => {
    doc.config = { ...doc.config, 'tenant.timezone': 'Pacific/Kiritimati' };
  });
  admin = await asAcme(t, acme.host, 'admin');
  comps = await idsByRef(t, acme, 'competences');
});
afterAll(async () => t?.close());

const useZone = (zone: string) => setConfig(t, acme, 'tenant.timezone', zone);

describe('config item tenant.timezone', () => {
  it('takes IANA names and refuses others with 420', async () => {
    const bad = await admin.put('/api/configitems/tenant.timezone').send({ value: 'Mars/Olympus_Mons' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ valid: false, errorcode: 420 });
    expect((await admin.get('/api/configitems/tenant.timezone')).body.configitems[0].value).toBe('Pacific/Kiritimati');
  });
});

describe("today is the tenant's day", () => {
  it('expires a registration valid until yesterday in the tenant, though UTC is still on that day', async () => {
    const id = comps['welding-cert'];
    const put = await admin.put(`/api/personcompetences/${id}`).send({ user_name: 'ola', date: '2026-01-01', valid_until: '2026-03-10' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const state = async () => (await admin.get(`/api/personcompetences/${id}?user_name=ola`)).body.personcompetences[0];
    const holders = async () => (await admin.get(`/api/persons?has_competence_ids=${id}&limit=100`)).body.persons.map((p: any) => p.user_name);
    expect(await state()).toMatchObject({ state: 'missing', reason: 'expired' });
    expect(await holders()).not.toContain('ola');
    await useZone('UTC');
    try {
      expect(await state()).toMatchObject({ state: 'passed' });
      expect(await holders()).toContain('ola');
    } finally {
      await useZone('Pacific/Kiritimati');
    }
  });

  it("defaults a registration's date to the tenant's today, valid_until to date + valid_months", async () => {
    const res = await admin.put(`/api/personcompetences/${comps['hse-basic']}`).send({ user_name: 'nils' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const db = tenantDb(t, acme);
    const row = await db
      .table('person_competences')
      .where({ competence_id: comps['hse-basic'] })
      .whereNull('superseded_at')
      .whereNull('deleted_at')
      .whereIn('person_id', db.table('persons').where('user_name', 'nils').select('id'))
      .select(db.raw("to_char(date, 'YYYY-MM-DD') as date, to_char(valid_until, 'YYYY-MM-DD') as valid_until"))
      .first();
    expect(row).toEqual({ date: '2026-03-11', valid_until: '2028-03-11' });
  });

  it("refuses a birthdate after the tenant's today, not after UTC's", async () => {
    expect((await admin.put('/api/persons/nils').send({ person_data: { birthdate: '2026-03-11' } })).status).toBe(200);
    const future = await admin.put('/api/persons/nils').send({ person_data: { birthdate: '2026-03-12' } });
    expect(future.body).toMatchObject({ valid: false, errorcode: 420 });
    expect(future.body.message).toContain('person_data[birthdate]');
  });
});

describe('date bounds in the tenant zone', () => {
  let title: string;
  beforeAll(async () => {
    // 11:00 UTC on 10 March = 01:00 on 11 March in Kiritimati, an hour before "now"
    title = 'Kiritimati morning briefing';
    const db = tenantDb(t, acme);
    await db.table('events').insert({ competence_id: comps['leadership-101'], title, starts_at: '2026-03-10T11:00:00Z', ends_at: '2026-03-10T13:00:00Z' });
    await db.table('competences').where('id', comps['welding-skill']).update({ updated_at: '2026-03-10T11:00:00Z' });
  });
  const titles = async (q: string) => (await admin.get(`/api/events?${q}&limit=100`)).body.events.map((e: any) => e.title);

  it("event modes compare with the clock, date-only startdate is the tenant's midnight", async () => {
    expect(await titles('mode=notfinished')).toContain(title);
    expect(await titles('mode=future')).not.toContain(title);
    expect(await titles('mode=finished')).not.toContain(title);
    expect(await titles('startdate=2026-03-11&enddate=2026-03-12')).toContain(title);
    await useZone('UTC');
    try {
      expect(await titles('startdate=2026-03-11&enddate=2026-03-12')).not.toContain(title);
      expect(await titles('startdate=2026-03-10&enddate=2026-03-11')).toContain(title);
    } finally {
      await useZone('Pacific/Kiritimati');
    }
  });

  it('changes-feed date-only bounds are days of the tenant', async () => {
    const ids = async (q: string) => (await admin.get(`/api/changes?Type=competences&${q}&limit=100`)).body.changes.map((c: any) => c.competence_id);
    expect(await ids('startdate=2026-03-11&enddate=2026-03-11')).toContain(comps['welding-skill']);
    expect(await ids('startdate=2026-03-09&enddate=2026-03-10')).not.toContain(comps['welding-skill']);
    await useZone('Pacific/Pago_Pago');
    try {
      // 11:00 UTC is 00:00 on 10 March in Pago Pago (UTC-11)
      expect(await ids('startdate=2026-03-10&enddate=2026-03-10')).toContain(comps['welding-skill']);
      expect(await ids('startdate=2026-03-11&enddate=2026-03-11')).not.toContain(comps['welding-skill']);
    } finally {
      await useZone('Pacific/Kiritimati');
    }
  });
});
