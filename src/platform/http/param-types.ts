import type { DateParam } from '../time/tenant-clock';
import { z } from 'zod';
import { MISSING } from './zod-to-api-error';

/**
 * Parameter shapes shared by every endpoint. Query strings, form bodies and JSON all
 * arrive here: numbers may come as strings, lists as arrays, "1,2,3" or a single value.
 */
const toList = (v: unknown): unknown => {
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.flatMap((x) => (typeof x === 'string' ? x.split(',') : [x])).filter((x) => x !== '');
  if (typeof v === 'object') return Object.values(v); // qs turns ids[0]=1 into {0:'1'} past its array limit
  if (typeof v === 'string')
    return v
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  return [v];
};

/** PostgreSQL integer (int4): ids, counts, capacities, years. */
export const INT4 = { min: -2147483648, max: 2147483647 } as const;
/** bigint columns, as far as a JS number holds them exactly. */
export const INT8 = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const;
/** The spec's largest page; a larger limit is served as this (see mountRoutes' clamp note). */
export const LIMIT_MAX = 100;
export const LIST_MAX = 1000;

/**
 * Digits only (a sign allowed): 1e400, NaN, Infinity, 0x1, 1.0 and "" are refused rather than
 * coerced, and the range is the column's, so PostgreSQL never sees a value it cannot hold.
 */
const intIn = (range: { min: number; max: number }) =>
  z
    .union([
      z.number().int('must be an integer'),
      z
        .string()
        .trim()
        .regex(/^[-+]?\d+$/, 'must be an integer'),
    ])
    // Hundreds of digits make Infinity, which the range check below must still see as out of range.
    .transform((v) => Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, Number(v))))
    .pipe(z.number().min(range.min, `is out of range (${range.min}..${range.max})`).max(range.max, `is out of range (${range.min}..${range.max})`))
    .describe(`integer, digits only, ${range.min}..${range.max}`);

const intFromString = intIn(INT4);

export const p = {
  /** An int4 unless a range is given (e.g. INT8 for a bigint column). */
  int: (range: { min: number; max: number } = INT4) => (range === INT4 ? intFromString : intIn(range)),
  id: () => intFromString.pipe(z.number().min(1, 'must be a positive id')).describe('id: integer 1..2147483647'),
  /** 0/1, true/false, yes/no, on/off. */
  bool: () =>
    z.union([z.boolean(), z.number(), z.string()]).transform((v, ctx) => {
      const s = String(v).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
      ctx.addIssue({ code: 'custom', message: 'must be 1/0 or true/false' });
      return z.NEVER;
    }),
  string: (max = 1000) => z.string().trim().max(max, `must be at most ${max} characters`),
  /** Text that must be given, as is (not trimmed): absent or "" is the 419 of a missing parameter, anything but text a 420. */
  text: (message = 'must be a string') =>
    z.string({ error: message }).transform((v, ctx) => {
      if (v === '') {
        ctx.addIssue({ code: 'custom', message: 'is missing', params: { [MISSING]: true } });
        return z.NEVER;
      }
      return v;
    }),
  idList: () =>
    z
      .preprocess(toList, z.array(intFromString.pipe(z.number().min(1, 'must be positive ids'))).max(LIST_MAX, `must hold at most ${LIST_MAX} ids`))
      .describe(`ids (1..2147483647), at most ${LIST_MAX}: ids=1&ids=2, ids[]=1 or ids=1,2`),
  stringList: () => z.preprocess(toList, z.array(z.string().trim().min(1)).max(LIST_MAX, `must hold at most ${LIST_MAX} values`)),
  /** ISO 8601 date or date-time; returned as Date. */
  date: () =>
    z
      .string()
      .trim()
      .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/, 'must be an ISO date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)')
      .transform((v, ctx) => {
        const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v);
        if (Number.isNaN(d.getTime())) {
          ctx.addIssue({ code: 'custom', message: 'is not a valid date' });
          return z.NEVER;
        }
        return d;
      }),
  /**
   * A period bound: a date-only value stays a calendar day, which the tenant's clock turns into
   * an instant in the tenant's time zone (TenantClock.start / end); a date-time is an instant.
   */
  when: () =>
    z
      .string()
      .trim()
      .transform((v, ctx): DateParam => {
        const r = p.date().safeParse(v);
        if (!r.success) {
          ctx.addIssue({ code: 'custom', message: r.error.issues[0].message });
          return z.NEVER;
        }
        return v.length === 10 ? { day: v } : { at: r.data };
      })
      .describe("ISO 8601 date (a day in the tenant's time zone, config item tenant.timezone) or date-time"),
  /** 1.. ; above LIMIT_MAX it is served as LIMIT_MAX (older clients send larger pages). */
  limit: () =>
    intFromString
      .pipe(z.number().min(1, 'must be at least 1'))
      .transform((v) => Math.min(v, LIMIT_MAX))
      .describe(`page size, default 20; above ${LIMIT_MAX} it is served as ${LIMIT_MAX} and the message says so; below 1 or not an integer: 420`),
  view: () => z.enum(['simple', 'full'], { message: 'must be simple or full' }),
  /** Comma-separated top-level field names, see README "fields". */
  fields: () => z.preprocess(toList, z.array(z.string().regex(/^[a-z_][a-z0-9_]*$/i, 'must be field names separated by commas')).max(100)),
};

export const pagingShape = {
  limit: p.limit().optional(),
  offset: p.int().pipe(z.number().min(0, 'must not be negative')).describe('objects to skip, 0..2147483647 (default 0)').optional(),
  /** Deprecated alias of offset. */
  start: p.int().pipe(z.number().min(0, 'must not be negative')).describe('deprecated alias of offset').optional(),
};

export interface Paging {
  limit: number;
  offset: number;
}

export function paging(input: { limit?: number; offset?: number; start?: number }): Paging {
  return { limit: input.limit ?? 20, offset: input.offset ?? input.start ?? 0 };
}

/** An object parameter that form and query clients send as JSON text (person_data, organisation_data). */
export const jsonObject = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v; // left as a string, so the object schema reports it as malformed
  }
};

/** The two views of an object every list and one-object read offers (`view=simple|full`). */
export type ViewName = 'simple' | 'full';

export const viewShape = { view: p.view().optional(), fields: p.fields().optional() };
export const fieldsShape = { fields: p.fields().optional() };
