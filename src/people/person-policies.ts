import { access, type AccessCheck, type AccessRule } from '../platform/http/access';
import { ApiError } from '../platform/errors/api-error';
import { TenantDataCache } from '../platform/cache/tenant-data-cache';
import { TENANT } from '../platform/tokens';
import { OrganisationsRepository, type OrganisationRow } from './organisations/organisations.repository';
import { mayAdminister, notBelowManaged } from './organisations/organisation-authoring';
import { PERSON_RULE_TEXT, PersonAccess, personKey, targetNotFound, type PersonRule, type TargetPerson } from './person-access';
import type { PersonKey, PersonRow } from './person-row';
import { PersonsRepository } from './persons/persons.repository';

/** "see the competences of {person}": {person} becomes the user name of the person the call is about. */
type Action = string | ((input: any) => string);

const phrase = (action: Action, input: unknown, person?: Pick<PersonRow, 'user_name'>) =>
  (typeof action === 'function' ? action(input) : action).replace('{person}', person?.user_name ?? '');

/** What every person rule needs of the person to decide. */
export type DecidedPerson = Pick<PersonRow, 'id' | 'user_name' | 'organisation_id'>;

/**
 * How a person rule reads the person it decides on. The handler receives what was read as
 * ctx.target, so a route whose handler needs more than TARGET_COLUMNS passes a read of what it
 * needs, and the person is read once per request. `name` keys a GET's cached read: reads of other
 * columns never share an entry.
 */
export interface PersonRead<T extends DecidedPerson> {
  readonly name: string;
  find(ctx: AccessCheck, key: PersonKey): Promise<T | undefined>;
}

/** The default read: TARGET_COLUMNS. */
const targetColumns: PersonRead<TargetPerson> = { name: 'access target', find: (ctx, key) => ctx.resolve(PersonAccess).find(key) };

/** The whole PersonRow (no details): what a change of the person works on. */
export const personRow: PersonRead<PersonRow> = { name: 'person row', find: (ctx, key) => ctx.resolve(PersonsRepository).find(key) };

/**
 * A rule about the person named by the parameter `param` (default: the caller). The person is read
 * once (`read`; TARGET_COLUMNS when left out), checked against `rule` by PersonAccess, and handed
 * to the handler as ctx.target.
 */
function person<T extends DecidedPerson = TargetPerson>(rule: PersonRule, param: string, action: Action, read?: PersonRead<T>): AccessRule<T> {
  const reading = (read ?? targetColumns) as PersonRead<T>;
  return {
    security: `${PERSON_RULE_TEXT[rule]} (the person named by ${param}; the caller when it is left out)`,
    login: true,
    async check(ctx: AccessCheck, input: Record<string, unknown>) {
      const named = input[param] as string | undefined;
      const key = personKey(ctx.user, named);
      // a GET changes nothing, so its person may come from the cache; a write acts on the person and reads the database
      const target = ctx.method === 'get' ? await cachedFind(ctx, reading, key) : await reading.find(ctx, key);
      if (!target) throw targetNotFound(ctx.user, named, ctx.path.includes(`:${param}`));
      await ctx.resolve(PersonAccess).assert(ctx.user, target, rule, phrase(action, input, target));
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
 * A GET's target person from TenantDataCache (fresh by the change notices of the tables it is read
 * from): the lookup was the one query left on cached reads such as GET /api/personcompetences.
 * Writes read the person from the database, as they act on it. A copy is handed out: cached values are frozen.
 */
async function cachedFind<T extends DecidedPerson>(ctx: AccessCheck, read: PersonRead<T>, key: PersonKey): Promise<T | undefined> {
  const entry = `${read.name}\u0000${'id' in key ? `id ${key.id}` : `user_name ${key.user_name}`}`;
  const found = await ctx.resolve(TenantDataCache).get(ctx.resolve(TENANT), entry, async () => ({ person: (await read.find(ctx, key)) ?? null }));
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

/**
 * Superuser, or a manager of an organisation strictly above the organisation `param` (they manage
 * its parent): who may change, delete or staff it. Never the organisation a manager is assigned to
 * itself. Unknown organisation: 404. The handler gets its row (OrganisationAuthoring checks again in
 * its transaction).
 */
function organisationBelowManaged(param: string, action: Action): AccessRule<OrganisationRow> {
  return {
    security: `superuser, a manager of an organisation above the organisation ${param} (not of the organisation itself)`,
    login: true,
    async check(ctx: AccessCheck, input: Record<string, unknown>) {
      const id = input[param] as number;
      const row = await ctx.resolve(OrganisationsRepository).findById(id);
      if (!row) throw ApiError.notFound(`organisation ${id}`);
      if (!(await mayAdminister(ctx.resolve(PersonAccess), ctx.user, row))) throw notBelowManaged(phrase(action, input));
      return row;
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
  selfOrManager: <T extends DecidedPerson = TargetPerson>(param: string, action: Action, read?: PersonRead<T>) => person('selfOrManager', param, action, read),
  /** selfOrManager, but a superuser's target is left to the handler's statement (DeferredTarget). */
  selfOrManagerDeferredForSuperuser: (param: string, action: Action) => personDeferredForSuperuser('selfOrManager', param, action),
  selfOrActingManager: <T extends DecidedPerson = TargetPerson>(param: string, action: Action, read?: PersonRead<T>) =>
    person('selfOrActingManager', param, action, read),
  actingManager: <T extends DecidedPerson = TargetPerson>(param: string, action: Action, read?: PersonRead<T>) => person('actingManager', param, action, read),
  selfOrSuperuser: <T extends DecidedPerson = TargetPerson>(param: string, action: Action, read?: PersonRead<T>) =>
    person('selfOrSuperuser', param, action, read),
  organisationManager,
  organisationBelowManaged,
  manager,
  superuserOrSuperadmin,
};
