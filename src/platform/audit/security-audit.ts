import type { TenantDb } from '../tenant-scope/tenant-db';

/**
 * Types of the tenant's security event log. Dotted names, subject first, so a filter on a
 * prefix reads naturally; new features add their own (e.g. `person.erased`).
 */
export const SECURITY_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'login.throttled',
  'login.sso',
  'logout',
  'password.changed',
  'password.reset',
  'email.changed',
  'mobile.changed',
  'roles.changed',
  'config.changed',
  'delivery.retried',
  'operator.action',
  'operator.imported',
  'operator.exported',
  'operator.host_added',
  'operator.host_removed',
  'operator.suspended',
  'operator.resumed',
  'person.erased',
  'person.deactivated',
  'person.reactivated',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  // catalogue authoring (issue 35): subject is the object's id
  'competence.created',
  'competence.updated',
  'competence.deleted',
  'competencegroup.created',
  'competencegroup.updated',
  'competencegroup.deleted',
  'category.created',
  'category.updated',
  'category.deleted',
  'role.created',
  'role.updated',
  'role.deleted',
  'requirement.changed',
  'requirement.removed',
  // organisations and managers (issue 36): organisation.* subject the organisation id, manager.* the manager's user name
  'organisation.updated',
  'organisation.deleted',
  'manager.added',
  'manager.removed',
  // results and attendance (issue 36): subject is the participant's user name
  'participant.result_recorded',
  // bulk import (issue 36): subject is the import's id
  'import.started',
  'import.finished',
  // reports (issue 38): a report downloaded as a file; subject is the report's name
  'report.exported',
  // report schedules (issue 38): subject is the schedule's id
  'report_schedule.created',
  'report_schedule.updated',
  'report_schedule.deleted',
  'report_schedule.run',
  // certificates and verifiable credentials (issue 38): certificate.* subject the person's user name, credential_key.* the key id
  'certificate.issued',
  'credential_key.created',
  'credential_key.rotated',
  // personal calendar feeds (issue 39): subject the person's user name
  'calendar_feed.created',
  'calendar_feed.revoked',
  // notification preferences (issue 39): a superuser's change of someone else's; subject the person's user name
  'notification_preferences.changed',
  // notice templates (issue 39): subject the notice type
  'message_template.updated',
  'message_template.deleted',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number] | (string & {});

/**
 * Types whose subject is a person's user name (the others name a config item, an object id, ...):
 * their entries also record the subject's person id (`subject_id`), so the person export and the
 * erasure find them by id, whatever the person is called later and whoever takes the name after.
 * The trigger of migration 290 holds the same list: a new type whose subject is a user name goes
 * into both (a later migration replaces the function).
 */
export const PERSON_SUBJECT_TYPES: readonly string[] = [
  'login.succeeded',
  'login.failed',
  'login.throttled',
  'login.sso',
  'logout',
  'password.changed',
  'password.reset',
  'email.changed',
  'mobile.changed',
  'roles.changed',
  'person.erased',
  'person.deactivated',
  'person.reactivated',
  'manager.added',
  'manager.removed',
  'participant.result_recorded',
  'certificate.issued',
  'calendar_feed.created',
  'calendar_feed.revoked',
  'notification_preferences.changed',
];

/** Actors that are no person (the operator, a caller before login, the system itself). */
export const NON_PERSON_ACTORS: readonly string[] = ['operator', 'anonymous', 'system'];

export interface SecurityEvent {
  type: SecurityEventType;
  /** user_name of whoever acted, `operator` for the platform operator, `anonymous` before login. */
  actor: string;
  /** user_name or config item id the event is about. */
  subject?: string | null;
  ip?: string | null;
  details?: Record<string, unknown>;
}

/** Keys whose values never reach the log, whatever a caller passes in details. */
const SECRET_KEY = /pass|secret|token|hash|cookie|authori[sz]ation|signature|session|credential/i;

export function redactDetails(value: unknown, depth = 0): unknown {
  if (depth > 5) return '[truncated]';
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redactDetails(v, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redactDetails(v, depth + 1);
    return out;
  }
  if (typeof value === 'string' && value.length > 1000) return `${value.slice(0, 1000)}…`;
  return value;
}

/**
 * Appends one entry to the tenant's security event log. Pass the transaction's TenantDb when
 * the event belongs to a change, so the entry commits (or rolls back) with it.
 */
export async function recordSecurityEvent(db: TenantDb, event: SecurityEvent): Promise<void> {
  // actor_id and subject_id (who the names stand for now) are filled by the table's trigger (migration 290)
  await db.table('audit_log').insert({
    type: event.type,
    actor: event.actor,
    subject: event.subject ?? null,
    ip: event.ip ?? null,
    details: JSON.stringify(redactDetails(event.details ?? {})),
  });
}
