import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import type { Principal } from '../../platform/auth/principal';
import type { Paging } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { TenantClock } from '../../platform/time/tenant-clock';
import { PersonAccess, PersonListScope, ReportPersons, type PersonFilter, type ReportPersonRow } from '../../people';
import {
  CompetenceMatrix,
  PersonRolesStore,
  Qualifications,
  personsHoldingRoles,
  personsRequiring,
  type MatrixCell,
  type MatrixColumn,
  type MatrixQuery,
} from '../../catalogue';
import { requireKnown } from '../persons/known-ids';

/** The matrix's parameters, as GET /api/reports/competencematrix names them. */
export interface MatrixParams {
  organisation_id?: number;
  recursive?: boolean;
  user_names?: string[];
  role_ids?: number[];
  competence_ids?: number[];
  /** YYYY-MM-DD in the tenant's zone; default today. */
  date?: string;
  expiring_within_days?: number;
  include_optional?: boolean;
}

export interface MatrixRow {
  user_name: string;
  firstname: string | null;
  lastname: string | null;
  organisation_id: number | null;
  organisation_name: string | null;
  compliant: boolean;
  competences: { competence_id: number; title: string; mandatory: boolean; status: MatrixCell['status']; date: string | null; valid_until: string | null }[];
}

/** A matrix's scope, resolved and checked once: the persons (filter) and the catalogue's question. */
export interface MatrixScope {
  filter: PersonFilter;
  query: MatrixQuery;
}

export const DEFAULT_EXPIRING_WITHIN_DAYS = 60;
/** Persons read and evaluated at once by the files and the summary: bounds their memory whatever the tenant's size. */
export const REPORT_BATCH = 500;

/**
 * The competence matrix (issue 38): the persons people puts in scope (as the persons list does:
 * organisation_id with recursive, a manager's subtrees, 403 elsewhere), each with one cell per required
 * competence, the catalogue's CompetenceMatrix answering for a whole batch of persons in a few statements.
 * What the admin console's overview calls too: `scope`, then `page` or `batches`.
 */
@injectable()
export class CompetenceMatrixFlow {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(PersonListScope) private readonly listScope: PersonListScope,
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(ReportPersons) private readonly persons: ReportPersons,
    @inject(CompetenceMatrix) private readonly matrix: CompetenceMatrix,
    @inject(PersonRolesStore) private readonly roles: PersonRolesStore,
    @inject(Qualifications) private readonly qualifications: Qualifications,
  ) {}

  /** Checks the caller and the parameters (419/420/404/403) and says which persons and competences. */
  async scope(user: Principal, params: MatrixParams): Promise<MatrixScope> {
    if (params.organisation_id === undefined && !params.user_names?.length) throw ApiError.missing('organisation_id');
    const filter: PersonFilter =
      params.organisation_id !== undefined
        ? await this.listScope.filter(user, { organisation_id: params.organisation_id, recursive: params.recursive ?? false })
        : { personIds: [] };
    filter.state = 'active';
    if (params.user_names?.length) {
      filter.personIds.push(this.persons.withIds(await this.named(user, params.user_names)));
      // persons asked for by name are shown whatever their state (as GET /api/competencelevel?user_name=)
      if (params.organisation_id === undefined) filter.state = 'all';
    }
    if (params.role_ids) {
      await requireKnown('role', params.role_ids, (ids) => this.roles.missing(ids));
      filter.personIds.push(personsHoldingRoles(this.db, params.role_ids));
    }
    const includeOptional = params.include_optional ?? false;
    if (params.competence_ids) {
      await requireKnown('competence', params.competence_ids, (ids) => this.qualifications.missing(ids));
      if (!params.role_ids) filter.personIds.push(personsRequiring(this.db, params.competence_ids, includeOptional));
    }
    return {
      filter,
      query: {
        day: params.date ?? this.clock.today(),
        expiringWithinDays: params.expiring_within_days ?? DEFAULT_EXPIRING_WITHIN_DAYS,
        roleIds: params.role_ids,
        competenceIds: params.competence_ids,
        includeOptional,
      },
    };
  }

  /** Ids of the persons named; unknown names 404, a manager naming someone outside their subtrees 403. */
  private async named(user: Principal, userNames: string[]): Promise<number[]> {
    const found = await this.persons.named(userNames);
    const unknown = [...new Set(userNames)].filter((n) => !found.some((f) => f.user_name === n));
    if (unknown.length) throw ApiError.notFound(`person ${unknown.join(', ')}`);
    for (const person of found) {
      if (!(await this.access.canManagePerson(user, person))) {
        throw ApiError.forbidden(`not authorised to see the competence matrix of ${person.user_name}: only their manager or a superuser may`);
      }
    }
    return found.map((f) => f.id);
  }

  /** One page of rows (the JSON answer). */
  async page(scope: MatrixScope, page: Paging): Promise<MatrixRow[]> {
    return this.rowsOf(scope, await this.persons.page(scope.filter, page));
  }

  /** Every row, a batch at a time (the files). */
  async *batches(scope: MatrixScope, size = REPORT_BATCH): AsyncGenerator<MatrixRow[]> {
    for (let offset = 0; ; offset += size) {
      const persons = await this.persons.page(scope.filter, { limit: size, offset });
      if (persons.length) yield await this.rowsOf(scope, persons);
      if (persons.length < size) return;
    }
  }

  /** The competences anyone in scope requires: the files' columns. */
  async columns(scope: MatrixScope): Promise<MatrixColumn[]> {
    return this.matrix.columns(
      (await this.persons.all(scope.filter)).map((p) => p.id),
      scope.query,
    );
  }

  private async rowsOf(scope: MatrixScope, persons: ReportPersonRow[]): Promise<MatrixRow[]> {
    const cells = await this.matrix.cells(
      persons.map((p) => p.id),
      scope.query,
    );
    return persons.map((p) => {
      const mine = cells.get(p.id) ?? [];
      return {
        user_name: p.user_name,
        firstname: p.firstname,
        lastname: p.lastname,
        organisation_id: p.organisation_id,
        organisation_name: p.organisation_name,
        compliant: mine.every((c) => !c.mandatory || c.status === 'passed' || c.status === 'expiring'),
        competences: mine.map((c) => ({
          competence_id: c.competence.id,
          title: c.competence.title,
          mandatory: c.mandatory,
          status: c.status,
          date: c.date,
          valid_until: c.valid_until,
        })),
      };
    });
  }
}
