import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApp, importDemoTenant, client, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { startSmtpSink, startTestWorkers } from '../../messaging/messages/delivery-peers';
import { tenantDb } from '../events/events-support';

/** Passwords of the persons the authoring tests add to the acme document. */
export const EXTRA_PASSWORDS: Record<string, string> = { mona: 'Mona-Manager-Pass-1', tor: 'Tor-Trainer-Pass-1' };

export type Api = ReturnType<typeof client>;

export interface CalendarBed {
  t: TestApp;
  acme: DemoTenant;
  smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  /** A client logged in as a demo user or one of EXTRA_PASSWORDS. */
  as(userName: string): Promise<Api>;
  /** An id by a row's column values (for arranging and checking what the API of another branch writes). */
  idOf(table: string, where: Record<string, unknown>): Promise<number>;
}

/**
 * The app with an SMTP sink and workers for one acme tenant whose document gains: a course
 * "Calendar course" (owned by kari) with two modules, mona (manager of Human Resources, owns and
 * instructs nothing) and tor (a trainer in Human Resources). Webhook targets on loopback allowed.
 */
export function useCalendarBed(env: Record<string, string> = {}, more?: (doc: any) => void): CalendarBed {
  const bed = {} as CalendarBed;
  let workers: Awaited<ReturnType<typeof startTestWorkers>> | undefined;
  const cookies = new Map<string, string>();
  beforeAll(async () => {
    bed.smtp = await startSmtpSink();
    bed.t = await createTestApp({ SMTP_URL: bed.smtp.url, WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', ...env });
    bed.acme = await importDemoTenant(bed.t, 'acme', (doc) => {
      doc.competences.push({
        ref: 'cal-course',
        title: 'Calendar course',
        type: 'course',
        owner: 'kari',
        children: [
          { ref: 'cal-m1', title: 'Calendar course: module 1', type: 'module' },
          { ref: 'cal-m2', title: 'Calendar course: module 2', type: 'module' },
        ],
      });
      doc.persons.push(
        {
          user_name: 'mona',
          password: EXTRA_PASSWORDS.mona,
          firstname: 'Mona',
          lastname: 'Berg',
          email: 'mona@acme.example',
          organisation: 'acme-hr',
          manages: ['acme-hr'],
        },
        { user_name: 'tor', password: EXTRA_PASSWORDS.tor, firstname: 'Tor', lastname: 'Lie', email: 'tor@acme.example', organisation: 'acme-hr' },
      );
      more?.(doc);
    });
    workers = await startTestWorkers(bed.t.container, [bed.acme.tenantId]);
  });
  afterAll(async () => {
    await workers?.stop();
    await bed.t?.close();
    await bed.smtp?.stop();
  });
  bed.as = async (userName) => {
    let cookie = cookies.get(userName);
    if (!cookie) {
      cookie = await loginCookie(bed.t, bed.acme.host, userName, ACME_PASSWORDS[userName] ?? EXTRA_PASSWORDS[userName]);
      cookies.set(userName, cookie);
    }
    return client(bed.t, bed.acme.host, cookie);
  };
  bed.idOf = async (table, where) => {
    const row = await tenantDb(bed.t, bed.acme).table(table).where(where).first('id');
    if (!row) throw new Error(`no ${table} ${JSON.stringify(where)}`);
    return row.id;
  };
  return bed;
}

/** POST /api/events, expecting 200; answers the event as shown. */
export async function createEvent(api: Api, data: Record<string, unknown>): Promise<any> {
  const res = await api.post('/api/events').send({ event_data: data });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.message).toBe('event created');
  return res.body.events[0];
}

/** Persons for sign-ons, with e-mail addresses, in an organisation (by name). */
export async function addPersons(bed: CalendarBed, names: string[], organisation: string): Promise<void> {
  const org = await bed.idOf('organisations', { name: organisation });
  await tenantDb(bed.t, bed.acme)
    .table('persons')
    .insert(names.map((n) => ({ user_name: n, email: `${n}@acme.example`, organisation_id: org })));
}

/** A future day's time as ISO with Z, `days` from now. */
export function daysAhead(days: number, hour: number): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.toISOString().slice(0, 10)}T${String(hour).padStart(2, '0')}:00:00Z`;
}
