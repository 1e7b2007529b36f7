import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import type { Principal } from '../../platform/auth/principal';
import { ApiError } from '../../platform/errors/api-error';
import { PersonCreateData, PersonDirectory, isDeactivated, type PersonKeyOf } from '../../people';
import { LoginService, OidcRelyingParty, SsoRefused, type IdentityProviderRow } from '../../identity';
import { CreatePersonFlow } from '../persons/create-person';

export interface SsoSignInResult {
  sessionId: string;
  personId: number;
  userName: string;
  forwardUrl: string;
}

/**
 * OIDC sign-in (issue 37): the relying party (identity) checks the provider's answer; this flow
 * finds the person the configured claim names (people), creates them with jit=1 (CreatePersonFlow,
 * person.created), refuses a deactivated one, and opens the session as POST /api/login does
 * (LoginService.open; the 418 rules then apply to the session as to any other), audited login.sso.
 */
@injectable()
export class SsoSignInFlow {
  constructor(
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(OidcRelyingParty) private readonly rp: OidcRelyingParty,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
    @inject(LoginService) private readonly logins: LoginService,
    @inject(CreatePersonFlow) private readonly creating: CreatePersonFlow,
  ) {}

  async start(providerId: string, redirectUri: string, forwardUrl: string): Promise<string> {
    const p = await this.rp.provider(providerId);
    return this.rp.authorizationUrl(p, redirectUri, forwardUrl);
  }

  async finish(providerId: string, redirectUri: string, params: Record<string, string>, ip: string, log: Logger): Promise<SsoSignInResult> {
    const p = await this.rp.provider(providerId);
    let claimValue = '';
    try {
      const { claims, pending } = await this.rp.finish(p, redirectUri, params);
      const raw = claims[p.match_claim];
      claimValue = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
      if (!claimValue) throw new SsoRefused(`the identity provider's answer has no ${p.match_claim} claim`);
      const person = (await this.find(p, claimValue)) ?? (p.jit ? await this.createJit(p, claimValue, claims, log) : null);
      if (!person) throw new SsoRefused(`no person has this ${p.match_field} and the identity provider does not create persons (jit=0)`);
      if (isDeactivated(person)) throw new SsoRefused('the account is deactivated');
      const { sessionId } = await this.logins.open(person.id);
      await this.logins.record('login.sso', person.user_name, ip, { identityprovider_id: p.id, identityprovider: p.name });
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
    const str = (k: string) => (typeof claims[k] === 'string' ? (claims[k] as string) : undefined);
    const userName = (p.match_field === 'user_name' ? value : str('preferred_username') ?? str('email') ?? String(claims.sub)).toLowerCase();
    const data = PersonCreateData.safeParse({
      user_name: userName,
      email: p.match_field === 'email' ? value : str('email'),
      firstname: str('given_name'),
      lastname: str('family_name'),
      ...(p.match_field === 'extern_person_id' ? { extern_person_id: value } : {}),
    });
    if (!data.success) throw new SsoRefused('the person cannot be created from the identity provider\'s claims');
    const actor: Principal = { personId: 0, userName: `sso:${p.name}`, superuser: false, organisationId: null, mustChangePassword: null, via: 'session' };
    const [roleId, ...more] = p.jit_role_ids;
    try {
      const { person } = await this.creating.create(actor, { organisation_id: p.jit_organisation_id!, role_id: roleId, more_role_ids: more, person_data: data.data }, log);
      return person;
    } catch (e) {
      throw new SsoRefused(`the person could not be created (${e instanceof ApiError ? e.message : 'error'})`);
    }
  }
}
