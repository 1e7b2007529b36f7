import { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { PersonEventsRepository, isoDateTime, type EventRow } from '../../courses';
import { heldRegistrations } from '../../catalogue';
import { inPersonState, joinOrganisations, joinPersons, OrganisationDirectory, organisationSubtree, PersonAccess, type PersonState } from '../../people';
import { CompetenceAuthoring } from '../catalogue/competence-authoring-access';

/** One participant: the person plus their live sign-on (same attributes in simple and full view). */
export const ParticipantView = z
  .object({
    person_id: z.number().int(),
    user_name: z.string(),
    firstname: z.string().nullable(),
    lastname: z.string().nullable(),
    email: z.string().nullable(),
    mobile: z.string().nullable(),
    organisation_id: z.number().int().nullable(),
    organisation_name: z.string().nullable(),
    person_event_id: z.number().int(),
    status: z.enum(['signed_on', 'waitlist']),
    waitlist: z.boolean().describe('true while the person is on the wait list'),
    met: z.boolean().describe('attended the event, as recorded (PUT /api/participants, met=1); false until recorded'),
    passed: z.number().int().nullable().describe('the result, 0-100, as recorded (PUT /api/participants); null = not assessed yet'),
    pass_reached: z
      .boolean()
      .nullable()
      .describe("passed reached the pass mark of the event's competence (its pass_mark, else 100) when recorded; null = not assessed yet"),
    grade: z.number().nullable().describe('as recorded; null = none'),
    comments: z.string().nullable().describe('as recorded; null = none'),
    result_recorded_at: isoDateTime().nullable().describe('when the result was last recorded; null = never'),
    result_recorded_by: z.string().nullable().describe('user name of whoever recorded it last'),
    holds_competence: z.boolean().describe("the person holds the event's competence now (current registration, passed > 0, still valid)"),
    signed_on_at: isoDateTime(),
  })
  .meta({ id: 'Participant' });

export interface ParticipantFilters {
  waitlist?: boolean;
  passed?: boolean;
  met?: boolean;
  organisation_id?: number;
  recursive?: boolean;
  /** Whose places: active persons (default), deactivated ones, or all. */
  state?: PersonState;
}

/**
 * Participants: persons (people) with a live sign-on (courses, seat or wait list). `met` is whether
 * the person currently holds the event's competence (catalogue: a valid, current registration).
 * Each answer is one statement that this flow composes from the three modules' queries.
 */
@injectable()
export class ParticipantsFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonEventsRepository) private readonly personEvents: PersonEventsRepository,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(CompetenceAuthoring) private readonly authoring: CompetenceAuthoring,
  ) {}

  /**
   * The event's participants (pe, with their result at it) with the person (p), their organisation
   * (o), who recorded the result (rb) and whether they hold the event's competence.
   */
  private base(event: EventRow, f: ParticipantFilters = {}): Knex.QueryBuilder {
    const { db } = this;
    const held = heldRegistrations(db, this.clock.today()).whereRaw('pc.person_id = p.id').where('pc.competence_id', event.competence_id).select(db.raw('1'));
    const q = joinOrganisations(joinPersons(this.personEvents.participants(event, f), 'p', 'pe.person_id'), 'o', 'p.organisation_id', 'left');
    return joinPersons(q, 'rb', 'r.recorded_by', 'left').select(
      'p.id as person_id',
      'p.user_name',
      'p.firstname',
      'p.lastname',
      'p.email',
      'p.mobile',
      'p.organisation_id',
      'o.name as organisation_name',
      'rb.user_name as result_recorded_by_user_name',
      db.raw('exists (?) as holds_competence', [held]),
    );
  }

  /** Sees every participant: a superuser, the event's instructor, and who may author its competence (superadmins, its owner). */
  async seesAll(user: Principal, event: EventRow): Promise<boolean> {
    return user.superuser || event.instructor_id === user.personId || (await this.authoring.mayAuthor(user, event.competence_id));
  }

  /** Superuser, the event's instructor, superadmins and the competence's owner: everyone. A manager: only persons in organisations they manage. */
  private async scope(user: Principal, event: EventRow, organisationId?: number): Promise<Set<number> | 'all'> {
    const privileged = await this.seesAll(user, event);
    if (organisationId !== undefined) {
      if (!(await this.organisations.find(organisationId))) throw ApiError.notFound(`organisation ${organisationId}`);
      if (!privileged) await this.access.assertManagesOrganisation(user, organisationId, 'list participants of this organisation');
    }
    if (privileged) return 'all';
    const managed = await this.access.managedOrganisationIds(user.personId);
    if (managed.size === 0) throw ApiError.forbidden('not authorised to list participants: only a superuser, the instructor or a manager may');
    return managed;
  }

  async list(user: Principal, event: EventRow, f: ParticipantFilters, paging: Paging): Promise<Record<string, unknown>[]> {
    const scope = await this.scope(user, event, f.organisation_id);
    const q = this.base(event, f).modify(inPersonState('p', f.state));
    if (scope !== 'all') q.whereIn('p.organisation_id', [...scope]);
    if (f.organisation_id !== undefined) {
      if (f.recursive) q.whereIn('p.organisation_id', organisationSubtree(this.db, f.organisation_id) as any);
      else q.where('p.organisation_id', f.organisation_id);
    }
    const rows = await this.db.builder
      .select('*')
      .from(q.as('x'))
      .orderBy([{ column: 'status' }, { column: 'created_at' }, { column: 'person_event_id' }])
      .limit(paging.limit)
      .offset(paging.offset);
    return rows.map(presentParticipant);
  }

  /** Superuser, the person's manager, self (and the event's instructor, superadmins, the competence's owner); a deactivated person too (named, not listed). */
  async one(user: Principal, event: EventRow, userName: string): Promise<Record<string, unknown>> {
    const person = await this.access.target(user, userName);
    // who sees every participant sees this one; anyone else as for the person
    if (!(await this.seesAll(user, event))) await this.access.assert(user, person, 'selfOrManager', 'see this participant');
    const row = await this.base(event).where('p.id', person.id).first();
    if (!row) throw ApiError.notFound(`participant ${userName} of event ${event.id}`);
    return presentParticipant(row);
  }

  /** These persons as participants (no access check: for the answer of a recording its caller was allowed), in the order given. */
  async some(event: EventRow, personIds: readonly number[]): Promise<Record<string, unknown>[]> {
    const rows = await this.base(event).whereIn('p.id', [...personIds]);
    const byId = new Map(rows.map((r: any) => [r.person_id, r]));
    return personIds.flatMap((id) => (byId.has(id) ? [presentParticipant(byId.get(id))] : []));
  }
}

function presentParticipant(r: any): Record<string, unknown> {
  return {
    person_id: r.person_id,
    user_name: r.user_name,
    firstname: r.firstname,
    lastname: r.lastname,
    email: r.email,
    mobile: r.mobile,
    organisation_id: r.organisation_id,
    organisation_name: r.organisation_name,
    person_event_id: r.person_event_id,
    status: r.status,
    waitlist: r.status === 'waitlist',
    met: r.met === true,
    passed: r.passed ?? null,
    pass_reached: r.reached ?? null,
    grade: r.grade ?? null,
    comments: r.comments ?? null,
    result_recorded_at: r.result_recorded_at ?? null,
    result_recorded_by: r.result_recorded_by_user_name ?? null,
    holds_competence: r.holds_competence,
    signed_on_at: r.created_at,
  };
}
