/**
 * The nodemailer options of a mail that carries a calendar object (issue 39): the iCalendar text as
 * the `text/calendar; method=...` alternative (nodemailer's `icalEvent`, which calendar clients
 * such as Outlook act on) and the same text as an `invite.ics` attachment (for clients that only
 * offer attachments). The METHOD is read from the object itself.
 */
export function calendarMailOptions(calendar: string | null | undefined): { icalEvent?: object; attachments?: object[] } {
  if (!calendar) return {};
  const method = /^METHOD:([A-Z]+)\r?$/m.exec(calendar)?.[1] ?? 'PUBLISH';
  return {
    icalEvent: { method, filename: 'invite.ics', content: calendar },
    attachments: [{ filename: method === 'CANCEL' ? 'cancel.ics' : 'invite.ics', content: calendar, contentType: `application/ics; method=${method}` }],
  };
}
