import { inject, injectable } from 'tsyringe';
import type { Knex } from 'knex';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { TenantClock, type DateParam } from '../../platform/time/tenant-clock';
import { OrganisationDirectory, PersonAccess, PersonDirectory, personsInSubtree } from '../../people';
import { ChangesRepository } from '../../catalogue';
import { EventChangesRepository } from '../../courses';

export type ChangeType = 'events' | 'personcompetences' | 'competences';

export interface ChangesQuery {
  type: ChangeType;
  startdate: DateParam;
  enddate?: DateParam;
  organisationId?: number;
  externOrganisationId?: string;
  page: Paging;
}

/**
 * GET /api/changes: what changed in a period, of one type. Competences and registrations are the
 * catalogue's, events the courses'; people decides who may read which organisation, whose
 * registrations and sign-ons count for it, and names the persons.
 */
@injectable()
export class ChangesFeedFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(OrganisationDirectory) private readonly organisations: OrganisationDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(ChangesRepository) private readonly changes: ChangesRepository,
    @inject(EventChangesRepository) private readonly events: EventChangesRepository,
  ) {}

  async read(user: Principal, q: ChangesQuery): Promise<Record<string, unknown>[]> {
    const organisationId = await this.organisation(q);
    await this.assertMayRead(user, q.type, organisationId);
    const start = this.clock.start(q.startdate);
    const end = q.enddate === undefined ? this.clock.now() : this.clock.end(q.enddate);
    if (q.type !== 'events' && end < start) throw ApiError.malformed('enddate', 'must not be before startdate');
    // the persons of the organisation and below, as a sub-query: the feed stays one statement per type
    const members = organisationId === undefined ? undefined : personsInSubtree(this.db, organisationId);
    if (q.type === 'competences') return this.changes.competences({ start, end }, q.page);
    if (q.type === 'events') return this.events.since(start, members, q.page);
    return this.registrations({ start, end }, members, q.page);
  }

  /** The organisation named by id or external id (404 when unknown), or none. */
  private async organisation(q: ChangesQuery): Promise<number | undefined> {
    if (q.organisationId === undefined && q.externOrganisationId !== undefined) {
      const id = await this.organisations.idByExternalId(q.externOrganisationId);
      if (id === undefined) throw ApiError.notFound(`organisation with extern_organisation_id ${q.externOrganisationId}`);
      return id;
    }
    if (q.organisationId !== undefined && !(await this.organisations.find(q.organisationId))) throw ApiError.notFound(`organisation ${q.organisationId}`);
    return q.organisationId;
  }

  /** Who may read depends on the type and on the organisation. */
  private async assertMayRead(user: Principal, type: ChangeType, organisationId: number | undefined): Promise<void> {
    if (type === 'competences') {
      if (!user.superuser && !(await this.access.isManager(user))) throw ApiError.forbidden('the changes feed is for superusers and managers');
    } else if (organisationId === undefined) {
      if (!user.superuser) throw ApiError.forbidden('not authorised to read the changes of the whole tenant (managers pass organisation_id): superusers only');
    } else {
      await this.access.assertManagesOrganisation(user, organisationId, 'read the changes of this organisation');
    }
  }

  /** Registrations and deletions, with the user names of the person and of whoever registered. */
  private async registrations(period: { start: Date; end: Date }, members: Knex.Raw | undefined, page: Paging) {
    const rows = await this.changes.personCompetences(period, members, page);
    const names = await this.persons.userNames(
      rows.flatMap((r) => ('registered_by' in r && r.registered_by !== null ? [r.person_id, r.registered_by] : [r.person_id])),
    );
    const nameOf = (id: number | null) => (id === null ? null : (names.get(id) ?? null));
    return rows.map(({ person_id, ...r }) =>
      r.deleted
        ? { competence_id: r.competence_id, title: r.title, type: r.type, user_name: nameOf(person_id), deleted: true, changed_at: r.changed_at }
        : {
            personcompetence_id: r.personcompetence_id,
            competence_id: r.competence_id,
            title: r.title,
            type: r.type,
            user_name: nameOf(person_id),
            passed: r.passed,
            date: r.date,
            valid_until: r.valid_until,
            checked: r.checked,
            signed: r.signed,
            override: r.override,
            registered_by: nameOf(r.registered_by),
            current: r.current,
            deleted: false,
            changed_at: r.changed_at,
          },
    );
  }
}
