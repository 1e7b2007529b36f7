import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import { TENANT } from '../../platform/tokens';
import { CalendarRepository, calendarParty, calendarText, type CalendarEntry, type CalendarMethod } from '../../courses';
import { PersonManagers } from '../../people';
import { CalendarNotice, NoticeRenderer, type NoticeContact, type NoticeType } from '../../messaging';

/**
 * A course event's calendar for its persons (issue 39), built in the change's transaction: the
 * course event and its module events (courses' CalendarRepository) with the tenant's `mail.from` as
 * ORGANIZER, the person as ATTENDEE, UID per (event, person), the events' SEQUENCE. The text is
 * stored with the notice (messages.calendar), so what is sent is what the change left, however
 * late the delivery.
 */
export class CourseCalendar {
  private constructor(
    private readonly tx: Transaction,
    readonly courseEventId: number,
    readonly entries: CalendarEntry[],
  ) {}

  /** The calendar of the course event `eventId` belongs to (itself or its parent); undefined when it is gone. */
  static async of(tx: Transaction, eventId: number): Promise<CourseCalendar | undefined> {
    const repo = tx.get(CalendarRepository);
    const course = await repo.courseOf(eventId);
    if (course === undefined) return undefined;
    return new CourseCalendar(tx, course, await repo.entries(course));
  }

  get title(): string {
    return this.entries[0]?.title ?? `event ${this.courseEventId}`;
  }

  get startsAt(): Date {
    return this.entries[0]?.starts_at ?? new Date();
  }

  /** The iCalendar text for one person, or null when they have no e-mail (an invite needs an ATTENDEE address). */
  textFor(person: NoticeContact, method: CalendarMethod): string | null {
    if (!person.email) return null;
    const tenant = this.tx.get(TENANT);
    return calendarText({
      method,
      host: tenant.hosts[0] ?? `${tenant.slug}.invalid`,
      tenantName: tenant.name,
      personId: person.id,
      organizer: calendarParty(tenant.config.get('mail.from')),
      attendee: { name: null, email: person.email },
      timeZone: tenant.config.get('tenant.timezone'),
      entries: this.entries,
    });
  }

  /**
   * Writes one notice per person with the calendar attached (messaging's CalendarNotice, in the
   * transaction): `REQUEST` for a seat (new or changed), `CANCEL` for one ended. Returns how many.
   * `type`: the notice type whose preference decides each person's medium.
   */
  async notify(personIds: readonly number[], method: CalendarMethod, type: NoticeType): Promise<number> {
    if (!personIds.length || !this.entries.length) return 0;
    const contacts = await this.tx.get(PersonManagers).contacts(personIds);
    const renderer = this.tx.get(NoticeRenderer);
    const first = this.entries[0];
    const vars = {
      event_title: this.title,
      starts_at: new Date(this.startsAt).toISOString(),
      ends_at: new Date(first.ends_at).toISOString(),
      location: first.location,
    };
    const items = [];
    for (const c of contacts.values()) {
      // each in the person's own language (persons.language, else the tenant's)
      const { title, text, html } = await renderer.render(type, { user_name: c.user_name, ...vars }, c.language);
      items.push({ type, recipient: c, title, text, html, calendar: this.textFor(c, method) ?? '' });
    }
    return this.tx.get(CalendarNotice).write(items);
  }

  /** The sign-on confirmation of a seat. */
  confirmSeat(personId: number): Promise<number> {
    return this.notify([personId], 'REQUEST', 'sign_on');
  }

  /** A sign-off of a seat: the invite withdrawn. */
  withdrawSeat(personId: number): Promise<number> {
    return this.notify([personId], 'CANCEL', 'sign_off');
  }

  /** The event's time or place changed: an update to everyone with a seat. */
  async updateSeats(): Promise<number> {
    const seated = await this.tx.get(CalendarRepository).seated(this.courseEventId);
    return this.notify(seated, 'REQUEST', 'event_changed');
  }
}
