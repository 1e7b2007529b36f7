import type { DayTenantData } from './day-tenants';
import { swtToken } from './generate-tenants';

/**
 * The day mix's requests (issue 42): what a training platform's working day sends, each drawn with
 * varied parameters, and for every write the read-backs that must show its new state. day-mix.ts
 * sends them; this file only builds them and judges the read-backs.
 */
export type Kind = 'read' | 'write' | 'message' | 'report';

export interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** A read-back after a write, judged on the answer: true when it shows the write's new state. */
export interface Check {
  what: string;
  req: Req;
  shows: (status: number, body: any) => boolean;
  /** What the model expected, printed with a stale answer */
  expected?: unknown;
}

export interface Action {
  cls: string;
  kind: Kind;
  req: Req;
  /** Objects the action changes: no two writes on one of them are in flight together (their read-backs would race). */
  locks?: string[];
  /** After a 2xx answer: the model's new state, and the read-backs that must show it (the answer's body at hand for ids). */
  after?: (body: any) => Check[];
}

/** A day tenant with its logins: the back office's session and u1's; the others sign in with SWT. */
export interface DayTenantLogins extends DayTenantData {
  superCookie: string;
  sessions: Record<string, string>;
}

/** The classes and their share of the mix (per cent): 70 reads, 20 writes, 8 messages, 2 reports. */
export const MIX: [cls: string, kind: Kind, weight: number][] = [
  ['own view', 'read', 24],
  ['persons list', 'read', 10],
  ['person competences', 'read', 8],
  ['person competences missing', 'read', 5],
  ['events list', 'read', 9],
  ['check_join', 'read', 5],
  ['participants', 'read', 5],
  ['competence level', 'read', 4],
  ['person update', 'write', 4],
  ['role change', 'write', 2],
  ['registration', 'write', 4],
  ['sign-on / sign-off', 'write', 6],
  ['results', 'write', 2],
  ['event edit', 'write', 2],
  ['message', 'message', 8],
  ['report', 'report', 2],
];

/** Mandatory competences per role index (day-tenants.ts: r0 c0 c4, r1 c1 c5, r2 c2 c3). */
const REQUIRED = [
  [0, 4],
  [1, 5],
  [2, 3],
];

/** The first array in an answer's envelope (person, personcompetence, event, ...). */
export function items(body: any): any[] {
  if (!body || typeof body !== 'object') return [];
  for (const v of Object.values(body)) if (Array.isArray(v)) return v;
  return [];
}

/** The mutable state of one tenant as the mix's acknowledged writes left it. */
class TenantModel {
  readonly signedOn: Set<string>;
  readonly held: Set<string>;
  readonly roleOf = new Map<string, number>();
  readonly passed = new Map<string, number>();
  constructor(readonly t: DayTenantLogins) {
    this.signedOn = new Set(t.signedOn);
    this.held = new Set(t.held);
    for (const p of t.persons) this.roleOf.set(p.user, p.role);
  }
}

export class DayActions {
  private readonly models = new Map<string, TenantModel>();
  private readonly busy = new Set<string>();
  private serial = 0;
  private readonly swt = new Map<string, string>();

  constructor(
    private readonly tenants: DayTenantLogins[],
    private readonly rnd: () => number,
  ) {
    for (const t of tenants) this.models.set(t.host, new TenantModel(t));
  }

  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }

  private superH(t: DayTenantLogins): Record<string, string> {
    return { Host: t.host, Cookie: t.superCookie };
  }

  /** A person's own headers: a session where there is one, else an SWT (made once per person and run). */
  private selfH(t: DayTenantLogins, user: string): Record<string, string> {
    if (t.sessions[user]) return { Host: t.host, Cookie: t.sessions[user] };
    let token = this.swt.get(user);
    if (!token) this.swt.set(user, (token = `SWT ${swtToken(user)}`));
    return { Host: t.host, Authorization: token };
  }

  /** Locks the objects of a write until release(); false when one is taken. */
  lock(keys: string[]): boolean {
    if (keys.some((k) => this.busy.has(k))) return false;
    for (const k of keys) this.busy.add(k);
    return true;
  }

  release(keys: string[]): void {
    for (const k of keys) this.busy.delete(k);
  }

  /** The next action: a class drawn by MIX's weights, on a tenant, person, event ... drawn at random. */
  next(only?: string): Action {
    const total = MIX.reduce((s, m) => s + m[2], 0);
    let cls = only;
    if (!cls) {
      let x = this.rnd() * total;
      for (const [c, , w] of MIX) if ((x -= w) < 0 && !cls) cls = c;
    }
    return this.build(cls!, this.pick(this.tenants));
  }

  private build(cls: string, t: DayTenantLogins): Action {
    const m = this.models.get(t.host)!;
    // the past events' participants gain competences by their results: the writes whose read-backs
    // compare held and missing competences leave them out, so that the model stays exact
    const p = cls === 'registration' || cls === 'role change' ? this.pick(t.persons.filter((x) => !t.pastParticipants.includes(x.user))) : this.pick(t.persons);
    const u = p.user;
    const S = this.superH(t);
    const n = ++this.serial;
    const get = (path: string, headers = S): Req => ({ method: 'GET', path, headers });
    const fe = this.pick(t.futureEvents);
    switch (cls) {
      case 'own view':
        return { cls, kind: 'read', req: get('/api/person', this.rnd() < 0.1 ? S : this.selfH(t, u)) };
      case 'persons list': {
        const dept = this.pick(t.departments);
        const path = this.pick([
          `/api/persons?organisation_id=${dept}&limit=10&offset=${10 * Math.floor(this.rnd() * 2)}`,
          `/api/persons?organisation_id=${t.rootOrg}&recursive=1&limit=100`,
          `/api/persons?role_ids=${this.pick(t.roles)}&limit=50`,
          `/api/persons?event_id=${fe}&limit=100`,
        ]);
        return { cls, kind: 'read', req: get(path) };
      }
      case 'person competences':
        return {
          cls,
          kind: 'read',
          req:
            this.rnd() < 0.5
              ? get(`/api/personcompetences?user_name=${u}${this.rnd() < 0.5 ? '&view=full' : ''}`)
              : get('/api/personcompetences', this.selfH(t, u)),
        };
      case 'person competences missing':
        return {
          cls,
          kind: 'read',
          req: this.rnd() < 0.5 ? get(`/api/personcompetences?state=missing&user_name=${u}`) : get('/api/personcompetences?state=missing', this.selfH(t, u)),
        };
      case 'events list': {
        const path = this.pick([
          '/api/events?mode=future',
          '/api/events?mode=future&view=full',
          `/api/events?competence_id=${this.pick(t.competences.slice(0, 4))}`,
          '/api/events?mode=all&limit=5&offset=5',
          '/api/events?mode=future&user_check=1',
        ]);
        return { cls, kind: 'read', req: get(path, this.rnd() < 0.7 ? this.selfH(t, u) : S) };
      }
      case 'check_join':
        return { cls, kind: 'read', req: get(`/api/events/${fe}/check_join`, this.selfH(t, u)) };
      case 'participants':
        return {
          cls,
          kind: 'read',
          req: get(`/api/participants/${this.pick([...t.futureEvents, ...t.pastEvents])}${this.rnd() < 0.5 ? '?view=full' : '?limit=20'}`),
        };
      case 'competence level':
        return {
          cls,
          kind: 'read',
          req: this.rnd() < 0.5 ? get(`/api/competencelevel?organisation_id=${this.pick(t.departments)}`) : get('/api/competencelevel', this.selfH(t, u)),
        };
      case 'person update': {
        const lastname = `Last${u.slice(1)}-${n}`;
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|${u}`],
          req: { method: 'PUT', path: `/api/persons/${u}`, headers: S, body: { person_data: { lastname } } },
          after: () => [
            { what: 'GET /api/persons/[user_name]', req: get(`/api/persons/${u}`), shows: (_s, b) => items(b)[0]?.lastname === lastname },
            { what: 'GET /api/person (self)', req: get('/api/person', this.selfH(t, u)), shows: (_s, b) => items(b)[0]?.lastname === lastname },
            {
              what: 'GET /api/persons?organisation_id',
              req: get(`/api/persons?organisation_id=${p.org}&limit=100`),
              shows: (_s, b) => items(b).find((x) => x.user_name === u)?.lastname === lastname,
            },
          ],
        };
      }
      case 'role change': {
        const old = m.roleOf.get(u)!;
        const role = this.pick(t.roles.filter((r) => r !== old));
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|${u}`],
          req: { method: 'PUT', path: `/api/persons/${u}`, headers: S, body: { role_ids: [role] } },
          after: () => {
            m.roleOf.set(u, role);
            const missing = this.missing(t, m, u);
            return [
              {
                what: 'GET /api/persons?role_ids (new role)',
                req: get(`/api/persons?role_ids=${role}&limit=100`),
                shows: (_s, b) => items(b).some((x) => x.user_name === u),
              },
              {
                what: 'GET /api/persons?role_ids (old role)',
                req: get(`/api/persons?role_ids=${old}&limit=100`),
                shows: (_s, b) => !items(b).some((x) => x.user_name === u),
              },
              {
                what: 'GET /api/personcompetences?state=missing',
                req: get(`/api/personcompetences?state=missing&user_name=${u}`),
                shows: (_s, b) => sameIds(items(b), missing),
                expected: { missing, role: m.roleOf.get(u) },
              },
            ];
          },
        };
      }
      case 'registration': {
        const ci = this.pick([0, 1, 2, 3, 5]);
        const c = t.competences[ci];
        const key = `${c}:${u}`;
        const has = m.held.has(key);
        const req: Req = has
          ? { method: 'DELETE', path: `/api/personcompetences/${c}?user_name=${u}`, headers: S }
          : { method: 'PUT', path: `/api/personcompetences/${c}`, headers: S, body: { user_name: u, date: '2026-01-12' } };
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|${u}`],
          req,
          after: () => {
            if (has) m.held.delete(key);
            else m.held.add(key);
            const missing = this.missing(t, m, u);
            return [
              {
                what: 'GET /api/personcompetences',
                req: get(`/api/personcompetences?user_name=${u}`),
                shows: (_s, b) => items(b).some((x) => x.competence_id === c) === !has,
              },
              {
                what: 'GET /api/personcompetences (self)',
                req: get('/api/personcompetences', this.selfH(t, u)),
                shows: (_s, b) => items(b).some((x) => x.competence_id === c) === !has,
              },
              {
                what: 'GET /api/personcompetences?state=missing',
                req: get(`/api/personcompetences?state=missing&user_name=${u}`),
                shows: (_s, b) => sameIds(items(b), missing),
                expected: { missing, role: m.roleOf.get(u) },
              },
            ];
          },
        };
      }
      case 'sign-on / sign-off': {
        const key = `${fe}:${u}`;
        const on = m.signedOn.has(key);
        const H = this.selfH(t, u);
        const req: Req = on
          ? { method: 'PUT', path: `/api/personevents/${fe}`, headers: H, body: { action: 'off' } }
          : { method: 'POST', path: `/api/personevents/${fe}`, headers: H, body: {} };
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|${u}`],
          req,
          after: () => {
            if (on) m.signedOn.delete(key);
            else m.signedOn.add(key);
            const signedOn = (b: any) => items(b).some((x) => x.status === 'signed_on');
            return [
              { what: 'GET /api/personevents/[event_id] (self)', req: get(`/api/personevents/${fe}`, H), shows: (_s, b) => signedOn(b) === !on },
              {
                what: 'GET /api/events/[event_id]/check_join (self)',
                req: get(`/api/events/${fe}/check_join`, H),
                shows: (_s, b) => (b?.reason ?? []).includes('already_joined') === !on,
              },
              {
                what: 'GET /api/persons?event_id',
                req: get(`/api/persons?event_id=${fe}&limit=100`),
                shows: (_s, b) => items(b).some((x) => x.user_name === u) === !on,
              },
              {
                what: 'GET /api/participants/[event_id]',
                req: get(`/api/participants/${fe}?limit=100`),
                shows: (_s, b) => items(b).some((x) => x.user_name === u) === !on,
              },
            ];
          },
        };
      }
      case 'results': {
        const pe = this.pick(t.pastEvents);
        const who = this.pick(t.pastParticipants);
        const key = `${pe}:${who}`;
        const passed = ((m.passed.get(key) ?? 0) + 1 + Math.floor(this.rnd() * 50)) % 101;
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|${key}`],
          req: { method: 'PUT', path: `/api/participants/${pe}/${who}`, headers: S, body: { passed, met: 1 } },
          after: () => {
            m.passed.set(key, passed);
            return [
              {
                what: 'GET /api/participants/[event_id]/[user_name]',
                req: get(`/api/participants/${pe}/${who}`),
                shows: (_s, b) => (items(b)[0] ?? b?.participant)?.passed === passed,
              },
            ];
          },
        };
      }
      case 'event edit': {
        const title = `Day course ${fe}, edit ${n}`;
        const ofList = (b: any) => items(b).find((x) => x.event_id === fe)?.title === title;
        return {
          cls,
          kind: 'write',
          locks: [`${t.host}|e${fe}`],
          req: { method: 'PUT', path: `/api/events/${fe}`, headers: S, body: { event_data: { title } } },
          after: () => [
            { what: 'GET /api/events/[event_id]', req: get(`/api/events/${fe}`), shows: (_s, b) => items(b)[0]?.title === title },
            { what: 'GET /api/events?mode=future', req: get('/api/events?mode=future'), shows: (_s, b) => ofList(b) },
            { what: 'GET /api/events?mode=future (self)', req: get('/api/events?mode=future', this.selfH(t, u)), shows: (_s, b) => ofList(b) },
          ],
        };
      }
      case 'message': {
        const title = `Day message ${n}`;
        return {
          cls,
          kind: 'message',
          req: {
            method: 'POST',
            path: '/api/messages',
            headers: S,
            body: { user_name: u, title, text: 'Your course starts next week.', send_medium: 'email' },
          },
          after: (b) => {
            const id = items(b)[0]?.message_id;
            return [{ what: 'GET /api/messages/[message_id]', req: get(`/api/messages/${id}`), shows: (_s, r) => items(r)[0]?.title === title }];
          },
        };
      }
      case 'report':
        return {
          cls,
          kind: 'report',
          req: get(
            this.pick([
              `/api/reports/compliance?organisation_id=${t.rootOrg}`,
              `/api/reports/competencematrix?organisation_id=${this.pick(t.departments)}`,
              `/api/reports/competencematrix?organisation_id=${t.rootOrg}&format=csv`,
            ]),
          ),
        };
      default:
        throw new Error(`unknown class ${cls}`);
    }
  }

  /** The state the acknowledged writes left, per tenant host: the next run of the mix starts from it. */
  state(): Record<string, Pick<DayTenantData, 'signedOn' | 'held' | 'persons'>> {
    return Object.fromEntries(
      [...this.models].map(([host, m]) => [
        host,
        { signedOn: [...m.signedOn], held: [...m.held], persons: m.t.persons.map((p) => ({ ...p, role: m.roleOf.get(p.user)! })) },
      ]),
    );
  }

  /** The competence ids the person misses: their role's mandatory ones not held. */
  private missing(t: DayTenantLogins, m: TenantModel, u: string): number[] {
    const role = t.roles.indexOf(m.roleOf.get(u)!);
    return REQUIRED[role].map((i) => t.competences[i]).filter((c) => !m.held.has(`${c}:${u}`));
  }
}

function sameIds(list: any[], ids: number[]): boolean {
  const got = list.map((x) => x.competence_id).sort((a, b) => a - b);
  return JSON.stringify(got) === JSON.stringify([...ids].sort((a, b) => a - b));
}
