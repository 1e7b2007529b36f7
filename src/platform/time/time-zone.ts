/** The zone of a tenant that set none (config item tenant.timezone). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** An IANA zone name the runtime knows (Europe/Oslo, UTC); offsets like +01:00 are not names. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
