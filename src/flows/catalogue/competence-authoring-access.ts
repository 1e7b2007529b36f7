import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import type { AccessCheck, AccessRule } from '../../platform/http/access';
import { ApiError } from '../../platform/errors/api-error';
import { PersonAccess } from '../../people';
import { CompetenceWriter, CompetencesRepository, type CompetenceRow } from '../../catalogue';

/** Where a rule finds the competence id in the input: a parameter name, or a function of the parsed input. */
export type CompetenceIdIn = string | ((input: any) => number | null | undefined);

const idIn = (where: CompetenceIdIn, input: any): number | null | undefined => (typeof where === 'string' ? input[where] : where(input));

/**
 * Who may author a competence (issue 35 item 5): superusers and superadmins every competence; the
 * owner of a competence (competences.owner_id) that competence and everything inside it (the
 * owner of a course its modules, of a checklist its items, of a survey its questions).
 * Reusable: the calendar's event routes ask the same question of an event's competence.
 */
@injectable()
export class CompetenceAuthoring {
  constructor(
    @inject(PersonAccess) private readonly access: PersonAccess,
    @inject(CompetenceWriter) private readonly competences: CompetenceWriter,
  ) {}

  /** Superuser or superadmin: may author every competence, create top-level ones and delete. */
  async isCatalogueAdmin(user: Principal): Promise<boolean> {
    return user.superuser || (await this.access.isSuperadmin(user));
  }

  /**
   * Whether `user` may author the competence: a superuser, a superadmin, or the owner of the
   * competence or of one above it. false for an unknown competence (check existence first where
   * that must be a 404).
   */
  async mayAuthor(user: Principal, competenceId: number): Promise<boolean> {
    if (user.superuser) return true;
    const owners = await this.competences.ownersUp(competenceId);
    if (owners === null) return false;
    return owners.includes(user.personId) || (await this.access.isSuperadmin(user));
  }

  /** mayAuthor, or 403 "not authorised to <action>: ...". */
  async assertMayAuthor(user: Principal, competenceId: number, action: string): Promise<void> {
    if (!(await this.mayAuthor(user, competenceId))) throw ApiError.forbidden(`not authorised to ${action}: ${AUTHOR_TEXT}`);
  }
}

const AUTHOR_TEXT = 'superusers, superadmins and the owner of the competence (or of the competence it belongs to) only';

/**
 * Route rule: the competence named by `where` must exist (404) and the caller may author it
 * (`CompetenceAuthoring.mayAuthor`, else 403). The handler gets the competence row as ctx.target.
 * For events: `competenceAuthor((i) => i.event_data?.competence_id, 'create events of this competence')`.
 */
export function competenceAuthor(where: CompetenceIdIn, action: string): AccessRule<CompetenceRow> {
  return {
    security: `superuser, superadmin, the owner of the competence${typeof where === 'string' ? ` ${where}` : ''} (or of the competence it belongs to)`,
    login: true,
    async check(ctx: AccessCheck, input: unknown) {
      const id = idIn(where, input);
      const row = id == null ? undefined : await ctx.resolve(CompetencesRepository).byId(id);
      if (!row) throw ApiError.notFound(`competence ${id}`);
      await ctx.resolve(CompetenceAuthoring).assertMayAuthor(ctx.user, row.id, action);
      return row;
    },
  };
}

/**
 * Route rule of POST /api/competences: superusers and superadmins; the owner of the parent
 * (`where`: the parent_id in the input) for a module, checklist item or question inside it.
 */
export function competenceCreator(where: CompetenceIdIn): AccessRule<undefined> {
  return {
    security: 'superuser, superadmin; for a competence with a parent_id (module, checklist item, question) also the owner of the parent',
    login: true,
    async check(ctx: AccessCheck, input: unknown) {
      const authoring = ctx.resolve(CompetenceAuthoring);
      if (await authoring.isCatalogueAdmin(ctx.user)) return undefined;
      const parentId = idIn(where, input);
      if (parentId != null && (await authoring.mayAuthor(ctx.user, parentId))) return undefined;
      throw ApiError.forbidden(
        `not authorised to create this competence: superusers and superadmins; modules, items and questions also the owner of their parent`,
      );
    },
  };
}
