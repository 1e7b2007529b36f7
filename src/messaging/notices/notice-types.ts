/**
 * Every notice the product writes itself (issue 39). The names are the keys of the message
 * templates (`/api/messagetemplates/[type]`) and of a person's notification preferences
 * (`/api/persons/[user_name]/notificationpreferences`), so they are part of the API: add, never rename.
 */
export const NOTICE_TYPES = [
  /** send_login: the account was made, with a first password */
  'login_created',
  /** forgot_password or the operator's reset: a new password */
  'password_reset',
  /** to the previous address: the password, e-mail or mobile of the account changed */
  'contact_changed',
  /** the person was signed on to an event (calendar REQUEST) */
  'sign_on',
  /** the person was signed off, or lost the seat (calendar CANCEL) */
  'sign_off',
  /** the event's time or place changed (calendar REQUEST, higher SEQUENCE) */
  'event_changed',
  /** a seat was given from the wait list (calendar REQUEST) */
  'waitlist_promotion',
  /** the event was cancelled (calendar CANCEL); its managers get a copy */
  'event_cancelled',
  /** a competence is about to expire */
  'expiry_reminder',
  /** a scheduled report */
  'scheduled_report',
] as const;

export type NoticeType = (typeof NOTICE_TYPES)[number];

/** Notices a person cannot turn off: they carry or guard the account's credentials. */
export const SECURITY_NOTICE_TYPES: readonly NoticeType[] = ['login_created', 'password_reset', 'contact_changed'];
