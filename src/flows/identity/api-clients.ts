import type { Paging } from '../../platform/http/param-types';
import { inject, injectable } from 'tsyringe';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit';
import { OrganisationsRepository, PersonDirectory } from '../../people';
import { ApiClientsRepository, newClientId, newClientSecret, sha256Hex, type ApiClientRow, type ApiClientScope } from '../../identity';

export interface NewApiClient {
  name: string;
  scopes: ApiClientScope[];
  run_as_user_name?: string;
  /** SCIM: where persons whose `department` names no organisation go. */
  scim_default_organisation_id?: number;
}

/** An API client as answered: the row, the run-as person's and the creator's user names; the secret only on creation and rotation. */
export interface ApiClientView {
  row: ApiClientRow;
  runAs: string | null;
  createdBy: string | null;
  secret?: string;
}

/**
 * POST/GET/DELETE /api/apiclients and rotate_secret (issue 37): the client's row (identity), its
 * run-as person and creator (people), the audit entry in the same transaction. The secret is made
 * here, answered once and stored only as its SHA-256; audit details never carry it.
 */
@injectable()
export class ApiClientsFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(ApiClientsRepository) private readonly clients: ApiClientsRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(OrganisationsRepository) private readonly organisations: OrganisationsRepository,
  ) {}

  async create(user: Principal, input: NewApiClient): Promise<ApiClientView> {
    const needsRunAs = input.scopes.some((s) => s === 'api.read' || s === 'api.write');
    let runAsId: number | null = null;
    if (input.run_as_user_name !== undefined) {
      const person = await this.persons.find({ user_name: input.run_as_user_name }, ['id', 'deactivated_at']);
      if (!person) throw new ApiError(404, `person ${input.run_as_user_name} not found`, { parameter: 'apiclient_data[run_as_user_name]' });
      if (person.deactivated_at) throw new ApiError(409, `${input.run_as_user_name} is deactivated and cannot be an API client's run-as person`);
      runAsId = person.id;
    } else if (needsRunAs) {
      throw ApiError.missing('apiclient_data[run_as_user_name]');
    }
    if (input.scim_default_organisation_id !== undefined && !(await this.organisations.findById(input.scim_default_organisation_id))) {
      throw new ApiError(404, `organisation ${input.scim_default_organisation_id} not found`, { parameter: 'apiclient_data[scim_default_organisation_id]' });
    }
    const secret = newClientSecret();
    const row = await this.uow.run(async (tx) => {
      const r = await tx.get(ApiClientsRepository).insert({
        scim_default_organisation_id: input.scim_default_organisation_id ?? null,
        client_id: newClientId(),
        name: input.name,
        scopes: input.scopes,
        run_as_person_id: runAsId,
        secret_hash: sha256Hex(secret),
        created_by: user.personId,
      });
      await tx.get(AuditTrail).record({
        type: 'apiclient.created',
        actor: user.userName,
        subject: r.client_id,
        details: {
          name: r.name,
          scopes: r.scopes,
          run_as_user_name: input.run_as_user_name ?? null,
          scim_default_organisation_id: r.scim_default_organisation_id,
        },
      });
      return r;
    });
    return { row, runAs: input.run_as_user_name ?? null, createdBy: user.userName, secret };
  }

  async list(page: Paging): Promise<ApiClientView[]> {
    return Promise.all((await this.clients.list(page)).map((r) => this.view(r)));
  }

  async get(clientId: string): Promise<ApiClientView> {
    return this.view(await this.found(this.clients.byClientId(clientId), clientId));
  }

  /** Deletes the client: its tokens name a client that no longer exists, so they end at once (BearerAuthScheme). */
  async delete(user: Principal, clientId: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const row = await this.found(tx.get(ApiClientsRepository).lockByClientId(clientId), clientId);
      await tx.get(ApiClientsRepository).delete(clientId);
      await tx.get(AuditTrail).record({ type: 'apiclient.deleted', actor: user.userName, subject: clientId, details: { name: row.name, scopes: row.scopes } });
    });
  }

  /** A new secret, answered once; the old one fails at once, and the tokens issued under it end (secret_version). */
  async rotateSecret(user: Principal, clientId: string): Promise<ApiClientView> {
    const secret = newClientSecret();
    const row = await this.uow.run(async (tx) => {
      await this.found(tx.get(ApiClientsRepository).lockByClientId(clientId), clientId);
      const r = (await tx.get(ApiClientsRepository).rotateSecret(clientId, sha256Hex(secret)))!;
      await tx
        .get(AuditTrail)
        .record({ type: 'apiclient.secret_rotated', actor: user.userName, subject: clientId, details: { name: r.name, secret_version: r.secret_version } });
      return r;
    });
    return { ...(await this.view(row)), secret };
  }

  private async found(p: Promise<ApiClientRow | undefined>, clientId: string): Promise<ApiClientRow> {
    const row = await p;
    if (!row) throw ApiError.notFound(`API client ${clientId}`);
    return row;
  }

  private async view(row: ApiClientRow): Promise<ApiClientView> {
    const name = async (id: number | null) => (id === null ? null : ((await this.persons.find({ id }, ['user_name']))?.user_name ?? null));
    return { row, runAs: await name(row.run_as_person_id), createdBy: await name(row.created_by) };
  }
}
