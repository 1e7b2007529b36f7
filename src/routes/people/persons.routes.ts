import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, pagingShape, paging, viewShape } from '../../platform/http/param-types';
import { OwnViewCache, PersonCreateData, PersonUpdateData, PersonView, personRow, personStateParam, policies } from '../../people';
import { cachedRead } from '../../platform/cache/cached-read';
import { PersonViews, personWithDetails } from '../../flows/persons/person-views';
import { ListPersonsFlow } from '../../flows/persons/list-persons';
import { UpdatePersonFlow } from '../../flows/persons/update-person';
import { RemovePersonRolesFlow } from '../../flows/persons/remove-roles';
import { CreatePersonFlow } from '../../flows/persons/create-person';

const userNameParam = p.string(200).min(1, 'must not be empty');

/** The person_data rules shared by POST and PUT (src/people/persons/README.md). */
const PERSON_DATA =
  'person_data: bracket form (person_data[mobile]=...), a JSON object or JSON text; only present fields change, an empty value clears one. ' +
  'Unknown fields are a 420 (superuser or organisation_id cannot be smuggled in). Each check is a 420 naming person_data[field]: e-mail address shape ' +
  '(stored lower-case), birthdate a real date YYYY-MM-DD not in the future (tenant.timezone), mobile + and 6-15 digits (spaces and dashes removed), ' +
  'user_name 1-100 of A-Z a-z 0-9 . _ @ + - and not taken, password 8-200 characters, language a BCP 47 tag (nb, sv, en-GB; stored in canonical form, ' +
  'e.g. EN-gb as en-GB; notices are written in it where texts exist).';

export const personListShape = {
  organisation_ids: p.idList().optional(),
  recursive: p.bool().optional(),
  event_id: p.id().optional(),
  has_competence_ids: p.idList().optional(),
  role_ids: p.idList().optional(),
  state: personStateParam,
  term: p.string(200).optional().describe('part of the user name, first name, last name, "first last", e-mail or employee code (case-insensitive)'),
  ...pagingShape,
  ...viewShape,
};

export const personRoutes = [
  defineRoute({
    method: 'get',
    path: '/person',
    access: policies.user,
    resource: 'person',
    summary: 'The logged-in person (full view by default)',
    description: 'Alias of GET /api/persons/[your user_name]. Single objects default to the full view; password hashes are never shown.',
    input: z.object({ ...viewShape }),
    output: PersonView,
    async handler(ctx, input) {
      const user = ctx.user;
      const view = input.view ?? 'full';
      // unchanged account data costs no query (own-view-cache.ts: pushed invalidation)
      return { items: [await ctx.resolve(OwnViewCache).get(ctx.tenant, user.personId, view, () => ctx.resolve(PersonViews).get(user.personId, view))] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/persons/:user_name',
    // the rule reads the person with the full view's details: the handler only presents them
    access: policies.selfOrManager('user_name', 'see this person', personWithDetails),
    resource: 'persons',
    summary: "One person by user name. Security: superuser, person's manager, self",
    description: 'Full view by default. Unknown user_name: 404; existing but not allowed: 403.',
    input: z.object({ user_name: userNameParam, ...viewShape }),
    output: PersonView,
    async handler(ctx, input) {
      return { items: [await ctx.resolve(PersonViews).present(ctx.target, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/persons',
    cost: COSTS.fullViewList,
    access: policies.manager('list persons'),
    resource: 'persons',
    summary: 'Persons by organisation, event, fulfilled competences or roles. Security: superuser; manager within the subtrees they manage',
    description:
      'organisation_id and organisation_ids are combined; recursive=1 includes members of sub-organisations. ' +
      'has_competence_ids: all must be fulfilled (current, passed, valid today). role_ids: any of the roles. ' +
      'event_id cannot be combined with has_competence_ids (420). Not shown in the spec, decided: a manager without organisation_id ' +
      'gets the persons of all subtrees they manage; event_id includes the wait list and excludes signed-off persons; ' +
      'ids that match nothing are a 404; order lastname, firstname, id; simple view by default. has_competence_ids: a current registration ' +
      "(not deleted or superseded), passed > 0, valid_until empty or not before today in the tenant's time zone. A person who manages nothing: 403. " +
      'state: active (default) leaves deactivated persons out, deactivated lists only them, all lists both (the full view shows deactivated and deactivated_at). ' +
      'term: only persons whose user name, first name, last name, "first last", e-mail or employee code contains it (case-insensitive; the admin console\'s person search).',
    input: z.object({ organisation_id: p.id().optional(), ...personListShape }),
    output: PersonView,
    async handler(ctx, input) {
      const view = input.view ?? 'simple';
      const load = () => ctx.resolve(ListPersonsFlow).list(ctx.user, input, paging(input), view);
      // Simple views of the account data alone are cached (src/platform/cache/README.md); sign-ons, held
      // competences (time-dependent) and the full view (password expiry) are read each time.
      const cacheable = view === 'simple' && input.event_id === undefined && !input.has_competence_ids;
      return { items: cacheable ? await cachedRead(ctx, 'GET /persons', input, load) : await load() };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/persons/:user_name',
    // the rule reads the whole row, the one read of the person the update works on
    access: policies.selfOrActingManager('user_name', 'update this person', personRow),
    // open while the password must be changed for one request: the person setting their own password
    duringPasswordChange: (input, user) => input.user_name === user.userName && input.person_data?.password !== undefined,
    resource: 'persons',
    errors: [429, 503],
    summary: "Update a person (only fields present in person_data change). Security: superuser, person's manager, self",
    description:
      'Self changing password, user_name, email or mobile needs old_password (419 missing, 420 wrong); a new password needs password_match. ' +
      'A password, e-mail or mobile change is told to the previous e-mail address by mail and recorded in the security event log (GET /api/auditlog). A password set by ' +
      'someone else forces the person to choose a new one (418) and ends their sessions. role_ids replaces the roles (manager or superuser; ' +
      'a manager never sets their own). A person who manages the caller (their organisation or one above it) cannot be changed by them (403). ' +
      'Answers the updated Person (full view by default). old_password checks count against the login limits of the ' +
      'user name (see POST /api/login): beyond them errorcode 429 with Retry-After, before the password is checked. ' +
      'A new password must differ from the current one; old_password and password_match may be top-level or inside person_data. ' +
      'Someone else (manager, superuser) needs neither. A superuser can be changed only by superusers (and themself). ' +
      'While the caller must change their password (418), only their own password change is accepted; other fields in that request are applied with it. ' +
      PERSON_DATA,
    input: z.object({
      user_name: userNameParam,
      person_data: z.preprocess(jsonObject, PersonUpdateData).optional(),
      old_password: z.string().max(1000).optional(),
      password_match: z.string().max(1000).optional(),
      role_ids: p.idList().optional(),
      ...viewShape,
    }),
    output: PersonView,
    async handler(ctx, input) {
      const row = await ctx.resolve(UpdatePersonFlow).update(ctx.user, ctx.target, input, ctx.ip);
      return { message: 'person updated', items: [await ctx.resolve(PersonViews).present(row, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/persons/:user_name',
    access: policies.actingManager('user_name', 'remove roles', personRow),
    resource: 'persons',
    summary: "Remove roles from a person. Security: superuser, person's manager",
    description:
      'The spec\'s "status as JSON" is the envelope (message: how many roles were removed) with the updated Person (full view by default). ' +
      'Self is refused (403): a person cannot drop their own obligations, managers neither; so is a person who manages the caller. role_ids is required (419). ' +
      "A superuser's roles only by superusers: a manager above a superuser's organisation gets 403.",
    input: z.object({
      user_name: userNameParam,
      role_ids: p.idList().pipe(z.array(z.number()).min(1, 'must name at least one role')),
      ...viewShape,
    }),
    output: PersonView,
    async handler(ctx, input) {
      const removed = await ctx.resolve(RemovePersonRolesFlow).remove(ctx.user, ctx.target, input.role_ids);
      return { message: `removed ${removed} role(s)`, items: [await ctx.resolve(PersonViews).present(ctx.target, input.view ?? 'full')] };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/persons',
    access: policies.organisationManager('organisation_id', 'create persons in this organisation'),
    resource: 'persons',
    summary: 'Create a person in an organisation with one role. Security: superuser, manager of the organisation',
    description:
      'person_data needs user_name (unique, else 420); a password given here must be changed at first login. send_login=1 sends a login. ' +
      'Return shape and security are not shown in the spec, decided: answers the new Person (full view by default); ' +
      'allowed for a superuser or a manager of organisation_id. Without a password the person cannot log in until a login is sent or a password reset. ' +
      'send_login: the login mail goes into the outbox in the transaction that creates the person; if it cannot be sent (no address) the person is still ' +
      'created and the message says so. ' +
      PERSON_DATA,
    input: z.object({
      organisation_id: p.id(),
      role_id: p.id(),
      person_data: z.preprocess(jsonObject, PersonCreateData),
      send_login: p.bool().optional(),
      ...viewShape,
    }),
    output: PersonView,
    async handler(ctx, input) {
      const { person, message } = await ctx.resolve(CreatePersonFlow).create(ctx.user, input, ctx.log);
      return { message, items: [await ctx.resolve(PersonViews).present(person, input.view ?? 'full')] };
    },
  }),
];
