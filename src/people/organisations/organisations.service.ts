import { inject, injectable } from 'tsyringe';
import type { ViewName } from '../../platform/http/param-types';
import { PersonAccess } from '../person-access';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import type { Paging } from '../../platform/http/param-types';
import { PersonDirectory } from '../person-directory';
import { OrganisationsRepository, type OrganisationFilter, type OrganisationRow } from './organisations.repository';
import { presentOrganisationFull, presentOrganisationSimple } from './organisation.presenter';

export type OrganisationView = ViewName;

export interface OrganisationData {
  name: string;
  parent_id?: number;
  email?: string | null;
  address?: string | null;
  phone?: string | null;
  extern_organisation_id?: string | null;
}

/** The organisation tree: superusers see and change all of it, managers the subtrees they manage. */
@injectable()
export class OrganisationsService {
  constructor(
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(PersonAccess) private readonly access: PersonAccess,
  ) {}

  async requireById(id: number): Promise<OrganisationRow> {
    const row = await this.organisations.findById(id);
    if (!row) throw ApiError.notFound(`organisation ${id}`);
    return row;
  }

  async get(id: number, view: OrganisationView): Promise<object> {
    return this.present(await this.requireById(id), view);
  }

  async present(row: OrganisationRow, view: OrganisationView): Promise<object> {
    if (view === 'simple') return presentOrganisationSimple(row);
    const [parent, children] = await Promise.all([
      row.parent_id === null ? undefined : this.organisations.findById(row.parent_id),
      this.organisations.children(row.id),
    ]);
    return presentOrganisationFull(row, parent, children);
  }

  async list(user: Principal, query: { parent_id?: number; user_name?: string }, page: Paging, view: OrganisationView) {
    const filter: OrganisationFilter = {};
    let managed: Set<number> | undefined;
    if (!user.superuser) {
      // the route lets managers in; each sees the subtrees they manage
      managed = await this.access.managedOrganisationIds(user.personId);
      filter.ids = [...managed];
    }
    if (query.parent_id === 0) {
      // a manager's "roots" are the tops of the subtrees they manage
      if (managed) filter.ids = await this.topsOf(managed);
      else filter.parentId = null;
    } else if (query.parent_id !== undefined) {
      await this.requireById(query.parent_id);
      filter.parentId = query.parent_id;
    }
    if (query.user_name !== undefined) {
      const person = await this.persons.find({ user_name: query.user_name }, ['organisation_id']);
      if (!person) throw ApiError.notFound(`person "${query.user_name}"`);
      const own = person.organisation_id === null ? [] : [person.organisation_id];
      filter.ids = filter.ids ? filter.ids.filter((id) => own.includes(id)) : own;
    }
    const rows = await this.organisations.list(filter, page);
    return Promise.all(rows.map((r) => this.present(r, view)));
  }

  private async topsOf(managed: Set<number>): Promise<number[]> {
    const rows = await this.organisations.list({ ids: [...managed] }, { limit: managed.size, offset: 0 });
    return rows.filter((r) => r.parent_id === null || !managed.has(r.parent_id)).map((r) => r.id);
  }

  async create(user: Principal, data: OrganisationData): Promise<OrganisationRow> {
    const parentId = data.parent_id ? data.parent_id : null;
    if (parentId === null) {
      if (!user.superuser) throw ApiError.forbidden('not authorised to create a root organisation: superusers only');
    } else {
      await this.requireById(parentId);
      await this.access.assertManagesOrganisation(user, parentId, 'create organisations under this organisation');
    }
    const id = await this.organisations.insert({
      parent_id: parentId,
      name: data.name,
      email: data.email ?? null,
      address: data.address ?? null,
      phone: data.phone ?? null,
      extern_organisation_id: data.extern_organisation_id ?? null,
    });
    return (await this.organisations.findById(id))!;
  }
}
