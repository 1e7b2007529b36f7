import type { Paging } from '../../platform/http/param-types';
import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { AuditTrail } from '../../platform/audit/audit-trail';
import { ENV } from '../../platform/tokens';
import type { Env } from '../../platform/config/env';
import { IdentityProvidersRepository, type IdentityProviderRow, type MatchField } from './identity-providers.repository';

export interface IdentityProviderInput {
  name?: string;
  type?: string;
  issuer?: string;
  client_id?: string;
  client_secret?: string;
  scopes?: string;
  match_claim?: string;
  match_field?: MatchField;
  jit?: boolean;
  jit_organisation_id?: number | null;
  jit_role_ids?: number[];
}

const PARAM = (name: string) => `identityprovider_data[${name}]`;

/** What may be written to the audit log of a change: everything but the secret (only whether it changed). */
function auditDetails(input: IdentityProviderInput): Record<string, unknown> {
  const { client_secret, ...rest } = input;
  return { ...rest, ...(client_secret !== undefined ? { client_secret_changed: true } : {}) };
}

/** Identity provider administration (the routes admit superusers only); every change is audited without secrets. */
@injectable()
export class IdentityProvidersService {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(IdentityProvidersRepository) private readonly repo: IdentityProvidersRepository,
    @inject(ENV) private readonly env: Env,
  ) {}

  list(page: Paging): Promise<IdentityProviderRow[]> {
    return this.repo.list(page);
  }

  async get(id: string): Promise<IdentityProviderRow> {
    const row = await this.repo.byId(id);
    if (!row) throw ApiError.notFound(`identity provider ${id}`);
    return row;
  }

  /** https only, unless IDENTITY_PROVIDERS_ALLOW_HTTP=1; no query, fragment or credentials. */
  checkIssuer(issuer: string): string {
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw ApiError.malformed(PARAM('issuer'), 'must be an absolute https URL');
    }
    const http = url.protocol === 'http:' && this.env.IDENTITY_PROVIDERS_ALLOW_HTTP;
    if (url.protocol !== 'https:' && !http) {
      throw ApiError.malformed(PARAM('issuer'), 'must be https (http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1)');
    }
    if (url.username || url.password || url.search || url.hash) throw ApiError.malformed(PARAM('issuer'), 'must have no credentials, query or fragment');
    return issuer.replace(/\/+$/, '') === url.origin ? url.origin : issuer;
  }

  private checkType(type: string | undefined): void {
    if (type === 'saml') throw ApiError.malformed(PARAM('type'), 'saml is not supported yet; use oidc');
    if (type !== undefined && type !== 'oidc') throw ApiError.malformed(PARAM('type'), 'must be oidc');
  }

  private checkJit(jit: boolean, organisationId: number | null | undefined, roleIds: number[]): void {
    if (jit && (!organisationId || roleIds.length === 0)) {
      throw ApiError.malformed(PARAM('jit'), 'jit=1 needs jit_organisation_id and at least one of jit_role_ids');
    }
  }

  async create(user: Principal, input: IdentityProviderInput): Promise<IdentityProviderRow> {
    for (const k of ['name', 'type', 'issuer', 'client_id'] as const) if (!input[k]) throw ApiError.missing(PARAM(k));
    this.checkType(input.type);
    const row = {
      id: randomUUID(),
      name: input.name!,
      type: 'oidc' as const,
      issuer: this.checkIssuer(input.issuer!),
      client_id: input.client_id!,
      client_secret: input.client_secret || null,
      scopes: input.scopes || 'openid email profile',
      match_claim: input.match_claim || 'email',
      match_field: input.match_field ?? 'email',
      jit: input.jit ?? false,
      jit_organisation_id: input.jit_organisation_id ?? null,
      jit_role_ids: [...new Set(input.jit_role_ids ?? [])],
    };
    this.checkJit(row.jit, row.jit_organisation_id, row.jit_role_ids);
    await this.uow.run(async (tx) => {
      await tx.get(IdentityProvidersRepository).insert(row);
      await tx.get(AuditTrail).record({ type: 'identityprovider.created', actor: user.userName, subject: row.id, details: auditDetails(input) });
    });
    return this.get(row.id);
  }

  async update(user: Principal, id: string, input: IdentityProviderInput): Promise<IdentityProviderRow> {
    const before = await this.get(id);
    this.checkType(input.type);
    const change: Partial<IdentityProviderRow> = {};
    if (input.name) change.name = input.name;
    if (input.issuer !== undefined) change.issuer = this.checkIssuer(input.issuer);
    if (input.client_id) change.client_id = input.client_id;
    // "" removes the secret (a public client with PKCE only)
    if (input.client_secret !== undefined) change.client_secret = input.client_secret || null;
    if (input.scopes) change.scopes = input.scopes;
    if (input.match_claim) change.match_claim = input.match_claim;
    if (input.match_field) change.match_field = input.match_field;
    if (input.jit !== undefined) change.jit = input.jit;
    if (input.jit_organisation_id !== undefined) change.jit_organisation_id = input.jit_organisation_id || null;
    if (input.jit_role_ids !== undefined) change.jit_role_ids = [...new Set(input.jit_role_ids)];
    const after = { ...before, ...change };
    this.checkJit(after.jit, after.jit_organisation_id, after.jit_role_ids);
    await this.uow.run(async (tx) => {
      await tx.get(IdentityProvidersRepository).update(id, change);
      await tx.get(AuditTrail).record({ type: 'identityprovider.updated', actor: user.userName, subject: id, details: auditDetails(input) });
    });
    return this.get(id);
  }

  async delete(user: Principal, id: string): Promise<IdentityProviderRow> {
    const row = await this.get(id);
    await this.uow.run(async (tx) => {
      await tx.get(IdentityProvidersRepository).delete(id);
      await tx.get(AuditTrail).record({ type: 'identityprovider.deleted', actor: user.userName, subject: id, details: { name: row.name, issuer: row.issuer } });
    });
    return row;
  }
}
