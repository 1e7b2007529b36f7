import { inject, injectable } from 'tsyringe';
import { TENANT } from '../../platform/tokens';
import type { Tenant } from '../../platform/tenant-scope/tenant';
import { UnitOfWork } from '../../platform/tenant-scope/unit-of-work';
import type { Principal } from '../../platform/auth/principal';
import { TenantClock } from '../../platform/time/tenant-clock';
import { AuditTrail } from '../../platform/audit';
import { CalendarRepository, calendarParty, calendarText } from '../../courses';
import { PersonDirectory, erasedUserName } from '../../people';

/** What GET /api/persons/[user_name]/calendar answers. */
export interface CalendarFeedView {
  user_name: string;
  /** The feed's address with its token: only in the answer that made the token (it is stored hashed). */
  feed_url: string | null;
  created: boolean;
  created_at: string;
}

/** The feed path of a token: `/calendar/<token>.ics` on the tenant's host. */
export const feedPath = (token: string) => `/calendar/${token}.ics`;

/**
 * A person's personal calendar feed (issue 39 item 2): courses' feed token (only its SHA-256
 * stored) and upcoming seats, people's person. A deactivated person's feed serves nothing (404,
 * back when reactivated); erasure deletes the token (courses' CalendarFeedData).
 */
@injectable()
export class CalendarFeedFlow {
  constructor(
    @inject(UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TENANT) private readonly tenant: Tenant,
    @inject(TenantClock) private readonly clock: TenantClock,
    @inject(CalendarRepository) private readonly calendar: CalendarRepository,
    @inject(PersonDirectory) private readonly persons: PersonDirectory,
  ) {}

  /** The feed of `person`: made now when they have none (answering its URL once), else its date only. */
  async feed(user: Principal, person: { id: number; user_name: string }, origin: string): Promise<CalendarFeedView> {
    return this.uow.run(async (tx) => {
      const repo = tx.get(CalendarRepository);
      const made = await repo.issueFeed(person.id, user.personId ?? null);
      if (made)
        await tx.get(AuditTrail).record({ type: 'calendar_feed.created', actor: user.userName, subject: person.user_name, details: { person_id: person.id } });
      if (made) return { user_name: person.user_name, feed_url: `${origin}${feedPath(made.token)}`, created: true, created_at: made.created_at.toISOString() };
      const existing = (await repo.feedOf(person.id))!;
      return { user_name: person.user_name, feed_url: null, created: false, created_at: new Date(existing.created_at).toISOString() };
    });
  }

  /** Revokes the person's feed; whether there was one. */
  revoke(user: Principal, person: { id: number; user_name: string }): Promise<boolean> {
    return this.uow.run(async (tx) => {
      if (!(await tx.get(CalendarRepository).revokeFeed(person.id))) return false;
      await tx.get(AuditTrail).record({ type: 'calendar_feed.revoked', actor: user.userName, subject: person.user_name, details: { person_id: person.id } });
      return true;
    });
  }

  /**
   * The feed itself (no METHOD: a subscription, not an invite): the person's seats on course
   * events not cancelled and not ended, with their module events. Undefined (404) for an unknown
   * token, and for a deactivated or erased person.
   */
  async ics(token: string): Promise<string | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
    const personId = await this.calendar.feedPerson(token);
    if (personId === undefined) return undefined;
    const person = await this.persons.find({ id: personId }, ['id', 'user_name', 'email', 'deactivated_at']);
    if (!person || person.deactivated_at || person.user_name === erasedUserName(person.id)) return undefined;
    return calendarText({
      method: null,
      host: this.tenant.hosts[0] ?? `${this.tenant.slug}.invalid`,
      tenantName: this.tenant.name,
      personId: person.id,
      organizer: calendarParty(this.tenant.config.get('mail.from')),
      attendee: person.email ? { name: null, email: person.email } : null,
      timeZone: this.tenant.config.get('tenant.timezone'),
      entries: await this.calendar.upcoming(person.id, this.clock.now()),
      name: `${this.tenant.name}: courses`,
    });
  }
}
