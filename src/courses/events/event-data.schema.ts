import { z } from 'zod';
import { p, INT4 } from '../../platform/http/param-types';
import { ApiError } from '../../platform/errors/api-error';
import type { DateTimeParam } from '../../platform/time/tenant-clock';
import type { CustomAttributeDefinition } from '../../platform/config-items/config-item-registry';

const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO 8601 date-time: with an offset an instant, without one a wall-clock time of the tenant's
 * zone (turned into an instant by TenantClock.at). A date alone is a 420: an event needs its hour.
 */
export const eventDateTime = () =>
  z
    .string()
    .trim()
    .transform((v, ctx): DateTimeParam => {
      if (!DATE_TIME.test(v)) {
        ctx.addIssue({ code: 'custom', message: "must be an ISO 8601 date-time (YYYY-MM-DDTHH:MM[:SS], with an offset or in the tenant's time zone)" });
        return z.NEVER;
      }
      if (!OFFSET.test(v)) return { local: v };
      const at = new Date(v.replace(' ', 'T'));
      if (Number.isNaN(at.getTime())) {
        ctx.addIssue({ code: 'custom', message: 'is not a valid date-time' });
        return z.NEVER;
      }
      return { at };
    })
    .describe("ISO 8601 date-time; without an offset it is read in the tenant's time zone (config item tenant.timezone)");

/** "" or null clears an optional field. */
const clearable = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? null : v), schema.nullable()).optional();
const text = (max: number) => z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().trim().max(max, `must be at most ${max} characters`));
const count = (min: number, max: number) => p.int().pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The object form of custom_attributes: bracket form, JSON object or JSON text. */
const attributes = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  },
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]), { error: 'must be an object of attribute names and values' }),
);

const shape = {
  competence_id: p.id().describe('a course, module or ecourse competence'),
  title: text(200).pipe(z.string().min(1, 'must not be empty')).optional().describe("default: the competence's title"),
  startdate: eventDateTime(),
  enddate: eventDateTime(),
  location_id: clearable(p.id()),
  max_participants: clearable(count(1, INT4.max)).describe('seat limit; empty = no limit'),
  min_age: clearable(count(0, 150)),
  signon_opens: clearable(eventDateTime()),
  signon_closes: clearable(eventDateTime()),
  instructor_user_name: clearable(text(200).pipe(z.string().min(1))),
  host_organisation_id: clearable(p.id()),
  description: clearable(text(10000)),
  prerequisite_competence_ids: z.preprocess((v) => (v === '' || v === null ? [] : v), p.idList()).optional(),
  custom_attributes: attributes
    .optional()
    .describe('values of the custom attributes defined for events (config item custom_attributes); null or "" removes one'),
  parent_id: clearable(p.id()).describe('the course event this module event belongs to'),
};

/** event_data of POST /api/events; unknown keys are a 420. */
export const EventCreateData = z.object(shape).strict();
export type EventCreateData = z.infer<typeof EventCreateData>;

/** event_data of PUT /api/events/[event_id]: only the fields given change. */
export const EventUpdateData = z.object(shape).partial().strict();
export type EventUpdateData = z.infer<typeof EventUpdateData>;

/**
 * custom_attributes checked against the tenant's definitions for events and typed by them (a number
 * as a number, a boolean from 1/0/true/false); null or "" removes the attribute from `current`.
 */
export function eventCustomAttributes(
  definitions: readonly CustomAttributeDefinition[],
  given: Record<string, string | number | boolean | null>,
  current: Record<string, unknown> = {},
): Record<string, unknown> {
  const defined = definitions.filter((d) => d.applies_to.includes('event'));
  const out: Record<string, unknown> = { ...current };
  for (const [name, raw] of Object.entries(given)) {
    const param = `event_data[custom_attributes][${name}]`;
    const def = defined.find((d) => d.name === name);
    if (!def) throw ApiError.malformed(param, `no such custom attribute for events (defined: ${defined.map((d) => d.name).join(', ') || 'none'})`);
    if (raw === null || raw === '') {
      delete out[name];
      continue;
    }
    out[name] = typed(def, raw, param);
  }
  return out;
}

function typed(def: CustomAttributeDefinition, raw: string | number | boolean, param: string): string | number | boolean {
  if (def.type === 'number') {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
    if (!Number.isFinite(n)) throw ApiError.malformed(param, 'must be a number');
    return n;
  }
  if (def.type === 'boolean') {
    const s = String(raw).trim().toLowerCase();
    if (['1', 'true'].includes(s)) return true;
    if (['0', 'false'].includes(s)) return false;
    throw ApiError.malformed(param, 'must be 1/0 or true/false');
  }
  if (typeof raw !== 'string') return String(raw);
  if (raw.length > 1000) throw ApiError.malformed(param, 'must be at most 1000 characters');
  return raw;
}
