import { afterAll, beforeAll } from 'vitest';
import type request from 'supertest';
import { createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { asAcme } from '../../support/login';
import { tenantDb } from '../../courses/events/events-support';
import { CLOCK, addDays, todayIn } from '../../../src/platform/time/tenant-clock';
import type { TenantDb } from '../../../src/platform/tenant-scope/tenant-db';

/** Far west of UTC: the tenant's day is often not the UTC day, so "today" must be the tenant's. */
export const ZONE = 'Pacific/Pago_Pago';

export interface ReportsBed {
  t: TestApp;
  acme: DemoTenant;
  db: TenantDb;
  admin: Awaited<ReturnType<typeof asAcme>>;
  kari: Awaited<ReturnType<typeof asAcme>>;
  /** The tenant's today and the instant the app's clock shows (tests move it to forecast). */
  today: string;
  clock: { now: Date };
  org: Record<string, number>;
  competence: Record<string, number>;
}

/**
 * The demo tenant acme with registrations of every status around today (tenant's zone): expiring
 * within 60 days, expiring between 60 and 90 days (expired in the forecast), expired, not passed,
 * unsigned, a checklist held by its items; nils's names start like formulas.
 */
export function useReportsTenant(): ReportsBed {
  const bed = { clock: { now: new Date() } } as ReportsBed;
  beforeAll(async () => {
    bed.t = await createTestApp();
    bed.t.container.register(CLOCK, { useValue: { now: () => bed.clock.now } });
    bed.acme = await importDemoTenant(bed.t, 'acme', (doc) => {
      doc.config = { ...doc.config, 'tenant.timezone': ZONE };
    });
    bed.db = tenantDb(bed.t, bed.acme);
    bed.today = todayIn(ZONE, bed.clock.now);
    const db = bed.db;
    bed.org = Object.fromEntries((await db.table('organisations').select('id', 'name')).map((o: any) => [o.name, o.id]));
    bed.competence = Object.fromEntries((await db.table('competences').select('id', 'title')).map((c: any) => [c.title, c.id]));
    const person = Object.fromEntries((await db.table('persons').select('id', 'user_name')).map((p: any) => [p.user_name, p.id]));
    const T = bed.today;
    const reg = (who: string, title: string, extra: Record<string, unknown> = {}) =>
      db.table('person_competences').insert({ person_id: person[who], competence_id: bed.competence[title], passed: 100, date: addDays(T, -300), ...extra });
    await reg('siri', 'HSE basic course', { valid_until: addDays(T, 30) });
    await reg('siri', 'Daily walk-around check', { checked: true });
    await reg('siri', 'Supervised driving, 2 hours', { checked: true, valid_until: addDays(T, 100) });
    await reg('siri', 'Welding certificate (EN ISO 9606)', { passed: 0 });
    await reg('per', 'Code of conduct signed', { signed: true });
    await reg('expired', 'Fire safety e-learning', { valid_until: T });
    await reg('expired', 'Code of conduct signed', { signed: false });
    await reg('admin', 'Fire safety e-learning', { valid_until: addDays(T, 75) });
    await reg('kari', 'Leadership 101', { valid_until: addDays(T, -1) });
    await reg('nils', 'HSE basic course', { valid_until: addDays(T, 89) });
    await reg('nils', 'TIG welding', { valid_until: addDays(T, 10) });
    await db.table('persons').where({ id: person.nils }).update({ firstname: '=HYPERLINK("http://x.example","open")', lastname: '+Larsen' });
    bed.admin = await asAcme(bed.t, bed.acme.host, 'admin');
    bed.kari = await asAcme(bed.t, bed.acme.host, 'kari');
  });
  afterAll(async () => bed.t?.close());
  return bed;
}

/** A supertest request whose body is the raw bytes (CSV, XLSX). */
export function bytes(r: request.Test): request.Test {
  return r.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}
