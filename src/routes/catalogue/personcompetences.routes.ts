import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { COMPETENCE_TYPE_IDS, CompetenceStates, PersonCompetenceList, PersonCompetenceView, stateOf } from '../../catalogue';
import { RegisterCompetenceFlow } from '../../flows/registrations/register-competence';
import { RegistrationViewsFlow } from '../../flows/registrations/registration-views';
import { TenantClock } from '../../platform/time/tenant-clock';
import { endOfDayIn } from '../../platform/time/tenant-clock';
import { policies } from '../../people';
import { cachedRead } from '../../platform/cache/cached-read';

const userName = p.string(200).optional();

export const personCompetenceRoutes = [
  defineRoute({
    method: 'get',
    path: '/personcompetences',
    cost: COSTS.fullViewList,
    access: policies.selfOrManager('user_name', 'see the competences of {person}'),
    resource: 'personcompetences',
    summary: "A person's competences held (state=passed) or required and not held (state=missing)",
    description:
      "Held = a current registration, valid_until empty or not before today (in the tenant's time zone, config item tenant.timezone), passed > 0, a checklist item checked (or overridden by a manager), " +
      'a signature signed; a checklist is held when all its items are, or when a manager registered the checklist itself. ' +
      'state=passed (default): competences held now (expired ones are not listed). state=missing: competences required and not held, with `reason`. ' +
      "Required = requirements of the person's roles, or of role_ids (any roles: gap analysis; unknown role 404), on active competences; " +
      'mandatory for one role and optional for another counts as mandatory. requirement defaults to none for passed, mandatory for missing or with role_ids. ' +
      'Only top-level competences are list items; a checklist carries its items in `children`. Sorted by title; limit default 20, max 100. ' +
      'reason (state=missing): not_registered, expired, not_passed, not_checked, not_signed, items_missing. requirement=optional lists the optional-only ones. ' +
      "Course modules do not affect their course. user_name other than self: the person's manager or a superuser.",
    output: PersonCompetenceView,
    input: z.object({
      ...pagingShape,
      ...viewShape,
      user_name: userName,
      state: z.enum(['passed', 'missing'], { message: 'must be passed or missing' }).optional(),
      requirement: z.enum(['none', 'mandatory', 'optional'], { message: 'must be none, mandatory or optional' }).optional(),
      role_ids: p.idList().optional(),
      types: p
        .stringList()
        .pipe(z.array(z.enum(COMPETENCE_TYPE_IDS, { message: `must be competence types: ${COMPETENCE_TYPE_IDS.join(', ')}` })))
        .optional(),
    }),
    async handler(ctx, input) {
      const person = ctx.target;
      const clock = ctx.resolve(TenantClock);
      // Held or not changes by itself only when the tenant's day changes (valid_until): cached until the
      // end of the day read before the answer is made (one made just after midnight is then stale at once).
      const endOfToday = endOfDayIn(clock.zone, clock.today()).getTime();
      const items = await cachedRead(
        ctx,
        'GET /personcompetences',
        input,
        async () => {
          const list = await ctx.resolve(PersonCompetenceList).list(person.id, { ...input, state: input.state ?? 'passed' });
          const { limit, offset } = paging(input);
          const shown = list.slice(offset, offset + limit).map(({ state, required }) => ({
            state,
            extra: required ? { mandatory: required.mandatory, role_ids: required.roleIds } : {},
          }));
          return ctx.resolve(RegistrationViewsFlow).present(person, input.view ?? 'simple', shown);
        },
        () => endOfToday,
      );
      return { items };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/personcompetences/:competence_id',
    access: policies.selfOrManager('user_name', 'see the competences of {person}'),
    resource: 'personcompetences',
    summary: "A person's current registration of one competence (also when expired)",
    description: 'An expired registration shows as state missing, reason expired. 404 when the person has no registration of it.',
    output: PersonCompetenceView,
    input: z.object({ competence_id: p.id(), user_name: userName, ...viewShape }),
    async handler(ctx, input) {
      const person = ctx.target;
      const [state] = await ctx.resolve(CompetenceStates).evaluate(person.id, [input.competence_id]);
      if (!state) throw ApiError.notFound(`competence ${input.competence_id}`);
      const anyItem = state.children.some((k) => k.registration);
      if (!state.registration && !anyItem) throw ApiError.notFound(`registration of "${state.competence.title}" for ${person.user_name}`);
      return { items: await ctx.resolve(RegistrationViewsFlow).present(person, input.view ?? 'full', [{ state }]) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/personcompetences/:competence_id',
    access: policies.selfOrActingManager('user_name', 'register competences of {person}'),
    resource: 'personcompetences',
    summary: 'Registers a competence for a person (a new registration; the previous one stays as history)',
    description:
      'user_name other than self: the person\'s manager or a superuser (else 403); "manager" never means the caller themself or a person who manages the caller. passed 0-100 default 100; date default today; ' +
      "valid_until default date + the competence's valid_months; valid_until before date is a 420; file is a 501; parameters of another type are a 420. " +
      'Formal competences and skills may be registered by the person; course, module, ecourse, group and checklist only by a manager or superuser; ' +
      'surveys are answered with POST /api/surveyanswer (409). Checklist item with action on/off follows its checked_by; without action a manager override (a manager overriding their own item: 403). ' +
      'Signature: only for oneself, with the current password (wrong: 420, nothing stored; 5 wrong within 15 minutes: 429). ' +
      'show_course_diploma present with any value means true; skill_level 0-100 defaults to passed (and sets passed when only skill_level is given); ' +
      'graduation_year has four digits (else 420). Inactive competences may be registered (history imports). ' +
      'Two identical registrations at once both succeed, one after the other.',
    output: PersonCompetenceView,
    input: z.object({
      competence_id: p.id(),
      user_name: userName,
      passed: p.int().pipe(z.number().min(0, 'must be 0-100').max(100, 'must be 0-100')).optional(),
      date: p.date().optional(),
      valid_until: p.date().optional(),
      comments: p.string(4000).optional(),
      file: z.unknown().optional(),
      action: z.enum(['on', 'off'], { message: 'must be on or off' }).optional(),
      password: z.string().max(1000).optional(),
      show_course_diploma: z.unknown().optional(),
      grade: z
        .union([
          z.number(),
          z
            .string()
            .trim()
            .regex(/^-?\d+(\.\d+)?$/, 'must be a number'),
        ])
        .transform(Number)
        .optional(),
      school: p.string(500).optional(),
      graduation_year: z
        .string()
        .trim()
        .regex(/^\d{4}$/, 'must be a four-digit year')
        .optional(),
      skill_level: p.int().pipe(z.number().min(0, 'must be 0-100').max(100, 'must be 0-100')).optional(),
      ...viewShape,
    }),
    async handler(ctx, input) {
      const { competence_id, view, fields, ...rest } = input;
      const reg = await ctx.resolve(RegisterCompetenceFlow).register(ctx.user, ctx.target, competence_id, rest);
      const [state] = await ctx.resolve(CompetenceStates).evaluate(reg.person.id, [competence_id]);
      return { items: await ctx.resolve(RegistrationViewsFlow).present(reg.person, view ?? 'full', [{ state }]), message: 'registered' };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/personcompetences/:competence_id',
    access: policies.selfOrManager('user_name', 'remove competences of {person}'),
    resource: 'personcompetences',
    summary: 'Removes every registration (all occurrences) of a competence for a person',
    description:
      "Self may remove formal competences, skills, signatures and checklist items not checked by a manager; other types need the person's manager (not the person themself) or a superuser. " +
      '404 when nothing was registered. Returns the removed current registration with state deleted and `deleted: true`.',
    output: PersonCompetenceView,
    input: z.object({ competence_id: p.id(), user_name: userName, ...viewShape }),
    async handler(ctx, input) {
      const r = await ctx.resolve(RegisterCompetenceFlow).remove(ctx.user, ctx.target, input.competence_id);
      const state = stateOf(r.competence, r.registration, [], ctx.resolve(TenantClock).today());
      const [shown] = await ctx.resolve(RegistrationViewsFlow).present(r.person, input.view ?? 'simple', [{ state }]);
      const item = { ...shown, state: 'deleted', deleted: true };
      return { items: [item], message: `removed ${r.removed} registration(s)` };
    },
  }),
];
