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
