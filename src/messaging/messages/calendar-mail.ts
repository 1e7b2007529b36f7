/**
 * The nodemailer options of a mail that carries a calendar object (issue 39): nodemailer's
 * `icalEvent` puts the iCalendar text in the `text/calendar; method=...` alternative (which calendar
 * clients such as Outlook act on) and also attaches it as an `.ics` file itself (for clients that only
 * offer attachments), so no attachment of our own is added: one would be a second copy. The METHOD
 * is read from the object itself.
 */
export function calendarMailOptions(calendar: string | null | undefined): { icalEvent?: object } {
  if (!calendar) return {};
  const method = /^METHOD:([A-Z]+)\r?$/m.exec(calendar)?.[1] ?? 'PUBLISH';
  return { icalEvent: { method, filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics', content: calendar } };
}
