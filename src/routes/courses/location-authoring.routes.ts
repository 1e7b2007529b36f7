import { z } from 'zod';
import { defineRoute } from '../../platform/http/define-route';
import { jsonObject, p, viewShape } from '../../platform/http/param-types';
import { LocationAuthoring, LocationData, LocationUpdateData, LocationView, LocationsRepository } from '../../courses';
import { policies } from '../../people';

const DATA =
  'location_data (bracket form location_data[name]=..., a JSON object or JSON text; unknown keys are a 420): name (required on create), address, capacity (seats, 0 or more), ' +
  'latitude (-90..90), longitude (-180..180) (WGS 84 degrees); "" or null clears an optional field.';

export const locationAuthoringRoutes = [
  defineRoute({
    method: 'post',
    path: '/locations',
    access: policies.superuserOrSuperadmin('create locations'),
    resource: 'locations',
    summary: 'Create a location',
    description: `${DATA} Answers the new location, message "location created". Audit entry location.created.`,
    input: z.object({ location_data: z.preprocess(jsonObject, LocationData), ...viewShape }),
    output: LocationView,
    async handler(ctx, input) {
      const id = await ctx.resolve(LocationAuthoring).create(ctx.user, input.location_data);
      return { message: 'location created', items: [await ctx.resolve(LocationsRepository).get(id)] };
    },
  }),
  defineRoute({
    method: 'put',
    idempotencyKey: true,
    path: '/locations/:location_id',
    access: policies.superuserOrSuperadmin('change locations'),
    resource: 'locations',
    summary: 'Change a location: only the location_data fields given',
    description: `${DATA} A capacity below the max_participants of an upcoming event there that is not cancelled is a 409 naming it. Audit entry location.updated.`,
    input: z.object({ location_id: p.id(), location_data: z.preprocess(jsonObject, LocationUpdateData), ...viewShape }),
    output: LocationView,
    async handler(ctx, input) {
      await ctx.resolve(LocationAuthoring).update(ctx.user, input.location_id, input.location_data);
      return { message: 'location updated', items: [await ctx.resolve(LocationsRepository).get(input.location_id)] };
    },
  }),
  defineRoute({
    method: 'delete',
    idempotencyKey: true,
    path: '/locations/:location_id',
    access: policies.superuserOrSuperadmin('delete locations'),
    resource: 'locations',
    summary: 'Delete a location no event names (else 409)',
    description:
      'Any event at the location, cancelled and past ones too, keeps it (409 with the count): move those events first. Answers the location as it was. Audit entry location.deleted.',
    input: z.object({ location_id: p.id() }),
    output: LocationView,
    async handler(ctx, input) {
      const before = await ctx.resolve(LocationsRepository).get(input.location_id);
      await ctx.resolve(LocationAuthoring).delete(ctx.user, input.location_id);
      return { message: `location ${input.location_id} deleted`, items: [before] };
    },
  }),
];
