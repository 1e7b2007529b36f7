import type { NoticeType } from './notice-types';

/** One variable a notice's templates may use, with what it holds and a value for previews. */
export interface NoticeVariable {
  name: string;
  description: string;
  sample: unknown;
}

const SAMPLE_START = '2026-03-12T08:30:00.000Z';
const v = (name: string, description: string, sample: unknown): NoticeVariable => ({ name, description, sample });
const common = [v('tenant_name', "the tenant's name", 'Acme Training'), v('user_name', "the recipient's user name", 'kari.nordmann')];
const event = [
  v('event_title', "the course event's title", 'First aid, basic'),
  v('starts_at', 'when it starts (a time: use the datetime filter)', SAMPLE_START),
  v('ends_at', 'when it ends (a time: use the datetime or time filter)', '2026-03-12T15:00:00.000Z'),
  v('location', "the location's name and address, or nil", 'Main hall, Storgata 1, Oslo'),
];
const password = [
  v('password', 'the new password (filled in when the mail is sent; it must appear in the text)', 'Xy7-sample-Pw2'),
  v('valid_hours', 'hours the password works before it must be replaced', 72),
];

/**
 * The variables each notice type hands its templates (GET /api/messagetemplates lists them; a
 * template that names any other is refused, 420). Dates and times are ISO 8601 strings: the
 * filters `date`, `date_long`, `datetime` and `time` format them in the tenant's time zone and the
 * notice's language (Intl.DateTimeFormat).
 */
export const NOTICE_VARIABLES: Record<NoticeType, NoticeVariable[]> = {
  login_created: [...common, ...password],
  password_reset: [...common, ...password, v('reason', 'forgot_password (the person asked) or operator_reset (the operator sent it)', 'forgot_password')],
  contact_changed: [
    ...common,
    v('fields', 'what changed: a list of email, mobile, password', ['email', 'password']),
    v('changed_by', 'user name of who changed it', 'admin'),
    v('changed_by_self', 'true when the person changed it themself', false),
    v('changed_at', 'when (a time)', SAMPLE_START),
  ],
  sign_on: [...common, ...event],
  sign_off: [...common, ...event],
  event_changed: [...common, ...event],
  waitlist_promotion: [...common, ...event, v('has_calendar', 'true when the calendar entry is attached', true)],
  event_cancelled: [
    ...common,
    ...event.filter((x) => x.name !== 'ends_at' && x.name !== 'location'),
    v('reason', 'why, or nil', 'Too few participants'),
    v('waitlist', 'true when the participant was on the wait list (else they had a seat)', false),
    v('manager_copy', "true in the copy to a participant's manager", false),
    v('participant', "the participant's user name (in a manager's copy: not the recipient)", 'ola.nordmann'),
  ],
  expiry_reminder: [
    ...common,
    v('competence_title', "the competence's title", 'Forklift licence'),
    v('valid_until', 'the last valid day (a date: use the date or date_long filter)', '2026-04-30'),
    v('days_left', 'days left (0: today is the last valid day)', 30),
  ],
  scheduled_report: [
    ...common,
    v('report', 'competencematrix or compliance', 'compliance'),
    v('organisation', "the organisation's name", 'Acme Oslo'),
    v('date', 'the date the report shows (a date)', '2026-03-02'),
    v('attached', 'true when the file is attached (false: too large, see download_path)', true),
    v('filename', "the file's name", 'compliance-2026-03-02.xlsx'),
    v('format', 'csv or xlsx', 'xlsx'),
    v('file_bytes', "the file's size in bytes", 48213),
    v('max_bytes', 'the largest file attached to a mail (MAIL_ATTACHMENT_MAX_BYTES)', 10485760),
    v('download_path', 'the API path that downloads the report', '/api/reports/compliance?organisation_id=3&format=xlsx'),
    v('frequency', 'weekly, monthly, or request (run now)', 'weekly'),
    v('schedule_id', "the schedule's id", 12),
  ],
};

/** The sample values of a type's variables (previews, and the check of a template on save). */
export function sampleData(type: NoticeType): Record<string, unknown> {
  return Object.fromEntries(NOTICE_VARIABLES[type].map((x) => [x.name, x.sample]));
}
