import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';
import { addDays } from '../../platform/time/tenant-clock';
import type { CompetenceRow } from '../competences/competence.row';
import { CompetencesRepository } from '../competences/competences.repository';
import { stateOf, type CompetenceState } from './competence-state';
import type { RegistrationRow } from './personcompetences.repository';

/** What a matrix asks of the catalogue: which competences count as required, on which day. */
export interface MatrixQuery {
  /** The calendar day (tenant's zone) the states are taken on: today, or a later day to forecast. */
  day: string;
  /** A held cell whose valid_until falls within this many days after `day` is `expiring`. */
  expiringWithinDays: number;
  /** Requirements of these roles instead of the person's own (as GET /api/personcompetences?role_ids). */
  roleIds?: readonly number[];
  /** Only these competences (columns). */
  competenceIds?: readonly number[];
  /** Optional requirements too (mandatory: false); else the mandatory ones only. */
  includeOptional: boolean;
}

export type CellStatus = 'passed' | 'expiring' | 'expired' | 'missing';

export interface MatrixCell {
  competence: CompetenceRow;
  mandatory: boolean;
  status: CellStatus;
  date: string | null;
  valid_until: string | null;
}

/** A required competence of someone: the matrix's column. */
export interface MatrixColumn {
  competence_id: number;
  title: string;
}

/** passed/expiring for a held state, expired/missing for what GET /api/personcompetences?state=missing lists. */
export function cellStatus(s: CompetenceState, day: string, expiringWithinDays: number): CellStatus {
  const until = s.registration?.valid_until ?? null;
  if (!s.held) return s.reason === 'expired' ? 'expired' : 'missing';
  return until !== null && until >= day && until <= addDays(day, expiringWithinDays) ? 'expiring' : 'passed';
}

const intArray = (ids: readonly number[]) => `{${ids.map((id) => Math.trunc(id)).join(',')}}`;

/**
 * The competence matrix's cells for many persons at once: a few statements per batch of persons,
 * whatever its size. Required = the requirements of the person's roles (or of `roleIds`) on active
 * top-level competences, mandatory when mandatory for any of them (PersonCompetenceList.required);
 * each cell's state is `stateOf` (competence-state.ts) on the person's current registrations, the
 * very rule GET /api/personcompetences applies, taken on `day`.
 */
@injectable()
export class CompetenceMatrix {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(CompetencesRepository) private readonly competences: Pick<CompetencesRepository, 'byIds' | 'descendants'>,
  ) {}

  /** SQL of (person, competence, mandatory) for every required pair of these persons, and its bindings. */
  private pairsSql(personIds: readonly number[], q: MatrixQuery): [string, Record<string, unknown>] {
    const roles = q.roleIds
      ? `select p.id as person_id, r.role_id from unnest(:ids::int[]) as p(id) cross join unnest(:roles::int[]) as r(role_id)`
      : `select pr.person_id, pr.role_id from :person_roles: pr where pr.person_id = any(:ids::int[])`;
    const sql = `with person_role as (${roles})
       select x.person_id, q.competence_id, bool_or(q.mandatory) as mandatory
         from person_role x
         join :requirements: q on q.role_id = x.role_id
         join :competences: c on c.id = q.competence_id and c.active and c.parent_id is null
        where (:all_competences or q.competence_id = any(:cids::int[]))
        group by x.person_id, q.competence_id
       having :optional or bool_or(q.mandatory)`;
    return [
      sql,
      {
        person_roles: this.db.ref('person_roles'),
        requirements: this.db.ref('requirements'),
        competences: this.db.ref('competences'),
        ids: intArray(personIds),
        roles: intArray(q.roleIds ?? []),
        all_competences: !q.competenceIds,
        cids: intArray(q.competenceIds ?? []),
        optional: q.includeOptional,
      },
    ];
  }

  private async requiredPairs(personIds: readonly number[], q: MatrixQuery): Promise<{ person_id: number; competence_id: number; mandatory: boolean }[]> {
    const [sql, bindings] = this.pairsSql(personIds, q);
    return (await this.db.raw(sql, bindings as any)).rows;
  }

  /** The competences some of these persons require (the files' columns), sorted as the lists sort: title, id. */
  async columns(personIds: readonly number[], q: MatrixQuery): Promise<MatrixColumn[]> {
    const [sql, bindings] = this.pairsSql(personIds, q);
    const r = await this.db.raw<{ rows: MatrixColumn[] }>(
      `select c.id as competence_id, c.title from :competences: c where c.id in (select competence_id from (${sql}) pairs) order by c.title, c.id`,
      bindings as any,
    );
    return r.rows.sort((a, b) => a.title.localeCompare(b.title) || a.competence_id - b.competence_id);
  }

  /** Each person's cells (every required competence, sorted by title and id); persons who require nothing get []. */
  async cells(personIds: readonly number[], q: MatrixQuery): Promise<Map<number, MatrixCell[]>> {
    const out = new Map<number, MatrixCell[]>(personIds.map((id) => [id, []]));
    if (personIds.length === 0) return out;
    const pairs = await this.requiredPairs(personIds, q);
    const competenceIds = [...new Set(pairs.map((p) => p.competence_id))];
    if (competenceIds.length === 0) return out;
    const rows = new Map((await this.competences.byIds(competenceIds)).map((c) => [c.id, c]));
    const items = await this.competences.descendants([...rows.values()].filter((c) => c.type === 'checklist').map((c) => c.id));
    const regs = await this.currentRegistrations(personIds, [...competenceIds, ...items.map((i) => i.id)]);
    for (const pair of pairs.sort((a, b) => byTitle(rows.get(a.competence_id)!, rows.get(b.competence_id)!))) {
      const c = rows.get(pair.competence_id)!;
      const mine = regs.get(pair.person_id);
      const children = items.filter((i) => i.parent_id === c.id).map((i) => stateOf(i, mine?.get(i.id), [], q.day));
      const s = stateOf(c, mine?.get(c.id), children, q.day);
      out.get(pair.person_id)!.push({
        competence: c,
        mandatory: pair.mandatory,
        status: cellStatus(s, q.day, q.expiringWithinDays),
        date: s.registration?.date ?? null,
        valid_until: s.registration?.valid_until ?? null,
      });
    }
    return out;
  }

  /** Current registrations (neither superseded nor deleted) of these persons and competences, by person and competence. */
  private async currentRegistrations(personIds: readonly number[], competenceIds: readonly number[]): Promise<Map<number, Map<number, RegistrationRow>>> {
    const rows: RegistrationRow[] = await this.db
      .table('person_competences as pc')
      .whereRaw('pc.person_id = any(?::int[])', [intArray(personIds)])
      .whereRaw('pc.competence_id = any(?::int[])', [intArray(competenceIds)])
      .whereNull('pc.superseded_at')
      .whereNull('pc.deleted_at')
      .select(
        'pc.person_id', 'pc.competence_id', 'pc.passed', 'pc.checked', 'pc.signed', 'pc.override',
        this.db.raw('pc.date::text as date'),
        this.db.raw('pc.valid_until::text as valid_until'),
      );
    const byPerson = new Map<number, Map<number, RegistrationRow>>();
    for (const r of rows) {
      let mine = byPerson.get(r.person_id);
      if (!mine) byPerson.set(r.person_id, (mine = new Map()));
      mine.set(r.competence_id, r);
    }
    return byPerson;
  }
}

function byTitle(a: Pick<CompetenceRow, 'title' | 'id'>, b: Pick<CompetenceRow, 'title' | 'id'>): number {
  return a.title.localeCompare(b.title) || a.id - b.id;
}

/** Ids of the persons whose roles require any of these competences (mandatory only unless `optional`): a sub-query for whereIn. */
export function personsRequiring(db: TenantDb, competenceIds: readonly number[], optional: boolean) {
  const q = db.table('person_roles as pr').join('requirements as q', 'q.role_id', 'pr.role_id').whereIn('q.competence_id', [...competenceIds]).select('pr.person_id');
  return optional ? q : q.where('q.mandatory', true);
}
