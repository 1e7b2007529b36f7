/*
 * Calendar days in the tenant's time zone. date-fns v4 with @date-fns/tz rather than the
 * Temporal polyfill: date-fns is small, stable, works on plain Date (which pg and the rest of
 * the code already use), and TZDate reads the zone rules from the runtime's own ICU data, so
 * there is no second copy of the tz database to keep current.
 */
import { inject, injectable, type InjectionToken } from 'tsyringe';
import { TZDate } from '@date-fns/tz';
import { addMonths as addMonthsFns, differenceInYears, format } from 'date-fns';
import { TENANT } from '../tokens';
import type { Tenant } from '../tenant-scope/tenant';

export { DEFAULT_TIME_ZONE, isTimeZone } from './time-zone';

/** "Now" for everything that compares with the current time; tests register a fixed one. */
export interface Clock {
  now(): Date;
}
export const CLOCK: InjectionToken<Clock> = Symbol('Clock');
export const systemClock: Clock = { now: () => new Date() };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function parts(day: string): [number, number, number] {
  const m = DAY.exec(day);
  if (!m) throw new Error(`not a calendar date: ${day}`);
  return [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
}

/** The calendar date (YYYY-MM-DD) an instant falls on in a zone. */
export function dayIn(zone: string, instant: Date): string {
  return format(new TZDate(instant.getTime(), zone), 'yyyy-MM-dd');
}

/** Today's calendar date in a zone. */
export function todayIn(zone: string, now: Date = new Date()): string {
  return dayIn(zone, now);
}

/** The instant a calendar day begins in a zone (the first existing minute when DST skips midnight). */
export function startOfDayIn(zone: string, day: string): Date {
  const [y, m, d] = parts(day);
  return new Date(new TZDate(y, m, d, zone).getTime());
}

/** The instant the day after `day` begins in a zone: the exclusive end of a date-only period. */
export function endOfDayIn(zone: string, day: string): Date {
  return startOfDayIn(zone, addDays(day, 1));
}

/** Calendar month arithmetic that keeps to the month's last day: 2025-01-31 + 1 month = 2025-02-28. */
export function addMonths(day: string, months: number): string {
  const [y, m, d] = parts(day);
  return format(addMonthsFns(new TZDate(y, m, d, 'UTC'), months), 'yyyy-MM-dd');
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = parts(day);
  return format(new TZDate(y, m, d + days, 'UTC'), 'yyyy-MM-dd');
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/;

/**
 * The instant a wall-clock date-time without offset (YYYY-MM-DDTHH:MM[:SS[.sss]]) names in a zone;
 * undefined when it is no such text or names no real time (2026-02-30, 25:00).
 */
export function instantIn(zone: string, local: string): Date | undefined {
  const m = LOCAL.exec(local);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((v) => Number(v ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return undefined;
  const t = new TZDate(y, mo - 1, d, h, mi, s, ms, zone);
  return new Date(t.getTime());
}

/** Whole years from a birthdate to a calendar day. */
export function ageOn(birthdate: string, day: string): number {
  const [by, bm, bd] = parts(birthdate);
  const [y, m, d] = parts(day);
  return differenceInYears(new TZDate(y, m, d, 'UTC'), new TZDate(by, bm, bd, 'UTC'));
}

/** A request's or job's view of the clock in its tenant's zone (config item tenant.timezone). */
@injectable()
export class TenantClock {
  constructor(
    @inject(CLOCK) private readonly clock: Clock,
    @inject(TENANT) private readonly tenant: Tenant,
  ) {}

  get zone(): string {
    return this.tenant.config.get('tenant.timezone');
  }

  now(): Date {
    return this.clock.now();
  }

  today(): string {
    return todayIn(this.zone, this.clock.now());
  }

  dayOf(instant: Date): string {
    return dayIn(this.zone, instant);
  }

  /** A date-only bound is the tenant's midnight; a date-time is an instant already. */
  start(value: DateParam): Date {
    return value.day !== undefined ? startOfDayIn(this.zone, value.day) : value.at;
  }

  /** A date-time parameter: one without an offset is a wall-clock time of the tenant's zone. */
  at(value: DateTimeParam): Date {
    if (value.at) return value.at;
    const instant = instantIn(this.zone, value.local);
    if (!instant) throw new Error(`not a local date-time: ${value.local}`);
    return instant;
  }

  /** Exclusive end: a date-only bound includes that whole day of the tenant. */
  end(value: DateParam): Date {
    return value.day !== undefined ? endOfDayIn(this.zone, value.day) : value.at;
  }
}

/** A date-time parameter as given: an instant (it had an offset) or a wall-clock time of the tenant's zone. */
export type DateTimeParam = { local: string; at?: undefined } | { local?: undefined; at: Date };

/** A date parameter as given: a calendar day (zone decided later, by the tenant) or an instant. */
export type DateParam = { day: string; at?: undefined } | { day?: undefined; at: Date };
