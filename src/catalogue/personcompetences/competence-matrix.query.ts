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

  /**
   * (person, competence, mandatory) of every required pair of these persons: their roles and the
   * requirements of those roles, read apart and joined here (the planner, asked for it in one join,
   * walked the competences first and probed person_roles once per competence).
   */
  private async requiredPairs(personIds: readonly number[], q: MatrixQuery): Promise<{ person_id: number; competence_id: number; mandatory: boolean }[]> {
    const held: { person_id: number; role_id: number }[] = q.roleIds
      ? personIds.flatMap((person_id) => q.roleIds!.map((role_id) => ({ person_id, role_id })))
      : await this.db
          .table('person_roles')
          .whereRaw('person_id = any(?::int[])', [intArray(personIds)])
          .select('person_id', 'role_id');
    const roleIds = [...new Set(held.map((h) => h.role_id))];
    if (roleIds.length === 0) return [];
    const requirements: { role_id: number; competence_id: number; mandatory: boolean }[] = await this.db
      .table('requirements as q')
      .join('competences as c', 'c.id', 'q.competence_id')
      .whereRaw('q.role_id = any(?::int[])', [intArray(roleIds)])
      .where('c.active', true)
      .whereNull('c.parent_id')
      .modify((b) => void (q.competenceIds ? b.whereRaw('q.competence_id = any(?::int[])', [intArray(q.competenceIds)]) : b))
      .select('q.role_id', 'q.competence_id', 'q.mandatory');
    const byRole = new Map<number, { competence_id: number; mandatory: boolean }[]>();
    for (const r of requirements) byRole.set(r.role_id, [...(byRole.get(r.role_id) ?? []), r]);
    const pairs = new Map<string, { person_id: number; competence_id: number; mandatory: boolean }>();
    for (const h of held) {
      for (const r of byRole.get(h.role_id) ?? []) {
        const key = `${h.person_id}:${r.competence_id}`;
        const pair = pairs.get(key);
        // mandatory for one role and optional for another counts as mandatory (PersonCompetenceList.required)
        if (pair) pair.mandatory ||= r.mandatory;
        else pairs.set(key, { person_id: h.person_id, competence_id: r.competence_id, mandatory: r.mandatory });
      }
    }
    return [...pairs.values()].filter((p) => q.includeOptional || p.mandatory);
  }

  /** The competences some of these persons require (the files' columns), sorted as the lists sort: title, id. */
  async columns(personIds: readonly number[], q: MatrixQuery): Promise<MatrixColumn[]> {
    const columns = new Map<number, MatrixColumn>();
    for (let i = 0; i < personIds.length; i += 2000) {
      const ids = [...new Set((await this.requiredPairs(personIds.slice(i, i + 2000), q)).map((p) => p.competence_id))].filter((id) => !columns.has(id));
      for (const c of ids.length ? await this.competences.byIds(ids) : []) columns.set(c.id, { competence_id: c.id, title: c.title });
    }
    return [...columns.values()].sort((a, b) => a.title.localeCompare(b.title) || a.competence_id - b.competence_id);
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
    // sorted once per competence (localeCompare is dear), then every pair by its competence's rank
    const rank = new Map([...rows.values()].sort(byTitle).map((c, i) => [c.id, i]));
    const itemsOf = new Map<number, CompetenceRow[]>();
    for (const i of items) itemsOf.set(i.parent_id!, [...(itemsOf.get(i.parent_id!) ?? []), i]);
    for (const pair of pairs.sort((a, b) => rank.get(a.competence_id)! - rank.get(b.competence_id)!)) {
      const c = rows.get(pair.competence_id)!;
      const mine = regs.get(pair.person_id);
      const children = (itemsOf.get(c.id) ?? []).map((i) => stateOf(i, mine?.get(i.id), [], q.day));
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
        'pc.person_id',
        'pc.competence_id',
        'pc.passed',
        'pc.checked',
        'pc.signed',
        'pc.override',
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
  const q = db
    .table('person_roles as pr')
    .join('requirements as q', 'q.role_id', 'pr.role_id')
    .whereIn('q.competence_id', [...competenceIds])
    .select('pr.person_id');
  return optional ? q : q.where('q.mandatory', true);
}
