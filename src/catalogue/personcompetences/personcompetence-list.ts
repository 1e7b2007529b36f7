import { inject, injectable } from 'tsyringe';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT_DB } from '../../platform/tokens';
import { missingIds, type TenantDb } from '../../platform/tenant-scope/tenant-db';
import { CompetenceStates, type CompetenceState } from './competence-state';
import { PersonCompetencesRepository } from './personcompetences.repository';

export interface ListQuery {
  state: 'passed' | 'missing';
  requirement?: 'none' | 'mandatory' | 'optional';
  role_ids?: number[];
  types?: string[];
}

export interface RequiredCompetence {
  competenceId: number;
  mandatory: boolean;
  roleIds: number[];
}

/** Builds GET /api/personcompetences lists: held competences, or required ones not held. */
@injectable()
export class PersonCompetenceList {
  constructor(
    @inject(TENANT_DB) private readonly db: TenantDb,
    @inject(PersonCompetencesRepository) private readonly repo: PersonCompetencesRepository,
    @inject(CompetenceStates) private readonly states: CompetenceStates,
  ) {}

  /** Competences required by the roles: mandatory if mandatory for any of them, else optional. */
  async required(roleIds: number[]): Promise<RequiredCompetence[]> {
    const byCompetence = new Map<number, RequiredCompetence>();
    for (const q of await this.repo.requirements(roleIds)) {
      const r = byCompetence.get(q.competence_id) ?? { competenceId: q.competence_id, mandatory: false, roleIds: [] };
      r.mandatory ||= q.mandatory;
      r.roleIds.push(q.role_id);
      byCompetence.set(q.competence_id, r);
    }
    return [...byCompetence.values()];
  }

  async roleIds(personId: number, given: number[] | undefined): Promise<number[]> {
    if (!given) return this.repo.roleIdsOf(personId);
    const unknown = await missingIds(this.db, 'roles', given);
    if (unknown.length) throw ApiError.notFound(`role ${unknown.join(', ')}`);
    return given;
  }

  async list(personId: number, q: ListQuery): Promise<{ state: CompetenceState; required?: RequiredCompetence }[]> {
    const requirement = q.requirement ?? (q.state === 'missing' || q.role_ids ? 'mandatory' : 'none');
    let required: Map<number, RequiredCompetence> | undefined;
    if (requirement !== 'none') {
      const all = await this.required(await this.roleIds(personId, q.role_ids));
      required = new Map(all.filter((r) => r.mandatory === (requirement === 'mandatory')).map((r) => [r.competenceId, r]));
    }
    const regs = await this.repo.current(personId);
    let ids: number[];
    if (q.state === 'missing') {
      ids = [...(required?.keys() ?? [])];
    } else {
      const registered = await this.db
        .table('competences')
        .whereIn(
          'id',
          regs.map((r) => r.competence_id),
        )
        .select('id', 'parent_id', 'type');
      const parents = new Set<number>();
      for (const c of registered) {
        if (c.parent_id === null) parents.add(c.id);
        else if (c.type === 'checklist_item') parents.add(c.parent_id);
      }
      ids = [...parents].filter((id) => !required || required.has(id));
    }
    const states = await this.states.evaluate(personId, ids, regs);
    return (
      states
        .filter((s) => (q.state === 'passed' ? s.held : !s.held))
        .filter((s) => !q.types || q.types.includes(s.competence.type))
        // Only top-level competences are list items; checklist items come nested in their checklist.
        .filter((s) => s.competence.parent_id === null)
        .sort((a, b) => a.competence.title.localeCompare(b.competence.title) || a.competence.id - b.competence.id)
        .map((state) => ({ state, required: required?.get(state.competence.id) }))
    );
  }
}
