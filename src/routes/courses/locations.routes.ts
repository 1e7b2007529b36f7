import { TenantClock } from '../../platform/time/tenant-clock';
import { z } from 'zod';
import { COSTS, defineRoute } from '../../platform/http/define-route';
import { p, paging, pagingShape, viewShape } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import { EventView, LocationView, LocationsRepository } from '../../courses';
import { policies } from '../../people';
import { EventListingFlow } from '../../flows/events/event-listing';

const float = (name: string, min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number'),
    ])
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .describe(name);

const BOX = ['sw_latitude', 'sw_longitude', 'ne_latitude', 'ne_longitude'] as const;

/** Both of a pair or neither: one alone is a 419 naming the other. */
function requireTogether(input: Record<string, unknown>, names: readonly string[]): boolean {
  const given = names.filter((n) => input[n] !== undefined);
  if (given.length === 0) return false;
  const missing = names.find((n) => input[n] === undefined);
  if (missing) throw new ApiError(419, `missing parameter: ${missing} (${names.join(', ')} must be given together)`, { parameter: missing });
  return true;
}

export const locationRoutes = [
  defineRoute({
    method: 'get',
    path: '/locations',
    cost: COSTS.fullViewList,
    access: policies.user,
    resource: 'locations',
    summary: 'Locations; with startdate and enddate only those with no event in that range',
    description:
      'Sorted by name. startdate and enddate go together (else 419) and keep locations with no non-cancelled event overlapping the range. ' +
      'The four bounding-box corners go together (else 419); sw_longitude > ne_longitude is a box across the 180th meridian.',
    output: LocationView,
    input: z.object({
      term: p.string(200).optional(),
      startdate: p.when().optional(),
      enddate: p.when().optional(),
      minimum_capacity: p.int().pipe(z.number().min(0, 'must not be negative')).optional(),
      sw_latitude: float('sw_latitude', -90, 90).optional(),
      sw_longitude: float('sw_longitude', -180, 180).optional(),
      ne_latitude: float('ne_latitude', -90, 90).optional(),
      ne_longitude: float('ne_longitude', -180, 180).optional(),
      ...pagingShape,
      ...viewShape,
    }),
    async handler(ctx, input) {
      const range = requireTogether(input, ['startdate', 'enddate']);
      const clock = ctx.resolve(TenantClock);
      const [from, to] = range ? [clock.start(input.startdate!), clock.start(input.enddate!)] : [];
      if (range && to! <= from!) throw ApiError.malformed('enddate', 'must be after startdate');
      const box = requireTogether(input, BOX);
      const rows = await ctx.resolve(LocationsRepository).list(
        {
          term: input.term,
          available: range ? { from: from!, to: to! } : undefined,
          minimumCapacity: input.minimum_capacity,
          box: box ? { swLat: input.sw_latitude!, swLng: input.sw_longitude!, neLat: input.ne_latitude!, neLng: input.ne_longitude! } : undefined,
        },
        paging(input),
      );
      return { items: rows };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/locations/:location_id',
    access: policies.user,
    resource: 'locations',
    summary: 'One location',
    output: LocationView,
    input: z.object({ location_id: p.id(), ...viewShape }),
    async handler(ctx, input) {
      return { items: [await ctx.resolve(LocationsRepository).get(input.location_id)] };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/locations/:location_id/events',
    cost: COSTS.fullViewList,
    access: policies.user,
    resource: 'events',
    summary: 'Events at a location overlapping startdate..enddate (both required)',
    description: 'Course events (modules nested in children) whose time overlaps the range, sorted by start; cancelled ones included.',
    output: EventView,
    input: z.object({ location_id: p.id(), startdate: p.when(), enddate: p.when(), ...pagingShape, ...viewShape }),
    async handler(ctx, input) {
      const clock = ctx.resolve(TenantClock);
      const [from, to] = [clock.start(input.startdate), clock.start(input.enddate)];
      if (to <= from) throw ApiError.malformed('enddate', 'must be after startdate');
      await ctx.resolve(LocationsRepository).get(input.location_id);
      return { items: await ctx.resolve(EventListingFlow).atLocation(input.location_id, from, to, paging(input), { view: input.view ?? 'simple' }) };
    },
  }),
];
