import type { InjectionToken } from 'tsyringe';
import type { Paging } from '../../platform/http/param-types';

/**
 * The events part of the changes feed (Type=events). Events belong to the courses module above
 * this one, which registers the implementation; the feed itself (who may read it, the period)
 * stays here with the other types.
 */
export interface EventChanges {
  /** Events updated since `start` (the end is ignored for events, as the spec says), oldest change first. */
  since(start: Date, organisationId: number | undefined, page: Paging): Promise<Record<string, unknown>[]>;
}
export const EVENT_CHANGES: InjectionToken<EventChanges> = Symbol('EventChanges');
