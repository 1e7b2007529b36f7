import type { Transaction } from '../../platform/tenant-scope/unit-of-work';
import { OUTBOUND_EVENTS } from '../../platform/outbound/outbound-events';
import { PersonEventsRepository, presentPersonEvent, type EventRow } from '../../courses';
import { PersonDirectory } from '../../people';
import { WaitlistPromotionNotice } from '../../messaging';
import { SignOnViewsFlow } from './sign-on-views';
import { CourseCalendar } from '../calendar/calendar-invites';

/**
 * Gives every free seat of `event` (as it is in `tx`, locked by the caller: its max_participants
 * already the new one) to the longest-waiting persons on its wait list (first come, first served),
 * each with messaging's WaitlistPromotionNotice and a `personevent.promoted` webhook event, all in
 * the caller's transaction. A cancelled event promotes nobody. Used by a sign-off (SignOnFlow) and
 * by raising max_participants (EventAuthoringFlow). Returns the promoted sign-ons' ids.
 */
export async function promoteFromWaitlist(
  tx: Transaction,
  event: Pick<EventRow, 'id' | 'title' | 'starts_at' | 'max_participants' | 'cancelled'>,
): Promise<number[]> {
  if (event.cancelled) return [];
  const repo = tx.get(PersonEventsRepository);
  const free = event.max_participants === null ? Infinity : event.max_participants - (await repo.seatsTaken(event.id));
  if (free <= 0) return [];
  const promoted: number[] = [];
  const calendar = await CourseCalendar.of(tx, event.id);
  for (const waiting of await repo.waiting(event.id, free === Infinity ? null : free)) {
    await repo.promote(waiting.id);
    // in the same transaction: a crash after the commit cannot lose the notice
    const recipient = await tx.get(PersonDirectory).find({ id: waiting.person_id }, ['id', 'user_name', 'email', 'mobile', 'language']);
    // with the sign-on's calendar invite (REQUEST): the seat is theirs now
    if (recipient)
      await tx.get(WaitlistPromotionNotice).write({
        recipient,
        eventTitle: event.title,
        startsAt: event.starts_at,
        endsAt: calendar?.entries[0]?.ends_at ?? null,
        location: calendar?.entries[0]?.location ?? null,
        calendar: calendar?.textFor(recipient, 'REQUEST'),
      });
    await tx.get(OUTBOUND_EVENTS).record('personevent.promoted', async () => presentPersonEvent(await tx.get(SignOnViewsFlow).byId(waiting.id)));
    promoted.push(waiting.id);
  }
  return promoted;
}
