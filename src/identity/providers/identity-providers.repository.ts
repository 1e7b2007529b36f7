import type { Paging } from '../../platform/http/param-types';
import { inject, injectable } from 'tsyringe';
import { TENANT_DB } from '../../platform/tokens';
import type { TenantDb } from '../../platform/tenant-scope/tenant-db';

export type MatchField = 'email' | 'user_name' | 'extern_person_id';

export interface IdentityProviderRow {
  id: string;
  name: string;
  type: 'oidc' | 'saml';
  /** OIDC: the issuer URL; SAML: the IdP's entity id (from its metadata). */
  issuer: string;
  /** OIDC only. */
  client_id: string | null;
  /** Write-only for the API: never in an answer, log or audit entry. */
  client_secret: string | null;
  scopes: string;
  match_claim: string;
  match_field: MatchField;
  jit: boolean;
  jit_organisation_id: number | null;
  jit_role_ids: number[];
  /** SAML only: the IdP metadata as given or as fetched once from metadata_url. */
  metadata_xml: string | null;
  metadata_url: string | null;
  /** SAML only: the IdP's SSO URL (HTTP-Redirect binding) and signing certificates (base64 DER), from the metadata. */
  sso_url: string | null;
  certificates: string[];
  created_at: Date;
  updated_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant's identity providers (only TENANT_DB, so only this tenant's). */
@injectable()
export class IdentityProvidersRepository {
  constructor(@inject(TENANT_DB) private readonly db: TenantDb) {}

  list(page: Paging): Promise<IdentityProviderRow[]> {
    return this.db.table('identity_providers').select('*').orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset);
  }

  /** undefined for an id that is no uuid too (another tenant's or made-up). */
  async byId(id: string): Promise<IdentityProviderRow | undefined> {
    if (!UUID.test(id)) return undefined;
    return this.db.table('identity_providers').where({ id }).first();
  }

  async insert(row: Omit<IdentityProviderRow, 'created_at' | 'updated_at'>): Promise<void> {
    await this.db
      .table('identity_providers')
      .insert({ ...row, jit_role_ids: JSON.stringify(row.jit_role_ids), certificates: JSON.stringify(row.certificates) });
  }

  async update(id: string, change: Partial<IdentityProviderRow>): Promise<void> {
    const c: Record<string, unknown> = { ...change, updated_at: this.db.fn.now() };
    if (change.jit_role_ids) c.jit_role_ids = JSON.stringify(change.jit_role_ids);
    if (change.certificates) c.certificates = JSON.stringify(change.certificates);
    await this.db.table('identity_providers').where({ id }).update(c);
  }

  async delete(id: string): Promise<void> {
    await this.db.table('identity_providers').where({ id }).delete();
  }
}
