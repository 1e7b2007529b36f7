// Dates and times of the calendar in the tenant's time zone (config item tenant.timezone): the API
// reads a date-time without an offset in that zone, so the forms send what they show.

let zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function setTimeZone(tz) {
  if (!tz) return;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    zone = tz;
  } catch {
    // an unknown zone name: the browser's own stays
  }
}

export const timeZone = () => zone;

const partsOf = (iso) => {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  return Object.fromEntries(parts.map((p) => [p.type, p.value]));
};

/** An instant as the value of <input type=datetime-local> in the tenant's zone: 2026-12-10T08:00. */
export function localInput(iso) {
  if (!iso) return '';
  const p = partsOf(iso);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/** The tenant's calendar day of an instant: 2026-12-10. */
export const localDay = (iso) => localInput(iso).slice(0, 10);

/** 08:00 in the tenant's zone. */
export const localTime = (iso) => localInput(iso).slice(11, 16);

/** "Thu 10 Dec 2026, 08:00" in the tenant's zone. */
export function showWhen(iso) {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));
}

/** "Thu 10 Dec 08:00 - 15:00" or "... - Fri 11 Dec 15:00": an event's span. */
export function showSpan(startIso, endIso) {
  const sameDay = localDay(startIso) === localDay(endIso);
  return `${showWhen(startIso)} – ${sameDay ? localTime(endIso) : showWhen(endIso)}`;
}

/** Today in the tenant's zone, as YYYY-MM-DD. */
export const today = () => localDay(new Date().toISOString());

/** YYYY-MM-DD plus n days (calendar arithmetic, no zone involved). */
export function addDays(day, n) {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The first day of the month of `day` shifted by n months: YYYY-MM-01. */
export function monthStart(day, n = 0) {
  const d = new Date(`${day.slice(0, 7)}-01T12:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.toISOString().slice(0, 10);
}

export const monthName = (first) =>
  new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${first}T12:00:00Z`));
export const dayName = (day) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(`${day}T12:00:00Z`));
