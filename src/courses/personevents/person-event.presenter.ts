import { z } from 'zod';
import { isoDateTime } from '../events/event.presenter';

export interface PersonEventRow {
  id: number;
  person_id: number;
  user_name: string;
  event_id: number;
  event_title: string;
  starts_at: Date;
  ends_at: Date;
  status: string;
  passed: boolean | null;
  order_id: number | null;
  order_reference: string | null;
  created_at: Date;
  signed_off_at: Date | null;
}

export function presentPersonEvent(r: PersonEventRow): Record<string, unknown> {
  return {
    person_event_id: r.id,
    event_id: r.event_id,
    event_title: r.event_title,
    startdate: r.starts_at,
    enddate: r.ends_at,
    person_id: r.person_id,
    user_name: r.user_name,
    status: r.status,
    waitlist: r.status === 'waitlist',
    passed: r.passed,
    order_id: r.order_id,
    order_reference: r.order_reference,
    signed_on_at: r.created_at,
    signed_off_at: r.signed_off_at,
  };
}

export const PersonEventView = z
  .object({
    person_event_id: z.number().int(),
    event_id: z.number().int(),
    event_title: z.string(),
    startdate: isoDateTime(),
    enddate: isoDateTime(),
    person_id: z.number().int(),
    user_name: z.string(),
    status: z.enum(['signed_on', 'waitlist', 'signed_off']).describe('signed_off only in the answer of a sign-off'),
    waitlist: z.boolean().describe('true while the person is on the wait list'),
    passed: z.boolean().nullable().describe('whether the person passed the event; null = not assessed yet'),
    order_id: z.number().int().nullable().describe('order the sign-on belongs to (order system); null = none'),
    order_reference: z.string().nullable().describe('reference of that order'),
    signed_on_at: isoDateTime(),
    signed_off_at: isoDateTime().nullable(),
  })
  .meta({ id: 'PersonEvent' });
