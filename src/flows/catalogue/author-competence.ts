import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { TENANT_DB } from '../../platform/tokens';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { PersonDirectory } from '../../people';
import { CompetenceWriter, misfitChildren, referencesStillThere, surveyOf, type CompetenceRow } from '../../catalogue';
import { competenceUsage } from '../../courses';
import { BrowseCompetencesFlow } from './browse-competences';
import { CompetenceAuthoring } from './competence-authoring-access';
import { CompetenceInput, type CompetenceData, type ResolvedCompetence } from './competence-input';

/**
 * POST, PUT and DELETE /api/competences: the catalogue writes the competence, people names its
 * owner and instructor, courses tells whether events or survey answers use it. Each change is one
 * transaction with its audit entry (`competence.created|updated|deleted`) and its webhook event
 * (`competence.*`, the simple view; a deletion `{competence_id, title, type, deleted: true}`).
 * Who may call is the routes' rule (`competenceCreator`, `competenceAuthor`); what only
 * superusers and superadmins may change (the owner, a move under another parent) is checked here.
 */
@injectable()
export class CompetenceAuthoringFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(CompetenceInput) private readonly input: CompetenceInput,
    @inject(CompetenceAuthoring) private readonly authoring: CompetenceAuthoring,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  /** Creates the competence; answers its id. */
  async create(user: Principal, data: CompetenceData): Promise<number> {
    if (data.owner_user_name !== undefined && data.owner_user_name !== user.userName)
      await this.assertAdmin(user, 'give a competence an owner other than yourself');
    const r = await this.input.resolve(data, null);
    return referencesStillThere(() =>
      this.uow.run(async (tx) => {
        if (r.parent) await tx.get(CompetenceWriter).lock([r.parent.id]);
        const id = await tx.get(CompetenceWriter).insert(r.columns);
        await this.writeSets(tx, id, r);
        await this.recorded(tx, user, 'competence.created', id, Object.keys(data));
        return id;
      }),
    );
  }

  /** Changes the fields given of `current` (the row the route's rule read). */
  async update(user: Principal, current: CompetenceRow, data: CompetenceData): Promise<void> {
    await this.assertOwnerMayChange(user, current, data);
    const r = await this.input.resolve(data, current);
    await referencesStillThere(() =>
      this.uow.run(async (tx) => {
        const writer = tx.get(CompetenceWriter);
        const [locked] = await writer.lock([current.id]);
        if (!locked) throw ApiError.notFound(`competence ${current.id}`);
        if (data.type !== undefined && data.type !== locked.type) await this.assertTypeMayChange(tx, locked, data.type);
        await writer.update(current.id, r.columns);
        await this.writeSets(tx, current.id, r);
        await this.recorded(tx, user, 'competence.updated', current.id, Object.keys(data));
      }),
    );
  }

  /**
   * Deletes a competence with its modules, items or questions when nothing holds or uses any of
   * them, else 409 naming what does. Answers the simple view it had.
   */
  async delete(user: Principal, id: number): Promise<Record<string, unknown>> {
    return this.uow.run(async (tx) => {
      const writer = tx.get(CompetenceWriter);
      const subtree = await writer.subtree(id);
      if (subtree.length === 0) throw ApiError.notFound(`competence ${id}`);
      const ids = subtree.map((c) => c.id);
      await writer.lock(ids);
      const holds = await writer.holds(ids);
      const db = tx.get(TENANT_DB);
      const usage = await competenceUsage(db, ids);
      // a question's answers are stored with its survey: they name it
      const survey = subtree[0].type === 'question' ? await surveyOf(db, id) : null;
      if (survey !== null) usage.surveyAnswers += (await competenceUsage(db, [survey])).surveyAnswers;
      const reasons = [
        holds.persons && `held by ${holds.persons} person(s)`,
        usage.events && `used by ${usage.events} event(s)`,
        usage.prerequisiteOf && `a prerequisite of ${usage.prerequisiteOf} event(s)`,
        usage.surveyAnswers && `answered in ${usage.surveyAnswers} survey answer(s)`,
        holds.roles && `required by ${holds.roles} role(s)`,
      ].filter(Boolean);
      if (reasons.length) {
        const what = subtree.length > 1 ? `competence ${id} (or one of the ${subtree.length - 1} inside it)` : `competence ${id}`;
        throw new ApiError(409, `${what} is ${reasons.join(', ')}; deactivate it with active=0 instead`);
      }
      const [view] = await tx.get(BrowseCompetencesFlow).one(id, 'simple');
      await writer.delete(subtree);
      const root = subtree[0];
      const details = { title: root.title, type: root.type, ...(ids.length > 1 ? { with: ids.slice(1) } : {}) };
      await tx.get(AuditTrail).record({ type: 'competence.deleted', actor: user.userName, subject: String(id), details });
      for (const c of subtree) {
        await tx.get(OUTBOUND_EVENTS).record('competence.deleted', { competence_id: c.id, title: c.title, type: c.type, deleted: true });
      }
      return view;
    });
  }

  private async writeSets(tx: Transaction, id: number, r: ResolvedCompetence): Promise<void> {
    if (r.categoryIds) await tx.get(CompetenceWriter).setCategories(id, r.categoryIds);
    if (r.attributeIds) await tx.get(CompetenceWriter).setAttributes(id, r.attributeIds);
  }

  /** The audit entry and the webhook event (simple view, read only when an endpoint wants it). */
  private async recorded(tx: Transaction, user: Principal, type: 'competence.created' | 'competence.updated', id: number, fields: string[]): Promise<void> {
    await tx.get(AuditTrail).record({ type, actor: user.userName, subject: String(id), details: { fields } });
    await tx.get(OUTBOUND_EVENTS).record(type, async () => {
      const [view] = await tx.get(BrowseCompetencesFlow).one(id, 'simple');
      return type === 'competence.updated' ? { ...view, changed: fields } : view;
    });
  }

  /** The type is fixed once registrations, events or survey answers use it, or children would not fit. */
  private async assertTypeMayChange(tx: Transaction, c: CompetenceRow, type: string): Promise<void> {
    const writer = tx.get(CompetenceWriter);
    if (await writer.hasRegistrations(c.id)) {
      throw new ApiError(409, `competence ${c.id} has registrations: its type cannot change from ${c.type}; create a new competence instead`);
    }
    const usage = await competenceUsage(tx.get(TENANT_DB), [c.id]);
    if (usage.events || usage.surveyAnswers) {
      throw new ApiError(
        409,
        `competence ${c.id} is used by ${usage.events} event(s) and ${usage.surveyAnswers} survey answer(s): its type cannot change from ${c.type}`,
      );
    }
    const children = (await writer.subtree(c.id)).filter((k) => k.parent_id === c.id);
    const misfits = misfitChildren(
      type,
      children.map((k) => k.type),
    );
    if (misfits.length) throw new ApiError(409, `competence ${c.id} holds ${misfits.join(', ')} competences, which a ${type} cannot hold`);
  }

  /** An owner (not superuser or superadmin) may not hand the competence over nor move it outside what they own. */
  private async assertOwnerMayChange(user: Principal, current: CompetenceRow, data: CompetenceData): Promise<void> {
    if (await this.authoring.isCatalogueAdmin(user)) return;
    if (data.owner_user_name !== undefined) {
      const owner = current.owner_id === null ? null : ((await this.persons.userNames([current.owner_id])).get(current.owner_id) ?? null);
      if (data.owner_user_name !== owner) throw ApiError.forbidden('not authorised to change the owner of a competence: superusers and superadmins only');
    }
    if (data.parent_id != null && data.parent_id !== current.parent_id) {
      await this.authoring.assertMayAuthor(user, data.parent_id, 'move the competence under this parent');
    }
  }

  private async assertAdmin(user: Principal, action: string): Promise<void> {
    if (!(await this.authoring.isCatalogueAdmin(user))) throw ApiError.forbidden(`not authorised to ${action}: superusers and superadmins only`);
  }
}
