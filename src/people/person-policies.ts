import { access, type AccessCheck, type AccessRule } from '../platform/http/access';
import { ApiError } from '../platform/errors/api-error';
import { TenantDataCache } from '../platform/cache/tenant-data-cache';
import { TENANT } from '../platform/tokens';
import { OrganisationsRepository } from './organisations/organisations.repository';
import { PERSON_RULE_TEXT, PersonAccess, type PersonRule, type TargetPerson } from './person-access';

/** "see the competences of {person}": {person} becomes the user name of the person the call is about. */
type Action = string | ((input: any) => string);

const phrase = (action: Action, input: unknown, person?: TargetPerson) =>
  (typeof action === 'function' ? action(input) : action).replace('{person}', person?.user_name ?? '');

/**
 * A rule about the person named by the parameter `param` (default: the caller). The person is
 * resolved once, checked against `rule` by PersonAccess, and handed to the handler as ctx.target.
 */
function person(rule: PersonRule, param: string, action: Action): AccessRule<TargetPerson> {
  return {
    security: `${PERSON_RULE_TEXT[rule]} (the person named by ${param}; the caller when it is left out)`,
    login: true,
    async check(ctx: AccessCheck, input: Record<string, unknown>) {
      const persons = ctx.resolve(PersonAccess);
      const named = input[param] as string | undefined;
      const target = await persons.target(ctx.user, named, ctx.path.includes(`:${param}`), ctx.method === 'get' ? () => cachedLookup(ctx, persons, named) : undefined);
      await persons.assert(ctx.user, target, rule, phrase(action, input, target));
      return target;
    },
  };
}

/**
 * A superuser's call about a person named in the input, not looked up yet: a superuser may act on
 * every person of the tenant, so all that is left to decide is whether the person exists, and the
 * handler answers that in its own statement (an INSERT ... SELECT from `personNamed`), which must
 * answer 404 (`personNotFound`) when it finds nobody.
 */
export interface DeferredTarget {
  deferred: true;
  user_name: string;
}

/** The 404 of an unknown person named by a parameter, as the person rules word it. */
export const personNotFound = (userName: string) => ApiError.notFound(`person ${userName}`);

/**
 * As `person`, but a superuser naming someone gets a DeferredTarget instead of a lookup: the
 * handler's one statement finds the person and writes, saving a round trip per call where a
 * superuser sends in bulk. Everyone else is resolved and checked as by `person`.
 */
function personDeferredForSuperuser(rule: PersonRule, param: string, action: Action): AccessRule<TargetPerson | DeferredTarget> {
  const resolved = person(rule, param, action);
  return {
    ...resolved,
    async check(ctx: AccessCheck, input: Record<string, unknown>) {
      const named = input[param] as string | undefined;
      // every person rule allows a superuser on every person of the tenant
      if (ctx.user.superuser && named !== undefined) return { deferred: true, user_name: named };
      return resolved.check(ctx, input);
    },
  };
}

/**
 * A GET's target person from TenantDataCache (fresh by the persons table's change notices): the
 * lookup was the one query left on cached reads such as GET /api/personcompetences. Writes look
 * the person up in the database, as they act on it. A copy is handed out: cached values are frozen.
 */
async function cachedLookup(ctx: AccessCheck, persons: PersonAccess, named: string | undefined): Promise<TargetPerson | undefined> {
  const key = `access target\u0000${named === undefined ? `id ${ctx.user.personId}` : `user_name ${named}`}`;
  const found = await ctx.resolve(TenantDataCache).get(ctx.resolve(TENANT), key, async () => ({ person: (await persons.lookup(ctx.user, named)) ?? null }));
  return found.person ? { ...found.person } : undefined;
}

/** Superuser, or a manager of the organisation `param` (and so of everything below it); unknown organisation: 404. */
function organisationManager(param: string, action: Action): AccessRule<number> {
  return {
    security: `superuser, the manager of the organisation ${param} (or of one above it)`,
    login: true,
    async check(ctx: AccessCheck, input: Record<string, unknown>) {
      const id = input[param] as number;
      if (!(await ctx.resolve(OrganisationsRepository).findById(id))) throw ApiError.notFound(`organisation ${id}`);
      await ctx.resolve(PersonAccess).assertManagesOrganisation(ctx.user, id, phrase(action, input));
      return id;
    },
  };
}

/** Superusers and managers (of any organisation); what a manager sees is narrowed by the handler. */
function manager(action: string): AccessRule<undefined> {
  return {
    security: 'superuser, a manager (narrowed to the subtrees they manage)',
    login: true,
    async check(ctx: AccessCheck) {
      if (ctx.user.superuser || (await ctx.resolve(PersonAccess).isManager(ctx.user))) return undefined;
      throw ApiError.forbidden(`not authorised to ${action}: only superusers and managers may`);
    },
  };
}

/** The spec's "superuser and superadmin only". */
function superuserOrSuperadmin(action: string): AccessRule<undefined> {
  return {
    security: 'superuser, superadmin',
    login: true,
    async check(ctx: AccessCheck) {
      if (ctx.user.superuser || (await ctx.resolve(PersonAccess).isSuperadmin(ctx.user))) return undefined;
      throw ApiError.forbidden(`not authorised to ${action}: superusers and superadmins only`);
    },
  };
}

/**
 * Every rule a route can declare as its `access`: the kernel's (anyone, user, superuser, when,
 * either) and the people module's, which need to know persons and the organisation tree.
 */
export const policies = {
  ...access,
  selfOrManager: (param: string, action: Action) => person('selfOrManager', param, action),
  /** selfOrManager, but a superuser's target is left to the handler's statement (DeferredTarget). */
  selfOrManagerDeferredForSuperuser: (param: string, action: Action) => personDeferredForSuperuser('selfOrManager', param, action),
  selfOrActingManager: (param: string, action: Action) => person('selfOrActingManager', param, action),
  actingManager: (param: string, action: Action) => person('actingManager', param, action),
  selfOrSuperuser: (param: string, action: Action) => person('selfOrSuperuser', param, action),
  organisationManager,
  manager,
  superuserOrSuperadmin,
};
