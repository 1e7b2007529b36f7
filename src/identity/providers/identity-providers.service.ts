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
import { parseIdpMetadata } from './saml-metadata';
import { fetchIdpMetadata } from './saml-metadata-fetch';

export interface IdentityProviderInput {
  name?: string;
  type?: string;
  issuer?: string;
  client_id?: string;
  client_secret?: string;
  scopes?: string;
  metadata_xml?: string;
  metadata_url?: string;
  match_claim?: string;
  match_field?: MatchField;
  jit?: boolean;
  jit_organisation_id?: number | null;
  jit_role_ids?: number[];
}

const PARAM = (name: string) => `identityprovider_data[${name}]`;
const OIDC_ONLY = ['issuer', 'client_id', 'client_secret', 'scopes'] as const;
const SAML_ONLY = ['metadata_xml', 'metadata_url'] as const;

/** What may be written to the audit log of a change: everything but the secret (only whether it changed) and the bulky metadata. */
function auditDetails(input: IdentityProviderInput): Record<string, unknown> {
  const { client_secret, metadata_xml, ...rest } = input;
  return {
    ...rest,
    ...(client_secret !== undefined ? { client_secret_changed: true } : {}),
    ...(metadata_xml !== undefined ? { metadata_xml_changed: true } : {}),
  };
}

type SamlFields = Pick<IdentityProviderRow, 'issuer' | 'metadata_xml' | 'metadata_url' | 'sso_url' | 'certificates'>;

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
  /** IDENTITY_PROVIDERS_ALLOW_HTTP: tests and on-premise IdPs on private addresses. */
  get allowsPrivateAddresses(): boolean {
    return this.env.IDENTITY_PROVIDERS_ALLOW_HTTP;
  }

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

  private checkType(type: string | undefined): asserts type is 'oidc' | 'saml' | undefined {
    if (type !== undefined && type !== 'oidc' && type !== 'saml') throw ApiError.malformed(PARAM('type'), 'must be oidc or saml');
  }

  /** Fields of the other type are refused by name rather than silently ignored. */
  private checkFieldsOf(type: 'oidc' | 'saml', input: IdentityProviderInput): void {
    for (const k of type === 'saml' ? OIDC_ONLY : SAML_ONLY) {
      if (input[k] !== undefined) throw ApiError.malformed(PARAM(k), `is for ${type === 'saml' ? 'oidc' : 'saml'} providers only`);
    }
  }

  /**
   * The IdP metadata: metadata_xml as given, or fetched once now from metadata_url; parsed for the
   * entity id, the SSO URL (https unless IDENTITY_PROVIDERS_ALLOW_HTTP=1) and the signing certificates.
   */
  private async samlFields(input: IdentityProviderInput): Promise<SamlFields> {
    if (input.metadata_xml && input.metadata_url) throw ApiError.malformed(PARAM('metadata_url'), 'give metadata_xml or metadata_url, not both');
    const param = input.metadata_url ? PARAM('metadata_url') : PARAM('metadata_xml');
    const xml = input.metadata_url ? await fetchIdpMetadata(input.metadata_url, this.env.IDENTITY_PROVIDERS_ALLOW_HTTP, param) : input.metadata_xml!;
    const md = parseIdpMetadata(xml, param);
    this.checkUrl(md.ssoUrl, param, 'its SSO URL');
    return { issuer: md.entityId, metadata_xml: xml, metadata_url: input.metadata_url ?? null, sso_url: md.ssoUrl, certificates: md.certificates };
  }

  /** A SAML provider's SSO URL, checked at save and again at sign-in (the flag may have changed). */
  checkSsoUrl(p: IdentityProviderRow): string {
    return this.checkUrl(p.sso_url ?? '', PARAM(p.metadata_url ? 'metadata_url' : 'metadata_xml'), 'its SSO URL');
  }

  private checkUrl(raw: string, param: string, what: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw ApiError.malformed(param, `${what} is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.env.IDENTITY_PROVIDERS_ALLOW_HTTP)) {
      throw ApiError.malformed(param, `${what} must be https (http only with IDENTITY_PROVIDERS_ALLOW_HTTP=1)`);
    }
    return raw;
  }

  private checkJit(jit: boolean, organisationId: number | null | undefined, roleIds: number[]): void {
    if (jit && (!organisationId || roleIds.length === 0)) {
      throw ApiError.malformed(PARAM('jit'), 'jit=1 needs jit_organisation_id and at least one of jit_role_ids');
    }
  }

  async create(user: Principal, input: IdentityProviderInput): Promise<IdentityProviderRow> {
    for (const k of ['name', 'type'] as const) if (!input[k]) throw ApiError.missing(PARAM(k));
    const type = input.type;
    this.checkType(type);
    this.checkFieldsOf(type!, input);
    let fields: SamlFields & Pick<IdentityProviderRow, 'client_id' | 'client_secret' | 'scopes'>;
    if (type === 'saml') {
      if (!input.metadata_xml && !input.metadata_url) throw ApiError.missing(PARAM('metadata_xml'));
      fields = { ...(await this.samlFields(input)), client_id: null, client_secret: null, scopes: '' };
    } else {
      for (const k of ['issuer', 'client_id'] as const) if (!input[k]) throw ApiError.missing(PARAM(k));
      const oidc = {
        issuer: this.checkIssuer(input.issuer!),
        client_id: input.client_id!,
        client_secret: input.client_secret || null,
        scopes: input.scopes || 'openid email profile',
      };
      fields = { ...oidc, metadata_xml: null, metadata_url: null, sso_url: null, certificates: [] };
    }
    const row = {
      id: randomUUID(),
      name: input.name!,
      type: type!,
      ...fields,
      // SAML: the NameID unless an attribute is named
      match_claim: input.match_claim || (type === 'saml' ? 'nameid' : 'email'),
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
    if (input.type && input.type !== before.type) throw ApiError.malformed(PARAM('type'), `cannot change (${before.type}): add a new provider instead`);
    this.checkFieldsOf(before.type, input);
    // A new metadata_url (or the same one again) is fetched again: how certificates are renewed.
    const change: Partial<IdentityProviderRow> = input.metadata_xml || input.metadata_url ? await this.samlFields(input) : {};
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
