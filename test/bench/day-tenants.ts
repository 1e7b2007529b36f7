import type { Knex } from 'knex';

/**
 * The tenants of the day mix (issue 42): a training platform's tenant in small, seeded by its index.
 * Four units (a root and three departments), three roles with two mandatory competences each, four
 * courses, a skill and a formal competence, `persons` persons (`user`, the back office's superuser, and
 * u1..u(persons-1) spread over the departments and roles, some competences held), eight future
 * events (a seat for everyone, so a sign-on is never refused for room) and two past events with
 * u1..u10 signed on, whose results the back office records.
 */
export const DAY_PERSONS = 40;
const DAY = 86_400_000;

export function dayTenant(index: number, passwordHash: string, persons = DAY_PERSONS, config: Record<string, unknown> = {}) {
  const slug = `day${String(index).padStart(4, '0')}`;
  const now = Date.now();
  const at = (days: number, hour: number) => new Date(Math.floor(now / DAY) * DAY + days * DAY + hour * 3_600_000).toISOString();
  const users = Array.from({ length: persons - 1 }, (_, k) => `u${k + 1}`);
  return {
    format: 'tenant-import/1',
    tenant: { slug, name: `Day tenant ${index}`, hosts: [`${slug}.bench.localhost`] },
    config: { 'mail.from': `Day ${index} <mail@${slug}.example>`, ...config },
    organisations: [{ ref: 'o0', name: `Org ${index}`, children: [1, 2, 3].map((d) => ({ ref: `o${d}`, name: `Department ${d}` })) }],
    roles: [0, 1, 2].map((r) => ({ ref: `r${r}`, name: `Role ${r}`, meta_type: 'role' })),
    competences: [
      ...[0, 1, 2, 3].map((c) => ({ ref: `c${c}`, title: `Course ${c}`, type: 'course' })),
      { ref: 'c4', title: 'Skill 4', type: 'skill' },
      { ref: 'c5', title: 'Formal 5', type: 'formal' },
    ],
    requirements: [
      ['r0', 'c0'],
      ['r0', 'c4'],
      ['r1', 'c1'],
      ['r1', 'c5'],
      ['r2', 'c2'],
      ['r2', 'c3'],
    ].map(([role, competence]) => ({ role, competence, mandatory: true })),
    persons: [
      {
        user_name: 'user',
        password_hash: passwordHash,
        firstname: 'Back',
        lastname: `Office ${index}`,
        email: `user@${slug}.example`,
        organisation: 'o0',
        roles: ['r0'],
        superuser: true,
      },
      ...users.map((u, k) => ({
        user_name: u,
        password_hash: passwordHash,
        firstname: `First${k + 1}`,
        lastname: `Last${k + 1}`,
        email: `${u}@${slug}.example`,
        mobile: `+47${40000000 + k}`,
        organisation: `o${1 + (k % 3)}`,
        roles: [`r${k % 3}`],
      })),
    ],
    events: [
      // a week apart, seven hours each: no two overlap (check_join's conflicting_course)
      ...Array.from({ length: 8 }, (_, e) => ({
        ref: `f${e}`,
        competence: `c${e % 4}`,
        title: `Day course ${e}`,
        start: at(7 + 7 * e, 8),
        end: at(7 + 7 * e, 15),
        max_participants: persons + 10,
      })),
      ...[0, 1].map((e) => ({
        ref: `p${e}`,
        competence: `c${e}`,
        title: `Past course ${e}`,
        start: at(-30 - 7 * e, 8),
        end: at(-30 - 7 * e, 15),
        max_participants: persons + 10,
      })),
    ],
    person_events: [0, 1].flatMap((e) => users.slice(0, 10).map((u) => ({ person: u, event: `p${e}` }))),
    person_competences: users.filter((_, k) => k % 2 === 0).map((u, k) => ({ person: u, competence: `c${k % 6}`, date: '2025-03-15' })),
  };
}

/** What the mix needs to know of a day tenant: ids, who is where, the state its writes toggle. */
export interface DayTenantData {
  host: string;
  rootOrg: number;
  departments: number[];
  roles: number[];
  /** competence ids, c0..c5 */
  competences: number[];
  futureEvents: number[];
  pastEvents: number[];
  persons: { user: string; org: number; role: number }[];
  /** `${event}:${user}` signed on (future events) */
  signedOn: string[];
  /** `${competence}:${user}` held */
  held: string[];
  /** past events' participants (u1..u10) */
  pastParticipants: string[];
}

export async function loadDayTenant(knex: Knex, schema: string, host: string): Promise<DayTenantData> {
  const db = () => knex.withSchema(schema);
  const orgs: { id: number; parent_id: number | null }[] = await db().table('organisations').orderBy('id').select('id', 'parent_id');
  const roles: number[] = await db().table('roles').orderBy('id').pluck('id');
  const competences: number[] = await db().table('competences').orderBy('id').pluck('id');
  const events: { id: number; starts_at: Date }[] = await db().table('events').orderBy('id').select('id', 'starts_at');
  const persons: { id: number; user_name: string; organisation_id: number }[] = await db()
    .table('persons')
    .orderBy('id')
    .select('id', 'user_name', 'organisation_id');
  const personRoles: { person_id: number; role_id: number }[] = await db().table('person_roles').select('person_id', 'role_id');
  const signOns: { person_id: number; event_id: number }[] = await db().table('person_events').where('status', 'signed_on').select('person_id', 'event_id');
  // current registrations only: with --data, earlier runs left deleted and superseded rows behind
  const held: { person_id: number; competence_id: number }[] = await db()
    .table('person_competences')
    .whereNull('superseded_at')
    .whereNull('deleted_at')
    .select('person_id', 'competence_id');
  const userOf = new Map(persons.map((p) => [p.id, p.user_name]));
  const roleOf = new Map(personRoles.map((r) => [r.person_id, r.role_id]));
  const future = events.filter((e) => e.starts_at.getTime() > Date.now()).map((e) => e.id);
  const past = events.filter((e) => e.starts_at.getTime() <= Date.now()).map((e) => e.id);
  return {
    host,
    rootOrg: orgs.find((o) => o.parent_id === null)!.id,
    departments: orgs.filter((o) => o.parent_id !== null).map((o) => o.id),
    roles,
    competences,
    futureEvents: future,
    pastEvents: past,
    persons: persons.filter((p) => p.user_name !== 'user').map((p) => ({ user: p.user_name, org: p.organisation_id, role: roleOf.get(p.id)! })),
    signedOn: signOns.filter((s) => future.includes(s.event_id)).map((s) => `${s.event_id}:${userOf.get(s.person_id)}`),
    held: [...new Set(held.map((h) => `${h.competence_id}:${userOf.get(h.person_id)}`))],
    pastParticipants: persons.filter((p) => /^u([1-9]|10)$/.test(p.user_name)).map((p) => p.user_name),
  };
}
