import { afterAll, beforeAll, expect } from 'vitest';
import { client, createTestApp, importDemoTenant, type DemoTenant, type TestApp } from '../../support/test-app';
import { ACME_PASSWORDS, loginCookie } from '../../support/login';
import { tenantDb } from '../events/events-support';

export type Api = ReturnType<typeof client>;

/** Passwords of the persons the results tests add to the acme document. */
const PASSWORDS: Record<string, string> = { olga: 'Olga-Owner-Pass-1', ivar: 'Ivar-Teacher-Pass-1', mia: 'Mia-Manager-Pass-1' };

export interface ResultsBed {
  t: TestApp;
  acme: DemoTenant;
  globex: DemoTenant;
  as(userName: string): Promise<Api>;
  idOf(table: string, where: Record<string, unknown>): Promise<number>;
  db(): ReturnType<typeof tenantDb>;
}

export const COURSE = 'Results course';
export const M1 = 'Results course: module 1';
export const M2 = 'Results course: module 2';
export const RUN = 'Results course, October run';
export const FUTURE = 'Results course, future run';

/**
 * acme (time zone Europe/Oslo) plus: the course "Results course" (owner olga, valid 24 months)
 * with two modules, mandatory for the role "Results role"; the unit "Results unit" managed by mia
 * with r1..r4 holding that role; the run "Results course, October run" (instructor ivar, ended
 * 2026-10-15T22:30Z, i.e. 2026-10-16 in Oslo) with two module events, r1..r4 signed on and rw on
 * the wait list; a future run with r1 signed on. globex beside it.
 */
export function useResultsBed(): ResultsBed {
  const bed = {} as ResultsBed;
  const cookies = new Map<string, string>();
  beforeAll(async () => {
    bed.t = await createTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1' });
    [bed.acme, bed.globex] = await Promise.all([
      importDemoTenant(bed.t, 'acme', (doc) => {
        doc.config['tenant.timezone'] = 'Europe/Oslo';
        doc.organisations[0].children.push({ ref: 'res-org', name: 'Results unit' });
        doc.roles.push({ ref: 'res-role', name: 'Results role', meta_type: 'role' });
        doc.competences.push({
          ref: 'res-course',
          title: COURSE,
          type: 'course',
          owner: 'olga',
          valid_months: 24,
          children: [
            { ref: 'res-m1', title: M1, type: 'module' },
            { ref: 'res-m2', title: M2, type: 'module' },
          ],
        });
        doc.requirements.push({ role: 'res-role', competence: 'res-course', mandatory: true });
        const person = (user_name: string, organisation: string, extra: Record<string, unknown> = {}) => ({
          user_name,
          firstname: user_name,
          lastname: 'Result',
          email: `${user_name}@acme.example`,
          organisation,
          ...extra,
        });
        doc.persons.push(
          person('olga', 'acme-hr', { password: PASSWORDS.olga }),
          person('ivar', 'acme-hr', { password: PASSWORDS.ivar }),
          person('mia', 'res-org', { password: PASSWORDS.mia, manages: ['res-org'] }),
          ...['r1', 'r2', 'r3', 'r4'].map((u) => person(u, 'res-org', { roles: ['res-role'] })),
          person('rw', 'acme-hr'),
        );
        doc.events.push(
          {
            ref: 'res-run',
            competence: 'res-course',
            title: RUN,
            instructor: 'ivar',
            start: '2026-10-14T06:00:00Z',
            end: '2026-10-15T22:30:00Z',
            max_participants: 4,
            children: [
              { ref: 'res-run-m1', competence: 'res-m1', title: 'Results module 1, October', start: '2026-10-14T06:00:00Z', end: '2026-10-14T15:00:00Z' },
              { ref: 'res-run-m2', competence: 'res-m2', title: 'Results module 2, October', start: '2026-10-15T06:00:00Z', end: '2026-10-15T21:45:00Z' },
            ],
          },
          { ref: 'res-future', competence: 'res-course', title: FUTURE, instructor: 'ivar', start: '2031-10-14T06:00:00Z', end: '2031-10-15T15:00:00Z' },
        );
        doc.person_events.push(
          ...['r1', 'r2', 'r3', 'r4'].map((u) => ({ person: u, event: 'res-run' })),
          { person: 'rw', event: 'res-run', status: 'waitlist' },
          { person: 'r1', event: 'res-future' },
        );
      }),
      importDemoTenant(bed.t, 'globex'),
    ]);
  });
  afterAll(async () => bed.t?.close());
  bed.as = async (userName) => {
    let cookie = cookies.get(userName);
    if (!cookie) {
      cookie = await loginCookie(bed.t, bed.acme.host, userName, ACME_PASSWORDS[userName] ?? PASSWORDS[userName]);
      cookies.set(userName, cookie);
    }
    return client(bed.t, bed.acme.host, cookie);
  };
  bed.db = () => tenantDb(bed.t, bed.acme);
  bed.idOf = async (table, where) => {
    const row = await bed.db().table(table).where(where).first('id');
    if (!row) throw new Error(`no ${table} ${JSON.stringify(where)}`);
    return row.id;
  };
  return bed;
}

export const ok = (res: { status: number; body: unknown }) => expect(res.status, JSON.stringify(res.body)).toBe(200);
