import { expect } from 'vitest';
import { simpleParser } from 'mailparser';
import ical from 'node-ical';
import type { CalendarBed } from '../authoring/authoring-support';
import type { ReceivedMail } from '../../messaging/messages/delivery-peers';
import { waitFor } from '../../messaging/messages/delivery-peers';

export interface ParsedInvite {
  mail: ReceivedMail;
  /** The METHOD of the text/calendar alternative (from its Content-Type and its body). */
  method: string;
  /** The VEVENTs of the text/calendar alternative, as node-ical parsed them, by start. */
  events: ical.VEvent[];
  /** The .ics attachment's text (the same calendar). */
  attachment: string;
}

/** VEVENTs of an iCalendar text (node-ical), by start. */
export function vevents(text: string): ical.VEvent[] {
  const parsed = ical.sync.parseICS(text);
  return Object.values(parsed)
    .filter((c): c is ical.VEvent => c?.type === 'VEVENT')
    .sort((a, b) => +a.start - +b.start);
}

/** The `n`th mail (from 1) to `to` whose subject starts with `subject`, waited for. */
export async function mailTo(bed: CalendarBed, to: string, subject: string, n = 1): Promise<ReceivedMail> {
  const found = () => bed.smtp.mails.filter((m) => m.rcptTo.includes(to) && (m.headers.subject ?? '').startsWith(subject));
  await waitFor(`mail ${n} "${subject}" to ${to}`, () => found().length >= n, 30_000);
  return found()[n - 1];
}

/** The calendar parts of a received mail, MIME-parsed (mailparser) and iCalendar-parsed (node-ical). */
export async function invite(mail: ReceivedMail): Promise<ParsedInvite> {
  const parsed = await simpleParser(mail.raw);
  const alternative = parsed.attachments.find((a) => a.contentType === 'text/calendar');
  const files = parsed.attachments.filter((a) => a.contentType === 'application/ics');
  expect(files, 'one .ics attachment').toHaveLength(1);
  const file = files[0];
  expect(alternative, 'a text/calendar part').toBeTruthy();
  expect(file, 'an .ics attachment').toBeTruthy();
  expect(file.filename).toMatch(/\.ics$/);
  const text = alternative!.content.toString('utf8');
  const method = /^METHOD:(\w+)/m.exec(text)?.[1] ?? '';
  // the part's own Content-Type names the method too (what Outlook reads)
  expect(mail.raw).toMatch(new RegExp(`text/calendar; ?charset=utf-8; ?method=${method}|text/calendar; ?method=${method}`, 'i'));
  return { mail, method, events: vevents(text), attachment: file.content.toString('utf8') };
}
