import { z } from 'zod';
import { ApiError } from '../../platform/errors/api-error';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape } from '../../platform/http/param-types';
import { EventsService } from '../../courses';
import { personStateParam, policies } from '../../people';
import { ParticipantView, ParticipantsFlow } from '../../flows/participants/participants';
import { eventAuthor } from '../../flows/events/event-access';
import { RecordResultsFlow } from '../../flows/participants/record-results';
import { jsonArray, parseResults, resultFields, RESULTS_MAX } from '../../flows/participants/result-input';

const RESULTS =
  'met (0/1: attended), passed (0..100), grade (a number), comments (text); a field not given keeps its recorded value, an empty grade or comments clears it. ' +
  "Allowed for superusers, superadmins, the event's instructor and the owner of the event's competence (or of the course it is a module of); a participant's manager may read (GET) but not write (403). " +
  "Only for persons signed on to the course event (someone on the wait list, or not signed on, is a 409 naming them; an unknown user name a 404), from the event's start on (before: 409) and not on a cancelled event (409). " +
  "A module event's participants are its course event's signed-on persons: its results are recorded on the same sign-on. " +
  "When the course event's result reaches the pass mark of its competence (pass_mark, else 100) the person gets, in the same transaction, a registration of the event's competence " +
  "(date: the event's end day in the tenant's time zone, valid_until: date + valid_months, passed and grade from the result) and one of each module competence of its module events " +
  "(date: that module event's end day) unless that module event's result is below the module's pass mark (a module without a result is passed with the course); " +
  'each a webhook personcompetence.registered, shown in GET /api/personcompetences, the competence level and the changes feed. A correction below the mark (or a module result below its mark) ' +
  "removes the registrations this sign-on's results created and nothing else (webhook personcompetence.deleted; a registration of the competence the person had before becomes current again). " +
  'Every result that changes fires personevent.result_recorded and the audit entry participant.result_recorded; recording the same values again changes nothing (no rows, no webhooks). ' +
  'Answers the participants as GET /api/participants/[event_id]/[user_name] shows them.';

const listInput = z.object({
  event_id: p.id(),
  waitlist: p.bool().optional(),
  passed: p.bool().optional(),
  met: p.bool().optional(),
  organisation_id: p.id().optional(),
  recursive: p.bool().optional(),
  state: personStateParam,
  ...pagingShape,
  ...viewShape,
});

const list = (resource: string, path: string, summary: string) =>
  defineRoute({
    method: 'get',
    path,
    cost: COSTS.fullViewList,
    access: policies.userThen(
      "a superuser, the event's instructor, a superadmin or the owner of the event's competence: everyone; a manager: the persons in organisations they manage",
    ),
    resource,
    summary,
    description:
      "A superuser, the event's instructor, a superadmin or the owner of the event's competence sees all participants; a manager only persons in organisations they manage (with organisation_id they must manage it); " +
      'anyone else 403. waitlist, passed and met filter when given (unset returns both): passed=1 those whose result reached the pass mark, passed=0 the rest (below it or not assessed); ' +
      'met=1 those recorded as attended, met=0 the rest. Sorted: seats first, then by sign-on time. ' +
      "A module event's participants are its course event's signed-on persons, each with their result at the module event. " +
      "met, passed (0-100), pass_reached, grade and comments are the result as recorded with PUT /api/participants; holds_competence: the person holds the event's competence now (current registration, passed > 0, still valid in the tenant's time zone). " +
      'state: active (default) leaves deactivated persons out (their places in events not started yet were ended; those in earlier events stay), deactivated lists only them, all both.',
    input: listInput,
    output: ParticipantView,
    async handler(ctx, input) {
      const event = await ctx.resolve(EventsService).get(input.event_id);
      return { items: await ctx.resolve(ParticipantsFlow).list(ctx.user, event, input, paging(input)) };
    },
  });

export const participantRoutes = [
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/participants/:event_id/:user_name',
    access: eventAuthor('record results of this event', true),
    resource: 'participants',
    summary: "Record a participant's result and attendance",
    description: `${RESULTS} At least one of met, passed, grade, comments (else 419 on passed).`,
    input: z.object({ event_id: p.id(), user_name: p.string(200).min(1), ...resultFields, ...viewShape }),
    output: ParticipantView,
    async handler(ctx, input) {
      const { met, passed, grade, comments, user_name } = input;
      if (met === undefined && passed === undefined && grade === undefined && comments === undefined) throw ApiError.missing('passed');
      const r = await ctx.resolve(RecordResultsFlow).record(ctx.user, ctx.target, [{ user_name, met, passed, grade, comments }], (_i, field) => field);
      return { message: r.message, items: r.items };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/participants/:event_id',
    access: eventAuthor('record results of this event', true),
    resource: 'participants',
    summary: 'Record the results and attendance of many participants at once (all or nothing)',
    description:
      `results: a JSON array (JSON text or the array itself) of at most ${RESULTS_MAX} {user_name, met, passed, grade, comments}, each as for one participant. ` +
      'All or nothing: the first bad row is the answer and nothing is recorded, a wrong field a 420 naming it as results[2].passed, a missing user_name a 419, ' +
      `a user name given twice a 420, an unknown one a 404, one not signed on a 409 (each naming results[i].user_name). ${RESULTS}`,
    input: z.object({
      event_id: p.id(),
      results: z.preprocess(jsonArray, z.unknown()).describe('JSON array of {user_name, met, passed, grade, comments}'),
      ...viewShape,
    }),
    output: ParticipantView,
    async handler(ctx, input) {
      if (input.results === undefined || input.results === '') throw ApiError.missing('results');
      const rows = parseResults(input.results);
      const r = await ctx.resolve(RecordResultsFlow).record(ctx.user, ctx.target, rows, (i, field) => `results[${i}].${field}`);
      return { message: r.message, items: r.items };
    },
  }),
  list('participants', '/participants/:event_id', 'Persons signed on to an event (seat or wait list)'),
  list('participants', '/events/:event_id/participants', 'Same as GET /api/participants/[event_id]'),
  defineRoute({
    method: 'get',
    path: '/participants/:event_id/:user_name',
    access: policies.userThen("superuser, the person's manager, self, the event's instructor, a superadmin, the owner of the event's competence"),
    resource: 'participants',
    summary: 'One participant of an event',
    description:
      "Superuser, the person's manager, self, the event's instructor, superadmins and the owner of the event's competence; 404 when the person has no live sign-on to the event (for a module event: to its course event).",
    output: ParticipantView,
    input: z.object({ event_id: p.id(), user_name: p.string(200).min(1), ...viewShape }),
    async handler(ctx, input) {
      const event = await ctx.resolve(EventsService).get(input.event_id);
      return { items: [await ctx.resolve(ParticipantsFlow).one(ctx.user, event, input.user_name)] };
    },
  }),
];
