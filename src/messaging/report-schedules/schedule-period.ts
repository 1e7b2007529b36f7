import { addDays, addMonths, dayIn, instantIn } from '../../platform/time/tenant-clock';

/** When a schedule sends: weekly on an ISO weekday (1 Monday ... 7 Sunday) or monthly on a day (1-28, or the month's last), at HH:MM. */
export type Timing = { frequency: 'weekly'; weekday: number; time: string } | { frequency: 'monthly'; day: number | 'last'; time: string };

export interface Period {
  /** Unique per schedule and period: `weekly:<the Monday of the ISO week>` or `monthly:<YYYY-MM>`. */
  key: string;
  /** The instant the period's report is due (its day and time in the tenant's zone). */
  at: Date;
}

const isoWeekday = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
};

const lastDayOfMonth = (month: string) => addDays(addMonths(`${month}-01`, 1), -1);

function at(zone: string, day: string, time: string): Date {
  // a time that does not exist that day (the hour skipped by a DST change) is the first minute after it
  return instantIn(zone, `${day}T${time}`) ?? instantIn(zone, `${day}T${String(Number(time.slice(0, 2)) + 1).padStart(2, '0')}:00`)!;
}

/** The period the calendar day `day` lies in, with its due instant. */
export function periodOf(timing: Timing, zone: string, day: string): Period {
  if (timing.frequency === 'weekly') {
    const monday = addDays(day, 1 - isoWeekday(day));
    return { key: `weekly:${monday}`, at: at(zone, addDays(monday, timing.weekday - 1), timing.time) };
  }
  const month = day.slice(0, 7);
  const dom = timing.day === 'last' ? lastDayOfMonth(month) : `${month}-${String(timing.day).padStart(2, '0')}`;
  return { key: `monthly:${month}`, at: at(zone, dom, timing.time) };
}

/** The period after the one `period` is (the next week's or month's). */
function following(timing: Timing, zone: string, period: Period): Period {
  const first = period.key.slice(period.key.indexOf(':') + 1);
  return periodOf(timing, zone, timing.frequency === 'weekly' ? addDays(first, 7) : addMonths(`${first}-01`, 1));
}

/**
 * The period due now, if any: the current period (of now's day in the tenant's zone) once its time
 * has come, unless that time lies before `activeFrom` (a schedule created or re-timed after it).
 * A period is only ever due while it is the current one: a period the workers missed entirely is not sent later.
 */
export function duePeriod(timing: Timing, zone: string, now: Date, activeFrom: Date): Period | null {
  const period = periodOf(timing, zone, dayIn(zone, now));
  return period.at <= now && period.at >= activeFrom ? period : null;
}

/** When the schedule sends next (after now, and not before activeFrom). */
export function nextRun(timing: Timing, zone: string, now: Date, activeFrom: Date): Date {
  let period = periodOf(timing, zone, dayIn(zone, now));
  while (period.at <= now || period.at < activeFrom) period = following(timing, zone, period);
  return period.at;
}
