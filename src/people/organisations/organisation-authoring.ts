import { inject, injectable } from 'tsyringe';
import { UnitOfWork, type Transaction } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { PersonAccess } from '../person-access';
import { PersonDirectory } from '../person-directory';
import { OrganisationsRepository, type OrganisationRow } from './organisations.repository';
import { OrganisationManagersRepository } from './organisation-managers.repository';

/** organisation_data of PUT /api/organisations/[id]: only the fields given change. */
export interface OrganisationUpdateData {
  name?: string;
  /** 0: make it a root. */
  parent_id?: number;
  email?: string | null;
  address?: string | null;
  phone?: string | null;
  extern_organisation_id?: string | null;
}

const TEXT_FIELDS = ['name', 'email', 'address', 'phone', 'extern_organisation_id'] as const;

/** The 403 of a change a caller may not make to an organisation (PUT, DELETE, its managers). */
export function notBelowManaged(action: string): ApiError {
  return ApiError.forbidden(
    `not authorised to ${action}: only a superuser, or a manager of an organisation above it, may (a manager never changes the organisation they are assigned to manage itself)`,
  );
}

/**
 * Administers the organisation tree: PUT and DELETE /api/organisations/[id] and its managers.
 * Allowed to a superuser anywhere, and to a manager for organisations strictly below one they are
 * assigned to manage (they manage its parent): never the organisation they manage itself, an
 * organisation above, nor a move outside what they manage. Each check is made again inside the
 * transaction, with the rows locked. Every change writes its audit entry (organisation.updated|deleted,
 * manager.added|removed) in the same transaction; who manages what is read fresh on every request
 * (PersonAccess) and the cached reads drop on the organisations/organisation_managers triggers.
 */
@injectable()
export class OrganisationAuthoring {
  constructor(@inject(UnitOfWork) private readonly uow: UnitOfWork) {}

  /** The organisation, locked, and the caller's right to administer it. */
  private async lockFor(tx: Transaction, user: Principal, id: number, action: string): Promise<OrganisationRow> {
    const row = await tx.get(OrganisationsRepository).findForUpdate(id);
    if (!row) throw ApiError.notFound(`organisation ${id}`);
    if (!(await mayAdminister(tx.get(PersonAccess), user, row))) throw notBelowManaged(action);
    return row;
  }

  /** Changes the fields given; a new parent_id moves the organisation with everything below it. */
  async update(user: Principal, id: number, data: OrganisationUpdateData): Promise<{ row: OrganisationRow; message: string }> {
    return this.uow.run(async (tx) => {
      const orgs = tx.get(OrganisationsRepository);
      if (data.parent_id !== undefined) await orgs.lockTree();
      const row = await this.lockFor(tx, user, id, 'change this organisation');
      const columns: Partial<OrganisationRow> = {};
      for (const k of TEXT_FIELDS) if (data[k] !== undefined && data[k] !== row[k]) (columns as Record<string, unknown>)[k] = data[k];
      const to = data.parent_id === undefined ? row.parent_id : data.parent_id || null;
      if (to !== row.parent_id) {
        await this.checkMove(tx, user, row, to);
        columns.parent_id = to;
      }
      const fields = Object.keys(columns);
      if (!fields.length) return { row, message: 'nothing changed' };
      await orgs.update(id, columns);
      const moved = 'parent_id' in columns ? { from_parent_id: row.parent_id ?? 0, to_parent_id: to ?? 0 } : {};
      await tx.get(AuditTrail).record({ type: 'organisation.updated', actor: user.userName, subject: String(id), details: { fields, ...moved } });
      return { row: (await orgs.findById(id))!, message: 'organisation updated' };
    });
  }

  /** A move under `to` (null: a root): never under itself or its own subtree (420), a manager only within what they manage (403). */
  private async checkMove(tx: Transaction, user: Principal, row: OrganisationRow, to: number | null): Promise<void> {
    if (to === null) {
      if (!user.superuser) throw ApiError.forbidden('not authorised to make a root organisation: superusers only');
      return;
    }
    const orgs = tx.get(OrganisationsRepository);
    const param = 'organisation_data[parent_id]';
    if (to === row.id) throw ApiError.malformed(param, `organisation ${row.id} cannot be its own parent`);
    if (!(await orgs.findById(to))) throw ApiError.malformed(param, `no organisation ${to}`);
    if (await orgs.isWithin(row.id, to))
      throw ApiError.malformed(param, `organisation ${to} lies below organisation ${row.id}; moving it there would make a cycle`);
    if (!user.superuser && !(await tx.get(PersonAccess).managesOrganisation(user, to))) {
      throw ApiError.forbidden(
        `not authorised to move this organisation under organisation ${to}: a manager moves organisations only within the ones they manage`,
      );
    }
  }

  /**
   * Deletes an empty organisation: no members (of any state), no sub-organisations, and nothing
   * `elsewhere` names (other modules' uses, as "3 event(s) hosted by it"), else 409 naming what
   * it holds. Its manager assignments end with it (an audit entry manager.removed each).
   */
  async delete(user: Principal, id: number, elsewhere: () => Promise<string[]>): Promise<OrganisationRow> {
    return this.uow.run(async (tx) => {
      const orgs = tx.get(OrganisationsRepository);
      await orgs.lockTree();
      const row = await this.lockFor(tx, user, id, 'delete this organisation');
      const own = await orgs.holdings(id);
      const held = [
        ...(own.persons ? [`${own.persons} person(s)`] : []),
        ...(own.children ? [`${own.children} sub-organisation(s)`] : []),
        ...(await elsewhere()),
      ];
      if (held.length) throw new ApiError(409, `organisation ${id} "${row.name}" is not empty: it holds ${held.join(', ')}; move or remove them first`);
      const managers = (await tx.get(OrganisationManagersRepository).managersOf(id)).map((m) => m.user_name);
      await orgs.remove(id);
      const audit = tx.get(AuditTrail);
      await audit.record({
        type: 'organisation.deleted',
        actor: user.userName,
        subject: String(id),
        details: { name: row.name, parent_id: row.parent_id ?? 0, managers },
      });
      for (const m of managers) {
        await audit.record({
          type: 'manager.removed',
          actor: user.userName,
          subject: m,
          details: { organisation_id: id, organisation: row.name, organisation_deleted: true },
        });
      }
      return row;
    });
  }

  /** Assigns the person to manage the organisation (and so everything below it). */
  async addManager(user: Principal, id: number, userName: string): Promise<string> {
    return this.uow.run(async (tx) => {
      const row = await this.lockFor(tx, user, id, 'appoint managers of this organisation');
      const person = await this.person(tx, userName);
      // a deactivated account cannot log in: appointing it would grant rights nobody can use, and hide the mistake
      if (person.deactivated_at) throw new ApiError(409, `${userName} is deactivated; reactivate them before appointing them as a manager`);
      if (!user.superuser) {
        if (person.id === user.personId)
          throw ApiError.forbidden('not authorised to make yourself a manager: only a superuser may (a manager never widens their own rights)');
        if (!(await tx.get(PersonAccess).canActAsManagerOf(user, person))) {
          throw ApiError.forbidden(`not authorised to appoint ${userName}: a manager appoints only persons they manage (not someone who manages them)`);
        }
      }
      if (!(await tx.get(OrganisationManagersRepository).add(person.id, id))) return `${userName} already manages organisation ${id}; nothing changed`;
      await tx
        .get(AuditTrail)
        .record({ type: 'manager.added', actor: user.userName, subject: userName, details: { organisation_id: id, organisation: row.name } });
      return `${userName} now manages organisation ${id}`;
    });
  }

  /** Ends the person's assignment to manage the organisation (what they manage above it stays). */
  async removeManager(user: Principal, id: number, userName: string): Promise<string> {
    return this.uow.run(async (tx) => {
      const row = await this.lockFor(tx, user, id, 'remove managers of this organisation');
      const person = await this.person(tx, userName);
      if (!user.superuser && person.id !== user.personId && (await tx.get(PersonAccess).managesCaller(user, person.id))) {
        throw ApiError.forbidden(`not authorised to remove ${userName}: they manage you; only a superuser may`);
      }
      if (!(await tx.get(OrganisationManagersRepository).remove(person.id, id))) return `${userName} does not manage organisation ${id}; nothing changed`;
      await tx
        .get(AuditTrail)
        .record({ type: 'manager.removed', actor: user.userName, subject: userName, details: { organisation_id: id, organisation: row.name } });
      return `${userName} no longer manages organisation ${id}`;
    });
  }

  private async person(tx: Transaction, userName: string) {
    const person = await tx.get(PersonDirectory).find({ user_name: userName }, ['id', 'user_name', 'organisation_id', 'deactivated_at']);
    if (!person) throw ApiError.notFound(`person "${userName}"`);
    return person;
  }
}

/** Superuser, or a manager of the organisation's parent (so of an organisation strictly above it). */
export async function mayAdminister(access: PersonAccess, user: Principal, row: Pick<OrganisationRow, 'parent_id'>): Promise<boolean> {
  return user.superuser || (row.parent_id !== null && (await access.managesOrganisation(user, row.parent_id)));
}
