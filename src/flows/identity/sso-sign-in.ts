import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { PersonCreateData, PersonDirectory, isDeactivated, type PersonKeyOf } from '../../people';
import {
  IdentityProvidersService,
  LoginService,
  OidcRelyingParty,
  SamlServiceProvider,
  SsoRefused,
  ssoEndpoints,
  type IdentityProviderRow,
} from '../../identity';
import { CreatePersonFlow } from '../persons/create-person';

export interface SsoSignInResult {
  sessionId: string;
  personId: number;
  userName: string;
  forwardUrl: string;
}

/**
 * OIDC and SAML sign-in (issue 37): the relying party / service provider (identity) checks the
 * provider's answer; this flow, the same for both, finds the person the configured claim or
 * attribute names (people), creates them with jit=1 (CreatePersonFlow, person.created), refuses a
 * deactivated one, and opens the session as POST /api/login does (LoginService.open; the 418 rules
 * then apply to the session as to any other), audited login.sso.
 */
@injectable()
export class SsoSignInFlow {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(IdentityProvidersService) private readonly providers: IdentityProvidersService,
    @inject(OidcRelyingParty) private readonly rp: OidcRelyingParty,
    @inject(SamlServiceProvider) private readonly sp: SamlServiceProvider,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(LoginService) private readonly logins: LoginService,
    @inject(CreatePersonFlow) private readonly creating: CreatePersonFlow,
  ) {}

  /** The provider by id; another tenant's or unknown: 401 (the sign-in routes never say 404). */
  async provider(providerId: string, type?: IdentityProviderRow['type']): Promise<IdentityProviderRow> {
    const p = await this.providers.get(providerId).catch(() => null);
    if (!p || (type && p.type !== type)) throw new SsoRefused(type ? `unknown ${type} identity provider` : 'unknown identity provider');
    return p;
  }

  /** Where the browser goes first: the OIDC authorization endpoint, or the SAML IdP's SSO URL with an AuthnRequest. */
  async start(providerId: string, host: string, forwardUrl: string): Promise<string> {
    const p = await this.provider(providerId);
    const urls = ssoEndpoints(host, p.id);
    return p.type === 'saml' ? this.sp.authnRequestUrl(p, urls, forwardUrl) : this.rp.authorizationUrl(p, urls.redirectUri, forwardUrl);
  }

  /** The OIDC callback. */
  async finishOidc(providerId: string, host: string, params: Record<string, string>, ip: string, log: Logger): Promise<SsoSignInResult> {
    const p = await this.provider(providerId, 'oidc');
    return this.signIn(p, () => this.rp.finish(p, ssoEndpoints(host, p.id).redirectUri, params), ip, log);
  }

  /** The SAML ACS (HTTP-POST binding). */
  async finishSaml(providerId: string, host: string, samlResponse: string, ip: string, log: Logger): Promise<SsoSignInResult> {
    const p = await this.provider(providerId, 'saml');
    return this.signIn(p, () => this.sp.finish(p, ssoEndpoints(host, p.id), samlResponse), ip, log);
  }

  /** SP metadata of a SAML provider (entity id, ACS URL). */
  async samlMetadata(providerId: string, host: string): Promise<string> {
    const p = await this.provider(providerId, 'saml');
    return this.sp.metadata(p, ssoEndpoints(host, p.id));
  }

  private async signIn(
    p: IdentityProviderRow,
    verified: () => Promise<{ claims: Record<string, unknown>; pending: { forwardUrl: string } }>,
    ip: string,
    log: Logger,
  ): Promise<SsoSignInResult> {
    let claimValue = '';
    try {
      const { claims, pending } = await verified();
      const raw = claims[p.match_claim];
      claimValue = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
      if (!claimValue)
        throw new SsoRefused(`the identity provider's answer has no ${p.match_claim} ${p.type === 'saml' ? 'attribute' : 'claim'} (or more than one value)`);
      const person = (await this.find(p, claimValue)) ?? (p.jit ? await this.createJit(p, claimValue, claims, log) : null);
      if (!person) throw new SsoRefused(`no person has this ${p.match_field} and the identity provider does not create persons (jit=0)`);
      if (isDeactivated(person)) throw new SsoRefused('the account is deactivated');
      const { sessionId } = await this.logins.open(person.id);
      await this.logins.record('login.sso', person.user_name, ip, { identityprovider_id: p.id, identityprovider: p.name, type: p.type });
      return { sessionId, personId: person.id, userName: person.user_name, forwardUrl: pending.forwardUrl };
    } catch (e) {
      const reason = e instanceof ApiError ? e.message : String(e);
      await this.logins.record('login.failed', claimValue, ip, { reason, identityprovider_id: p.id });
      throw e;
    }
  }

  private async find(p: IdentityProviderRow, value: string) {
    const key: PersonKeyOf =
      p.match_field === 'user_name' ? { user_name: value.toLowerCase() } : p.match_field === 'email' ? { email: value } : { extern_person_id: value };
    const found = await this.persons.findAll(key, ['id', 'user_name', 'deactivated_at'], 2);
    if (found.length > 1) throw new SsoRefused(`more than one person has this ${p.match_field}`);
    return found[0];
  }

  private async createJit(p: IdentityProviderRow, value: string, claims: Record<string, unknown>, log: Logger) {
    const str = (k: string) => (typeof claims[k] === 'string' ? claims[k] : undefined);
    const userName = (p.match_field === 'user_name' ? value : (str('preferred_username') ?? str('email') ?? String(claims.sub))).toLowerCase();
    const data = PersonCreateData.safeParse({
      user_name: userName,
      email: p.match_field === 'email' ? value : str('email'),
      firstname: str('given_name'),
      lastname: str('family_name'),
      ...(p.match_field === 'extern_person_id' ? { extern_person_id: value } : {}),
    });
    if (!data.success) throw new SsoRefused("the person cannot be created from the identity provider's claims");
    const actor: Principal = { personId: 0, userName: `sso:${p.name}`, superuser: false, organisationId: null, mustChangePassword: null, via: 'session' };
    const [roleId, ...more] = p.jit_role_ids;
    try {
      const { person } = await this.creating.create(
        actor,
        { organisation_id: p.jit_organisation_id!, role_id: roleId, more_role_ids: more, person_data: data.data },
        log,
      );
      return person;
    } catch (e) {
      throw new SsoRefused(`the person could not be created (${e instanceof ApiError ? e.message : 'error'})`);
    }
  }
}
